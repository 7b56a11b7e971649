package view

import (
	"bytes"
	"github.com/fabricctl/fabricctl/internal/output"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
)

func TestPlanAndResultTables(t *testing.T) {
	p := &fabric.Plan{Targets: []fabric.TargetPlan{
		{Target: "leaf-01", Tier: fabric.TierSwitch, Changes: []fabric.Change{{Component: "classes[roce]", Setting: "pfc", Old: "", New: "3", Disruptive: true, Note: "flaps"}}},
		{Target: "gpu-01", Tier: fabric.TierHost},
		{Target: "gpu-02", Tier: fabric.TierHost, Error: "ssh: no route"},
	}}
	var b bytes.Buffer
	tw := output.NewTable(&b)
	PlanTable(tw, &b, p)
	want := "TARGET   TIER    COMPONENT      SETTING  CHANGE      NOTE\n" +
		"leaf-01  switch  classes[roce]  pfc      - → 3       DISRUPTIVE flaps\n" +
		"gpu-01   host    -              -        no changes  \n" +
		"gpu-02   host    -              -        ERROR       ssh: no route\n" +
		"\n3 target(s): 1 to change, 1 unchanged, 1 could not be observed\n"
	if b.String() != want {
		t.Errorf("plan table:\n%s\nwant:\n%s", b.String(), want)
	}

	b.Reset()
	r := &fabric.Result{Targets: []fabric.TargetResult{
		{Target: "leaf-01", Tier: fabric.TierSwitch, Outcome: fabric.OutcomeChanged, Applied: []fabric.Change{{Setting: "pfc"}}},
		{Target: "gpu-02", Tier: fabric.TierHost, Outcome: fabric.OutcomeSkipped, Error: "leaf-01 failed"},
	}}
	tw = output.NewTable(&b)
	ResultTable(tw, &b, r)
	want = "\nTARGET   TIER    OUTCOME  APPLIED  REMAINING  ERROR\n" +
		"leaf-01  switch  changed  1        0          -\n" +
		"gpu-02   host    skipped  0        0          leaf-01 failed\n" +
		"\n2 target(s): 1 changed, 1 skipped\n"
	if b.String() != want {
		t.Errorf("result table:\n%q\nwant:\n%q", b.String(), want)
	}
}
