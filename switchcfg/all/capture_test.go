package all

import (
	"errors"
	"os"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"
)

// TestParseCaptureFindsTheCommand: a capture does not say which command
// printed it; ParseCapture tries each one the platform reads and keeps the
// fullest reading (Junos: a class-of-service hierarchy saved alone, read
// for its model; NVUE: the YAML form of nv config show; SONiC: CONFIG_DB).
func TestParseCaptureFindsTheCommand(t *testing.T) {
	for _, tc := range []struct {
		platform, model, file string
		classes               int
	}{
		{"junos", "qfx5240", "../junos/testdata/jvd/rdma-rocev2-lossless.conf", 2},
		{"cumulus-nvue", "", "../cumulus/testdata/config-show.yaml", 4},
		{"sonic", "", "../sonic/testdata/real/vlab-t2-01_config_db.json", 7},
	} {
		t.Run(tc.platform, func(t *testing.T) {
			data, err := os.ReadFile(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			d, err := Registry().Driver(tc.platform)
			if err != nil {
				t.Fatal(err)
			}
			got, err := switchcfg.ParseCapture(d, data, fabric.SwitchIntent{Model: tc.model})
			if err != nil {
				t.Fatal(err)
			}
			// The fullest port group (a line card's QoS ports may be the
			// minority of its ports).
			for _, g := range got.PortGroups {
				if len(g.Classes) > len(got.Classes) {
					got = got.Group(g)
				}
			}
			if got.Platform != tc.platform || len(got.Classes) < tc.classes || got.Trust == "" {
				t.Errorf("%d classes (want at least %d), trust %q", len(got.Classes), tc.classes, got.Trust)
			}
		})
	}
	d, _ := Registry().Driver("arista-eos")
	if _, err := switchcfg.ParseCapture(d, []byte("qos map dscp 99 to traffic-class 3\n"), fabric.SwitchIntent{}); err == nil {
		t.Error("a broken capture parsed")
	}
}

// TestParseCaptureRefusesOtherFormats (issue 26, item 3): a reader takes a
// file only when it recognises the format; text that is no configuration
// of the platform — key = value noise, JSON of another shape, another
// family's syntax — is refused with ErrNotThisFormat, never read as an
// empty, stock switch.
func TestParseCaptureRefusesOtherFormats(t *testing.T) {
	foreign := map[string]string{
		"key = value noise":        "foo = bar\nbaz = 1\n",
		"JSON of another shape":    `{"a": 1, "b": [2]}`,
		"an empty JSON list":       "[]",
		"prose":                    "This switch has PFC on priority 3.\nThat is all.\n",
		"a shell session":          "admin@leaf:~$ uptime\n 10:00:00 up 3 days\n",
		"Junos set commands":       "set class-of-service forwarding-classes class fc3 queue-num 3\n",
		"an EOS config (for JSON)": "hostname leaf-01\ninterface Ethernet1\n   qos trust dscp\n",
	}
	for _, name := range Registry().Names() {
		d, _ := Registry().Driver(name)
		for what, text := range foreign {
			if (name == "junos" && what == "Junos set commands") || ((name == "arista-eos" || name == "cisco-nxos") && what == "an EOS config (for JSON)") {
				continue
			}
			got, err := switchcfg.ParseCapture(d, []byte(text), fabric.SwitchIntent{})
			if err == nil {
				t.Errorf("%s read %s as a switch: %d classes, trust %q", name, what, len(got.Classes), got.Trust)
			} else if !errors.Is(err, switchcfg.ErrNotThisFormat) {
				t.Errorf("%s on %s: %v does not wrap ErrNotThisFormat", name, what, err)
			}
		}
	}
}
