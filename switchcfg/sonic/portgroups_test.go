package sonic

import (
	"fmt"
	"testing"

	"github.com/fabricctl/fabricctl/switchcfg"
)

// TestPortGroupsKeepEveryPort (issue 26, item 1): a switch with PFC on
// every port but two lossy ones read "no PFC" and lost its lossless class,
// because a reading kept only what every port agreed on. Now the ports the
// most share are the switch's settings and the two lossy ports a group of
// their own; drift compares each declared port with its own group.
func TestPortGroupsKeepEveryPort(t *testing.T) {
	want := labSwitch(t)
	db, err := Desired(want)
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Ports) < 4 {
		t.Fatalf("the lab switch has %d ports, the test needs 4", len(want.Ports))
	}
	lossy := want.Ports[len(want.Ports)-2:]
	for _, p := range lossy {
		db.entry(tPortQoSMap, p)["pfc_enable"] = ""
	}
	got, err := ParseConfigDB(db)
	if err != nil {
		t.Fatal(err)
	}
	// Written before running: PFC 3 switch-wide with class 3 lossless; one
	// group, the two lossy ports, PFC none and class 3 lossy.
	if fmt.Sprint(got.PFC.Priorities) != "[3]" || !byPriority(got.Classes)[3].Lossless {
		t.Errorf("switch-wide PFC %v, classes %+v", got.PFC.Priorities, got.Classes)
	}
	if len(got.PortGroups) != 1 || fmt.Sprint(got.PortGroups[0].Ports) != fmt.Sprint(lossy) ||
		len(got.PortGroups[0].PFC.Priorities) != 0 || byPriority(got.PortGroups[0].Classes)[3].Lossless {
		t.Fatalf("port groups %+v", got.PortGroups)
	}
	changes := switchcfg.Changes(want, got, switchcfg.CompareOptions{})
	comp := fmt.Sprintf("ports[%s,%s]", lossy[0], lossy[1])
	if len(changes) == 0 {
		t.Fatal("no drift on two lossy ports")
	}
	for _, c := range changes {
		if c.Component != comp && c.Component != comp+" classes[roce]" {
			t.Errorf("change %+v outside the lossy ports' group", c)
		}
	}
	// Declared without the lossy ports: no drift.
	only := want
	only.Ports = want.Ports[:len(want.Ports)-2]
	if ch := switchcfg.Changes(only, got, switchcfg.CompareOptions{}); len(ch) != 0 {
		t.Errorf("drift on ports that match: %+v", ch)
	}
	// Only the lossy ports declared: they are compared with their group.
	only.Ports = lossy
	if ch := switchcfg.Changes(only, got, switchcfg.CompareOptions{}); len(ch) != len(changes) {
		t.Errorf("lossy ports alone: %d changes, want %d", len(ch), len(changes))
	}
}
