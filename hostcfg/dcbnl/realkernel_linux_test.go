package dcbnl

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// Tests against the running kernel. Verified on Linux 6.18 (and matching
// net/dcb/dcbnl.c: dcb_doit): a name unknown in the socket's namespace is
// answered with an NLMSG_ERROR of -ENODEV; a device without dcbnl_ops (veth,
// lo) with -EOPNOTSUPP, for GET and SET alike; neither reaches a driver, so
// neither is an in-band status.

func requireRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("SKIPPING REAL-KERNEL DCB TEST: needs root (network namespaces, RTM_SETDCB needs CAP_NET_ADMIN); run `go test` as root to cover the kernel path")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("SKIPPING REAL-KERNEL DCB TEST: iproute2's ip not found")
	}
}

func randomSuffix(t *testing.T) string {
	b := make([]byte, 3)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

func run(t *testing.T, args ...string) {
	t.Helper()
	if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out)
	}
}

// vethNetns makes a fresh network namespace holding a veth pair and returns
// the namespace's handle path and the veth names.
func vethNetns(t *testing.T) (nsPath, a, b string) {
	t.Helper()
	sfx := randomSuffix(t)
	ns := "fabricctl-dcbnl-" + sfx
	a, b = "fcva"+sfx, "fcvb"+sfx
	run(t, "ip", "netns", "add", ns)
	t.Cleanup(func() { exec.Command("ip", "netns", "del", ns).Run() })
	run(t, "ip", "-n", ns, "link", "add", a, "type", "veth", "peer", "name", b)
	return filepath.Join("/run/netns", ns), a, b
}

func kernelError(t *testing.T, err error, want syscall.Errno) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("got %v, want an error matching %v", err, want)
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("%v is not a *dcbnl.Error", err)
	}
	if e.InBand {
		t.Errorf("%v came in-band; the kernel refuses before the driver, with NLMSG_ERROR", err)
	}
}

func TestRealKernelVethAndMissingDevice(t *testing.T) {
	requireRoot(t)
	nsPath, veth, _ := vethNetns(t)
	conn, err := OpenConnNetns(nsPath)
	if err != nil {
		t.Fatal(err)
	}
	c := New(conn)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	_, err = c.GetIEEE(ctx, veth)
	kernelError(t, err, syscall.EOPNOTSUPP)
	kernelError(t, c.SetPFC(ctx, veth, PFC{PFCEn: 1 << 3}), syscall.EOPNOTSUPP)
	kernelError(t, c.AddApps(ctx, veth, []App{{Selector: SelDSCP, Protocol: 26, Priority: 3}}), syscall.EOPNOTSUPP)
	kernelError(t, c.SetDCBX(ctx, veth, DCBXHostIEEE), syscall.EOPNOTSUPP)
	_, err = c.GetDCBX(ctx, veth)
	kernelError(t, err, syscall.EOPNOTSUPP)
	_, err = c.UpdatePFC(ctx, veth, func(p *PFC) { p.PFCEn = 1 << 3 })
	kernelError(t, err, syscall.EOPNOTSUPP)

	_, err = c.GetIEEE(ctx, "nosuchdev0")
	kernelError(t, err, syscall.ENODEV)
	kernelError(t, c.SetETS(ctx, "nosuchdev0", ETS{}), syscall.ENODEV)

	// The veth lives in the test namespace only: a socket of the caller's
	// namespace does not see it.
	root, err := Open()
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	_, err = root.GetIEEE(ctx, veth)
	kernelError(t, err, syscall.ENODEV)
}

func TestRealKernelContextCancelled(t *testing.T) {
	requireRoot(t)
	c, err := Open()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.GetIEEE(ctx, "lo"); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	// The Conn stays usable.
	_, err = c.GetIEEE(context.Background(), "lo")
	kernelError(t, err, syscall.EOPNOTSUPP)
}

// A request the kernel never answers (no NLM_F_REQUEST, no NLM_F_ACK) must
// end at the context's deadline, and the Conn must stay usable.
func TestRealKernelDeadline(t *testing.T) {
	requireRoot(t)
	conn, err := OpenConn()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	req, _ := EncodeIEEEGet("lo")
	order.PutUint16(req[6:], 0) // flags: neither REQUEST nor ACK
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := conn.Exchange(ctx, req); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("waited %v for a 200ms deadline", d)
	}
	_, err = New(conn).GetIEEE(context.Background(), "lo")
	kernelError(t, err, syscall.EOPNOTSUPP)
}
