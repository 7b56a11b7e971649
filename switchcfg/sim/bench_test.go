package sim_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"
	"github.com/fabricctl/fabricctl/switchcfg/all"
	"github.com/fabricctl/fabricctl/switchcfg/drivertest"
	"github.com/fabricctl/fabricctl/switchcfg/session"
	"github.com/fabricctl/fabricctl/switchcfg/sim"
	"github.com/fabricctl/fabricctl/switchcfg/sim/simtest"
)

// BenchmarkDrift100Switches measures issue 5 item 8: drift detection
// (connect over SSH, Observe, Compare) of 100 simulated switches, 20 of each
// platform, 32 at a time — what `fabricctl drift --parallel 32` does. The
// switches hold the lab intent, so every comparison must come back empty.
//
//	go test ./switchcfg/sim -run '^$' -bench Drift100 -benchtime 3x
func BenchmarkDrift100Switches(b *testing.B) {
	const perPlatform, parallel = 20, 32
	reg := all.Registry()
	type target struct {
		opt    session.Options
		drv    switchcfg.Driver
		intent switchcfgIntent
	}
	var targets []target
	var known strings.Builder
	for _, platform := range sim.Platforms() {
		drv, err := reg.Driver(platform)
		if err != nil {
			b.Fatal(err)
		}
		in := drivertest.LabIntent(drv.Info())
		cfg, err := drv.Render(in)
		if err != nil {
			b.Fatal(err)
		}
		for i := 0; i < perPlatform; i++ {
			sw := simtest.Start(b, sim.Options{Platform: platform, Hostname: fmt.Sprintf("leaf%02d", i)})
			known.WriteString(sw.KnownHostsLine() + "\n")
			targets = append(targets, target{opt: sw.Options(), drv: drv,
				intent: switchcfgIntent{in, cfg}})
		}
	}
	kh := filepath.Join(b.TempDir(), "known_hosts")
	if err := os.WriteFile(kh, []byte(known.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	// Bring every switch to the intent first (not measured).
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(parallel)
	for i := range targets {
		targets[i].opt.KnownHostsFile = kh
		t := targets[i]
		g.Go(func() error {
			c, err := session.Dial(gctx, t.opt)
			if err != nil {
				return err
			}
			defer c.Close()
			_, err = t.drv.Push(gctx, c, t.intent.cfg, switchcfg.PushOptions{CheckpointName: "fabricctl-bench"})
			return err
		})
	}
	if err := g.Wait(); err != nil {
		b.Fatalf("preparing the switches: %v", err)
	}

	b.ResetTimer()
	var drifted atomic.Int64
	for n := 0; n < b.N; n++ {
		start := time.Now()
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(parallel)
		for _, t := range targets {
			g.Go(func() error {
				c, err := session.Dial(gctx, t.opt)
				if err != nil {
					return err
				}
				defer c.Close()
				got, err := switchcfg.Observe(gctx, c, t.drv, nil)
				if err != nil {
					return fmt.Errorf("%s %s: %w", t.opt.Platform, t.opt.Address, err)
				}
				if d := switchcfg.CompareFor(t.drv, t.intent.in, got); len(d) > 0 {
					drifted.Add(1)
				}
				return nil
			})
		}
		if err := g.Wait(); err != nil {
			b.Fatal(err)
		}
		b.Logf("drift of %d simulated switches (%d per platform) with parallelism %d: %s",
			len(targets), perPlatform, parallel, time.Since(start).Round(time.Millisecond))
	}
	if drifted.Load() > 0 {
		b.Fatalf("%d comparisons found drift on switches that hold the intent", drifted.Load())
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/drift-run")
}

// switchcfgIntent pairs a desired intent with its rendering.
type switchcfgIntent struct {
	in  fabric.SwitchIntent
	cfg switchcfg.Config
}
