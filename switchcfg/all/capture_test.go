package all

import (
	"errors"
	"os"
	"strings"
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

// TestCLIFamiliesRefuseEachOther (issue 26, corpus): EOS, NX-OS, Dell OS9
// and IOS running-configs share hostname, interface and their comment
// style; a reader refuses the others' by the lines only they print instead
// of reading them as a switch without QoS.
func TestCLIFamiliesRefuseEachOther(t *testing.T) {
	nxos := "!Command: show running-config\nversion 9.3(8)\nfeature lldp\nhostname n9k\ninterface Ethernet1/1\n  priority-flow-control mode on\n"
	eos := "! device: leaf1 (DCS-7050CX3-32S, EOS-4.28.3M)\n! Command: show running-config\nhostname leaf1\ninterface Ethernet1\n   qos trust dscp\n"
	os9 := "! Version 9.9(0.0)\nhostname tor\nprotocol lldp\ninterface TenGigabitEthernet 0/1\n no shutdown\n"
	ios := "version 15.2\nhostname sw\ninterface GigabitEthernet0/1\n mls qos trust dscp\n"
	for _, tc := range []struct{ platform, what, text string }{
		{"arista-eos", "NX-OS", nxos}, {"arista-eos", "Dell OS9", os9}, {"arista-eos", "Cisco IOS", ios},
		{"cisco-nxos", "EOS", eos}, {"cisco-nxos", "Dell OS9", os9}, {"cisco-nxos", "Cisco IOS", ios},
	} {
		d, _ := Registry().Driver(tc.platform)
		_, err := switchcfg.ParseCapture(d, []byte(tc.text), fabric.SwitchIntent{})
		if !errors.Is(err, switchcfg.ErrNotThisFormat) || !strings.Contains(err.Error(), tc.what) {
			t.Errorf("%s read a %s config: %v", tc.platform, tc.what, err)
		}
	}
	for platform, text := range map[string]string{"arista-eos": eos, "cisco-nxos": nxos} {
		d, _ := Registry().Driver(platform)
		if _, err := switchcfg.ParseCapture(d, []byte(text), fabric.SwitchIntent{}); err != nil {
			t.Errorf("%s refused its own config: %v", platform, err)
		}
	}
}
