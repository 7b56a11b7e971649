package view

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/output"
	"github.com/fabricctl/fabricctl/internal/testutil"
)

const (
	noDCB   = "unsupported: eth0 (driver virtio_net) has no DCB netlink ops (IEEE_GET answered EOPNOTSUPP)"
	noECN   = "unsupported: no /sys/class/net/eth0/ecn and no /sys/kernel/debug/mlx5/0000:00:02.0/cc_params"
	noPause = "unsupported: eth0 (driver virtio_net) has no pause parameters (ETHTOOL_GPAUSEPARAM answered EOPNOTSUPP)"
	noTrust = "unsupported: eth0 (driver virtio_net) has no DCB netlink ops (IEEE_GET answered EOPNOTSUPP); no /sys/class/net/eth0/qos/trust; not an mlx5 netdev (driver virtio_net)"
	mtuNote = "changing the MTU resets the queues (the link may flap) and drops packets larger than the new MTU"
	pfcNote = "PFC reprograms port buffers"
)

// unsupported is what the lab's virtio hosts cannot do: 11 settings, 4 reasons.
func unsupported() []fabric.Change {
	var cs []fabric.Change
	for _, s := range []struct{ setting, new, note string }{
		{"cnp.dscp", "48", noECN}, {"cnp.priority", "6", noECN}, {"dcbx", "host,ieee", noDCB},
		{"dscp-map", "0-25:0 26:3 27-47:0 48:6 49-63:0", noDCB}, {"ecn.np", "3", noECN}, {"ecn.rp", "3", noECN},
		{"ets", "prio-tc=0,0,0,3,0,0,6,0 tsa=ets,ets,ets,ets,ets,ets,strict,ets bw=50,0,0,50,0,0,0,0", noDCB},
		{"global-pause", "off", noPause}, {"pfc.delay", "5", noDCB}, {"pfc.enable", "3", noDCB}, {"trust", "dscp", noTrust},
	} {
		cs = append(cs, fabric.Change{Component: "eth0", Setting: s.setting, New: s.new, Unsupported: true, Note: s.note})
	}
	return cs
}

// labPlan is the lab's first plan: two switches with changes (disruptive ones among them),
// four virtio hosts with an MTU and a ToS change and 11 unsupported settings each, and a
// target that could not be observed. inSync leaves only the unsupported settings.
func labPlan(inSync bool) *fabric.Plan {
	p := &fabric.Plan{}
	if !inSync {
		p.Targets = append(p.Targets,
			fabric.TargetPlan{Target: "leaf-01", Tier: fabric.TierSwitch, Changes: []fabric.Change{
				{Setting: "classes[sp1]", Old: "priority 1, trafficClass 1, bandwidth 13%", New: "(absent)"},
				{Setting: "pfc.priorities", Old: "(missing)", New: "3", Disruptive: true, Note: pfcNote},
				{Setting: "pfc.watchdog.restorationTimeMs", Old: "(missing)", New: "400"},
				{Component: "classes[default]", Setting: "dscp", Old: "none", New: "0-25,27-47,49-63"},
				{Component: "classes[roce]", Setting: "lossless", Old: "false", New: "true", Disruptive: true, Note: pfcNote},
			}})
	} else {
		p.Targets = append(p.Targets, fabric.TargetPlan{Target: "leaf-01", Tier: fabric.TierSwitch})
	}
	p.Targets = append(p.Targets, fabric.TargetPlan{Target: "leaf-02", Tier: fabric.TierSwitch})
	for i := 1; i <= 4; i++ {
		tp := fabric.TargetPlan{Target: fmt.Sprintf("lab-h%d", i), Tier: fabric.TierHost}
		if !inSync {
			tp.Changes = append(tp.Changes,
				fabric.Change{Component: "eth0", Setting: "mtu", Old: "1500", New: "9000", Disruptive: true, Note: mtuNote},
				fabric.Change{Component: "eth0", Setting: "roce.tos", Old: "0", New: "106"})
		}
		tp.Changes = append(tp.Changes, unsupported()...)
		fabric.SortChanges(tp.Changes)
		p.Targets = append(p.Targets, tp)
	}
	if !inSync {
		p.Targets = append(p.Targets, fabric.TargetPlan{Target: "gpu-09", Tier: fabric.TierHost,
			Error: "observing gpu-09: dialing 10.0.0.9:22: connect: no route to host (after 3 attempts over 30s; check the address, the routes and the firewall)"})
	}
	return p
}

func render(term output.Term, p *fabric.Plan, table func(*output.TableWriter, io.Writer, *fabric.Plan)) string {
	var b bytes.Buffer
	t := output.NewTableFor(&b, term)
	table(t, &b, p)
	t.Flush()
	return b.String()
}

// TestPlanTableGolden: at 120 columns the plan fits, the unsupported settings are one row per
// host with one footnote per reason, notes are footnotes; -o wide has one row per setting.
func TestPlanTableGolden(t *testing.T) {
	for _, c := range []struct {
		golden string
		term   output.Term
		table  func(*output.TableWriter, io.Writer, *fabric.Plan)
		inSync bool
	}{
		{"plan-120.golden", output.Term{Width: 120}, PlanTable, false},
		{"plan-wide.golden", output.Term{Width: 120, Wide: true}, PlanTable, false},
		{"drift-120.golden", output.Term{Width: 120}, DriftTable, false},
		{"drift-none-120.golden", output.Term{Width: 120}, DriftTable, true},
	} {
		got := render(c.term, labPlan(c.inSync), c.table)
		testutil.Golden(t, c.golden, []byte(got))
		for i, l := range strings.Split(got, "\n") {
			if strings.HasSuffix(l, " ") {
				t.Errorf("%s: line %d ends in a space: %q", c.golden, i+1, l)
			}
			if !c.term.Wide && output.Width(l) > c.term.Width {
				t.Errorf("%s: line %d is %d columns wide: %q", c.golden, i+1, output.Width(l), l)
			}
		}
	}
}

// TestPlanTableGroupsUnsupported: the default view has one UNSUPPORTED row per host and each
// reason once; the wide view one row per setting with its reason (the lab's e2e test reads it).
func TestPlanTableGroupsUnsupported(t *testing.T) {
	def := render(output.Term{Width: 120}, labPlan(false), PlanTable)
	if n := strings.Count(def, "UNSUPPORTED"); n != 4 {
		t.Errorf("default view: %d UNSUPPORTED, want one per host (4):\n%s", n, def)
	}
	if n := strings.Count(def, "has no DCB netlink ops (IEEE_GET answered EOPNOTSUPP):"); n != 1 {
		t.Errorf("default view: the DCB reason %d times, want once:\n%s", n, def)
	}
	if !strings.Contains(def, "lab-h1   11 settings on eth0") || !strings.Contains(def, "\n7 target(s): 5 to change") {
		t.Errorf("default view lacks the count row or the summary:\n%s", def)
	}
	wide := render(output.Term{Wide: true}, labPlan(false), PlanTable)
	for _, host := range []string{"lab-h1", "lab-h4"} {
		var lines []string
		for _, l := range strings.Split(wide, "\n") {
			if strings.Contains(l, host) && strings.Contains(l, "pfc.enable") {
				lines = append(lines, l)
			}
		}
		if len(lines) != 1 || !strings.Contains(lines[0], "UNSUPPORTED") || !strings.Contains(lines[0], "virtio_net") {
			t.Errorf("wide view, %s pfc.enable: %q", host, lines)
		}
	}
	if strings.Contains(wide, "unsupported:") {
		t.Errorf("wide view repeats \"unsupported:\" after UNSUPPORTED:\n%s", wide)
	}
}

func TestDriftWording(t *testing.T) {
	none := render(output.Term{}, labPlan(true), DriftTable)
	if !strings.HasSuffix(none, "\nno drift on 6 target(s)\n") || strings.Contains(none, "to change") {
		t.Errorf("drift without drift:\n%s", none)
	}
	some := render(output.Term{}, labPlan(false), DriftTable)
	if !strings.HasSuffix(some, "\n5 target(s) drifted: leaf-01, lab-h1, lab-h2, lab-h3, lab-h4; 1 without drift; 1 could not be observed: gpu-09\n") {
		t.Errorf("drift with drift:\n%s", some)
	}
}

func TestResultTable(t *testing.T) {
	var b bytes.Buffer
	r := &fabric.Result{Targets: []fabric.TargetResult{
		{Target: "leaf-01", Tier: fabric.TierSwitch, Outcome: fabric.OutcomeChanged, Applied: []fabric.Change{{Setting: "pfc"}}},
		{Target: "gpu-02", Tier: fabric.TierHost, Outcome: fabric.OutcomeSkipped, Error: "leaf-01 failed"},
	}}
	tw := output.NewTable(&b)
	ResultTable(tw, &b, r)
	want := "\nTARGET   TIER    OUTCOME  APPLIED  REMAINING  ERROR\n" +
		"leaf-01  switch  changed  1        0          -\n" +
		"gpu-02   host    skipped  0        0          leaf-01 failed\n" +
		"\n2 target(s): 1 changed, 1 skipped\n"
	if b.String() != want {
		t.Errorf("result table:\n%q\nwant:\n%q", b.String(), want)
	}
}
