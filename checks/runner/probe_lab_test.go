//go:build lab && probe

package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/checks/agentcall"
	"github.com/fabricctl/fabricctl/checks/perftest"
	"github.com/fabricctl/fabricctl/checks/rdma"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/hostcfg/agent"
)

type probeSide struct {
	Name   string
	Deltas map[string]uint64
}
type probeRun struct {
	Target   string
	Value    float64
	OK       bool
	Class    string
	Attempts int
	Wall     float64
	Sides    []probeSide
	Err      string
	Tail     string
}

func TestProbe(t *testing.T) {
	needLab(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Minute)
	defer cancel()
	s := labState(ctx, t)
	bin := buildAgent(t)
	hosts := labHosts(t, s, bin)
	lossy := hosts[0].Intent.Host
	clear := func() { _, _ = s.Output(context.WithoutCancel(ctx), lossy, "lab-netem clear eth0") }
	clear()
	t.Cleanup(clear)
	for _, h := range hosts {
		intent := h.Intent
		sess := agentcall.Open(ctx, h.Agent)
		err := sess.Send(agent.Request{APIVersion: fabric.APIVersion, Protocol: agent.Protocol, Op: agent.OpApply, Desired: &intent})
		if err == nil {
			err = sess.Recv(ctx, nil)
		}
		sess.Close(context.WithoutCancel(ctx))
		if err != nil {
			t.Fatalf("applying: %v", err)
		}
	}
	eps := endpoints(ctx, t, hosts)
	dur := 5 * time.Second
	bidir := os.Getenv("PROBE_UNI") == ""
	for i, cond := range strings.Split(os.Getenv("PROBE_PLAN"), ",") {
		clear()
		if cond != "healthy" {
			if _, err := s.Output(ctx, lossy, "lab-netem set eth0 loss "+strings.TrimPrefix(cond, "loss")+"%"); err != nil {
				t.Fatal(err)
			}
		}
		var load [3]float64
		if b, err := os.ReadFile("/proc/loadavg"); err == nil {
			fmt.Sscan(string(b), &load[0], &load[1], &load[2])
		}
		t0 := time.Now()
		sw := rdma.Sweep{Test: rdma.Test{Test: perftest.WriteBW, Duration: dur, Size: 65536, Bidirectional: bidir}}
		lres := rdma.Sweep{Test: rdma.Test{Test: perftest.WriteBW, Duration: dur, Size: 65536}}.Loopback(ctx, eps)
		res, err := sw.Pairwise(ctx, eps)
		if err != nil {
			t.Fatal(err)
		}
		var out []probeRun
		for _, r := range append(lres.Runs, res.Runs...) {
			pr := probeRun{Target: r.Target(), Attempts: r.Attempts, Wall: r.Wall.Seconds()}
			pr.Value, pr.OK = r.Value()
			if f, failed := r.Failure(); failed {
				pr.Class = string(f.Class) + ": " + f.Text
			}
			if r.Err != nil {
				pr.Err = r.Err.Error()
			}
			if r.ClientOut != nil && !pr.OK {
				pr.Tail = r.ClientOut.Stderr + r.ClientOut.Stdout
				if len(pr.Tail) > 1500 {
					pr.Tail = pr.Tail[len(pr.Tail)-1500:]
				}
			}
			for _, o := range []*rdma.Outcome{r.ServerOut, r.ClientOut} {
				if o == nil {
					continue
				}
				m := map[string]uint64{}
				for _, d := range o.Deltas() {
					if d.Delta != 0 {
						m[d.Name] = d.Delta
					}
				}
				pr.Sides = append(pr.Sides, probeSide{string(o.Role), m})
			}
			out = append(out, pr)
			fmt.Fprintf(os.Stderr, "PROBE %d %s load %.1f %s %.4f ok=%v att=%d class=%q %v\n", i, cond, load[0], pr.Target, pr.Value, pr.OK, pr.Attempts, pr.Class, pr.Sides)
		}
		b, _ := json.MarshalIndent(map[string]any{"cond": cond, "load": load, "secs": time.Since(t0).Seconds(), "runs": out}, "", " ")
		os.WriteFile(fmt.Sprintf("/tmp/probe11/%02d-%s.json", i, cond), b, 0o644)
	}
}
