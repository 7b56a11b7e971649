package sonic

import (
	"testing"

	"github.com/fabricctl/fabricctl/switchcfg"
)

// FuzzParse feeds arbitrary running configurations (and watchdog tables) to
// Parse. Nothing may panic; an intent that parses and renders must read back
// equal, and patching its own rendering onto the parsed database must
// converge.
func FuzzParse(f *testing.F) {
	f.Add(readFixture(f, "running-config-default.json"), []byte(nil))
	f.Add(readFixture(f, "render-lab.golden"), readFixture(f, "show-pfcwd.txt"))
	f.Add(readFixture(f, "render-queue-shift.golden"), []byte(nil))
	f.Add([]byte(`{"PORT_QOS_MAP": {"Ethernet0,Ethernet4": {"dot1p_to_tc_map": "M", "pfc_enable": "3"}}, "DOT1P_TO_TC_MAP": {"M": {"3": "3"}}, "QUEUE": {"Ethernet0|0-3": {"scheduler": "S"}}, "SCHEDULER": {"S": {"type": "STRICT"}}}`), []byte(nil))
	d := New()
	f.Fuzz(func(t *testing.T, config, pfcwd []byte) {
		rb := switchcfg.Readback{CmdRunningConfig: config}
		if pfcwd != nil {
			rb[CmdShowPFCWD] = pfcwd
		}
		si, err := d.Parse(rb)
		if err != nil {
			return
		}
		cfg, err := d.Render(si)
		if err != nil {
			return
		}
		back, err := d.Parse(switchcfg.Readback{CmdRunningConfig: []byte(cfg.Text)})
		if err != nil {
			t.Fatalf("rendered config does not parse: %v\n%s", err, cfg.Text)
		}
		if diffs := (switchcfg.CompareOptions{Ports: true}).Compare(si, back); len(diffs) != 0 {
			t.Fatalf("render of a parsed intent reads back differently: %v", diffs)
		}
		observed, err := DecodeConfigDB(config)
		if err != nil {
			t.Fatalf("parsed but does not decode: %v", err)
		}
		desired, _ := DecodeConfigDB([]byte(cfg.Text))
		for _, p := range si.Ports {
			observed.set(tPort, p, "admin_status", "up")
		}
		ops, err := BuildPatch(observed, desired)
		if err != nil {
			return // e.g. a multi-queue QUEUE key
		}
		if err := ApplyPatch(observed, ops); err != nil {
			t.Fatalf("own patch does not apply: %v\n%s", err, PatchJSON(ops))
		}
		if again, err := BuildPatch(observed, desired); err != nil || len(again) != 0 {
			t.Fatalf("patch does not converge: %v\n%s", err, PatchJSON(again))
		}
	})
}
