package all

import (
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
