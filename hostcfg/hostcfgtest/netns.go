package hostcfgtest

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// RequireNetNS skips the test, loudly (on stderr too, so `go test` without
// -v shows it), unless it runs as root with iproute2: the real-kernel tests
// need to make network namespaces.
func RequireNetNS(t testing.TB) {
	t.Helper()
	why := ""
	if os.Geteuid() != 0 {
		why = "not root"
	} else if _, err := exec.LookPath("ip"); err != nil {
		why = "no ip(8) from iproute2"
	}
	if why != "" {
		fmt.Fprintf(os.Stderr, "SKIP %s: real-kernel test needs root and iproute2 (%s)\n", t.Name(), why)
		t.Skipf("real-kernel test needs root and iproute2 (%s)", why)
	}
}

// IP runs ip(8) with args and fails the test on error.
func IP(t testing.TB, args ...string) string {
	t.Helper()
	out, err := exec.Command("ip", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("ip %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// NetNS makes a fresh named network namespace, removed when the test ends,
// and returns its name and the path of its handle (/run/netns/NAME).
func NetNS(t testing.TB) (name, path string) {
	t.Helper()
	RequireNetNS(t)
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	name = "fabricctl-t-" + hex.EncodeToString(b)
	IP(t, "netns", "add", name)
	t.Cleanup(func() {
		if out, err := exec.Command("ip", "netns", "del", name).CombinedOutput(); err != nil {
			t.Errorf("removing netns %s: %v: %s", name, err, out)
		}
	})
	return name, "/run/netns/" + name
}

// Veth makes a veth pair a—b inside the namespace ns and sets both up.
func Veth(t testing.TB, ns, a, b string) {
	t.Helper()
	IP(t, "-n", ns, "link", "add", a, "type", "veth", "peer", "name", b)
	IP(t, "-n", ns, "link", "set", a, "up")
	IP(t, "-n", ns, "link", "set", b, "up")
}
