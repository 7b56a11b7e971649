package hostcfg_test

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/hostcfg"
	"github.com/fabricctl/fabricctl/hostcfg/hostcfgtest"
	"github.com/fabricctl/fabricctl/internal/testutil"
)

// BenchmarkHost64Veth measures, on 64 veth netdevs in a fresh network
// namespace and the real kernel, fabricctl's full observe and an MTU apply
// (observe, plan, write, read back) against the iproute2/sysfs shell script
// of bench/host-apply.sh doing the same. bench/host-apply.sh compares the
// fabricctl binary with the script and prints the ratio.
func BenchmarkHost64Veth(b *testing.B) {
	const n = 64
	ns, path := hostcfgtest.NetNS(b)
	for i := 0; i < n; i += 2 {
		hostcfgtest.IP(b, "-n", ns, "link", "add", fmt.Sprintf("vb%d", i), "type", "veth", "peer", "name", fmt.Sprintf("vb%d", i+1))
	}
	h, err := hostcfg.OpenLocal(hostcfg.Options{Name: "bench", NetNS: path, SysRoot: b.TempDir(), ConfigRoot: b.TempDir(), DebugRoot: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	script := filepath.Join(testutil.RepoRoot(b), "bench", "host-apply.sh")
	intent := func(mtu int) fabric.HostIntent {
		d := desired(&testing.T{}, "mlx5-ofed")
		base := d.Interfaces[0]
		base.MTU, base.RoCE = mtu, fabric.HostRoCE{}
		d.Interfaces = nil
		for i := range n {
			in := base
			in.Name = fmt.Sprintf("vb%d", i)
			d.Interfaces = append(d.Interfaces, in)
		}
		return d
	}
	d9000, d1500 := intent(9000), intent(1500)
	ctx := context.Background()
	shell := func(b *testing.B, args ...string) {
		out, err := exec.Command("ip", append([]string{"netns", "exec", ns, "bash", script}, args...)...).CombinedOutput()
		if err != nil {
			b.Fatalf("%v: %v: %s", args, err, out)
		}
	}

	b.Run("fabricctl/observe", func(b *testing.B) {
		for b.Loop() {
			if _, err := h.Observe(ctx, d9000); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("shell/observe", func(b *testing.B) {
		for b.Loop() {
			shell(b, "shell-observe")
		}
	})
	b.Run("fabricctl/apply-mtu", func(b *testing.B) {
		i := 0
		for b.Loop() {
			d := d9000
			if i%2 == 1 {
				d = d1500
			}
			i++
			obs, err := h.Observe(ctx, d)
			if err != nil {
				b.Fatal(err)
			}
			res, err := h.Apply(ctx, hostcfg.Diff(d, obs))
			if err != nil || len(res.Applied)+len(res.Unchanged) != n {
				b.Fatalf("applied %d: %v", len(res.Applied), err)
			}
		}
	})
	b.Run("shell/apply-mtu", func(b *testing.B) {
		i := 0
		for b.Loop() {
			shell(b, "shell-apply", strconv.Itoa([]int{9000, 1500}[i%2]))
			i++
		}
	})
}
