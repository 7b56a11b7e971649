package cumulus

import (
	"testing"

	"github.com/fabricctl/fabricctl/switchcfg"
)

var fuzzCommands = []string{CmdConfigShow, CmdConfigShowYAML, CmdShowRoCE, CmdQoSFeatures}

// FuzzParse feeds arbitrary read-backs to Parse under each command. Nothing
// may panic, and an intent that parses and renders must read back equal.
func FuzzParse(f *testing.F) {
	f.Add(readFixture(f, "config-show.json"), uint8(0))
	f.Add(readFixture(f, "config-show.yaml"), uint8(1))
	f.Add(readFixture(f, "show-qos-roce.txt"), uint8(2))
	f.Add(readFixture(f, "qos_features.conf"), uint8(3))
	f.Add([]byte(`{"qos":{"roce":{"mode":"lossy"}},"interface":{"swp1":{"qos":{"pfc-watchdog":{}}}}}`), uint8(0))
	d := New()
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		cmd := fuzzCommands[int(which)%len(fuzzCommands)]
		si, err := d.Parse(switchcfg.Readback{cmd: data})
		if err != nil {
			return
		}
		cfg, err := d.Render(si)
		if err != nil {
			return
		}
		tree, err := ParseCommands(cfg.Text)
		if err != nil {
			t.Fatalf("rendered text does not parse: %v\n%s", err, cfg.Text)
		}
		back, err := ParseTree(tree)
		if err != nil {
			t.Fatalf("rendered tree does not parse: %v", err)
		}
		if diffs := (switchcfg.CompareOptions{Ports: true}).Compare(si, back); len(diffs) != 0 {
			t.Fatalf("render of a parsed intent reads back differently: %v\n%s", diffs, cfg.Text)
		}
	})
}

// FuzzParseCommands feeds arbitrary text to the nv set/unset reader.
func FuzzParseCommands(f *testing.F) {
	f.Add(string(readFixture(f, "render-lab.golden")))
	f.Add(string(readFixture(f, "render-pcp.golden")))
	f.Add("nv set interface swp1-4,swp9s0-1 qos pfc-watchdog state disable\nnv unset qos roce mode lossy\n")
	f.Fuzz(func(t *testing.T, text string) {
		tree, err := ParseCommands(text)
		if err != nil {
			return
		}
		if _, err := ParseTree(tree); err != nil {
			return
		}
		if _, err := tree.ShowJSON(); err != nil {
			t.Fatalf("a parsed tree must print: %v", err)
		}
	})
}
