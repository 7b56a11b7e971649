package hostcfg_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/hostcfg/dcbnl/dcbfake"
)

// variants are desired states a RoCE interface moves between: each differs
// from the others in several settings at once.
func variants(base fabric.InterfaceIntent) []fabric.InterfaceIntent {
	dscp := func(m map[int]uint8, rest func(int) uint8) []fabric.DSCPEntry {
		var out []fabric.DSCPEntry
		for d := range 64 {
			p, ok := m[d]
			if !ok {
				p = rest(d)
			}
			out = append(out, fabric.DSCPEntry{DSCP: uint8(d), Priority: p})
		}
		return out
	}
	zero := func(int) uint8 { return 0 }

	v1 := base // the roce-lossless profile

	v2 := base
	v2.MTU = 4200
	v2.PFC = fabric.HostPFC{Enable: 0x18, Priorities: []int{3, 4}, Delay: 12}
	v2.DSCPMap = dscp(map[int]uint8{26: 3, 28: 4, 48: 6}, zero)
	v2.ETS = fabric.HostETS{PrioTC: [8]uint8{0, 0, 0, 3, 4, 0, 6, 0}, TSA: [8]uint8{2, 0, 0, 2, 2, 0, 0, 0}, Bandwidth: [8]uint8{20, 0, 0, 40, 40}}
	v2.ECN = fabric.HostECN{Priorities: []int{3, 4}}
	v2.RoCE.ToS = 104
	v2.DCQCN = fabric.HostDCQCN{Enabled: true, RP: map[string]int{"rpg_ai_rate": 20, "rpg_hai_rate": 150}}

	v3 := base // plain PCP trust, nothing lossless
	v3.MTU = 1500
	v3.Trust = "pcp"
	v3.DSCPMap = nil
	v3.PFC = fabric.HostPFC{Delay: 7}
	v3.ETS = fabric.HostETS{PrioTC: [8]uint8{0, 1, 2, 3, 4, 5, 6, 7}, TSA: [8]uint8{2, 2, 2, 2, 2, 2, 2, 2}, Bandwidth: [8]uint8{13, 13, 13, 13, 12, 12, 12, 12}}
	v3.ECN = fabric.HostECN{}
	v3.DCQCN = fabric.HostDCQCN{Enabled: false, RP: map[string]int{"rpg_ai_rate": 5, "rpg_hai_rate": 50}}
	v3.RoCE.ToS = 0

	v4 := base // the vendor default map (prio = dscp>>3), PFC on 3
	v4.DSCPMap = dscp(nil, func(d int) uint8 { return uint8(d >> 3) })
	v4.PFC = fabric.HostPFC{Enable: 0x08, Priorities: []int{3}, Delay: 30}
	v4.CNP = fabric.HostCNP{DSCP: 46, Priority: 5}

	return []fabric.InterfaceIntent{v1, v2, v3, v4}
}

// TestRandomReplayConverges moves a host between desired states in random
// order (tailscale's wgengine reconfig style): every transition must reach
// its target exactly, and re-applying it must write nothing.
func TestRandomReplayConverges(t *testing.T) {
	for _, tc := range []struct {
		host    string
		flavour dcbfake.Flavour
	}{
		{"mlx5-upstream", dcbfake.MLX5},
		{"mlx5-ofed", dcbfake.MLX5},
		{"mlx5-upstream", dcbfake.Generic}, // a driver with apptrust
	} {
		t.Run(tc.host+"-"+tc.flavour.String(), func(t *testing.T) {
			ctx := context.Background()
			f := load(t, tc.host)
			d := desired(t, tc.host)
			name := d.Interfaces[0].Name
			if name == fabric.AllRDMANetdevs {
				name = "ens3f0np0"
			}
			if tc.flavour != dcbfake.MLX5 {
				f.Kernel.AddDevice(name, tc.flavour)
			}
			vs := variants(d.Interfaces[0])
			d.Interfaces = d.Interfaces[:1]
			// Every ordered transition i→j, in random order: a walk that
			// visits i, then j, for each shuffled pair.
			rng := rand.New(rand.NewPCG(1, uint64(tc.flavour)))
			var walk []int
			for i := range vs {
				for j := range vs {
					if i != j {
						walk = append(walk, i, j)
					}
				}
			}
			pairs := len(walk) / 2
			rng.Shuffle(pairs, func(a, b int) {
				walk[2*a], walk[2*b] = walk[2*b], walk[2*a]
				walk[2*a+1], walk[2*b+1] = walk[2*b+1], walk[2*a+1]
			})
			visited := map[[2]int]bool{}
			prev := -1
			for step, k := range walk {
				if prev >= 0 && prev != k {
					visited[[2]int{prev, k}] = true
				}
				prev = k
				d.Interfaces[0] = vs[k]
				d.Interfaces[0].Name = name
				_, p := plan(t, f, d)
				if _, err := f.Host.Apply(ctx, p); err != nil {
					t.Fatalf("step %d (variant %d): %v", step, k+1, err)
				}
				_, again := plan(t, f, d)
				if len(again.Changes) != 0 {
					t.Fatalf("step %d (variant %d) did not converge: %+v", step, k+1, again.Changes)
				}
				f.Kernel.ClearRequests()
				if _, err := f.Host.Apply(ctx, again); err != nil || len(f.Kernel.Writes()) != 0 {
					t.Fatalf("step %d: re-apply wrote %d DCB requests (err %v)", step, len(f.Kernel.Writes()), err)
				}
			}
			if n := len(vs) * (len(vs) - 1); len(visited) != n {
				t.Errorf("the replay made %d of the %d transitions", len(visited), n)
			}
		})
	}
}
