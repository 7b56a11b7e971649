package validate

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/testutil"
	"github.com/fabricctl/fabricctl/switchcfg"
	"github.com/fabricctl/fabricctl/switchcfg/all"
)

func TestRunValid(t *testing.T) {
	file := filepath.Join(testutil.RepoRoot(t), "profiles", "lab", "fabric.yaml")
	res := Run(file, Options{Registry: all.Registry()})
	if !res.Valid || res.Kind != Kind || res.Fabric != "lab" || res.Hosts != 4 || res.Switches != 2 || res.SubnetManagers != 1 ||
		res.ErrorCount != 0 || res.WarningCount != 0 || len(res.Diagnostics) != 0 || strings.Join(res.Profiles, ",") != "ib-tenants,roce-lossless" {
		t.Errorf("%+v", res)
	}
	if got := res.Summary(); got != file+": valid" {
		t.Errorf("summary %q", got)
	}
}

// Errors and warnings come together, counted apart; the file that cannot
// be read is one error without a line.
func TestRunInvalid(t *testing.T) {
	files := map[string]string{"f.yaml": `apiVersion: fabricctl.io/v1alpha1
kind: Fabric
metadata: {name: f}
spec:
  hosts:
    - {name: h1, address: 10.0.0.1, profile: p, interfaces: [mlx5_0]}
    - {name: h2, address: 10.0.0.300, profile: p}
  profiles:
    - apiVersion: fabricctl.io/v1alpha1
      kind: Profile
      metadata: {name: p}
      spec: {infiniband: {partitions: [{name: a, pkey: 0x0002, members: [{guid: "0x0002c903000e0b72"}]}]}}
`}
	res := Run("f.yaml", Options{ReadFile: fabric.FilesIn(files)})
	if res.Valid || res.ErrorCount != 2 || res.WarningCount != 1 || len(res.Diagnostics) != 3 {
		t.Fatalf("%+v", res)
	}
	d := res.Diagnostics[1]
	if d.Severity != fabric.SeverityWarning || d.Code != fabric.WarnRDMADeviceInterface || d.Line != 6 || d.Path != "spec.hosts[0].interfaces[0]" {
		t.Errorf("warning %+v", d)
	}
	if got := res.Summary(); got != "f.yaml: 2 error(s), 1 warning(s)" {
		t.Errorf("summary %q", got)
	}
	res = Run("missing.yaml", Options{ReadFile: fabric.FilesIn(nil)})
	if res.Valid || res.ErrorCount != 1 || res.Diagnostics[0].Message != "file does not exist" || res.Diagnostics[0].Line != 0 {
		t.Errorf("missing file: %+v", res)
	}
}

type refusingSM struct{ switchcfg.SubnetManager }

func (refusingSM) Render(fabric.SubnetManagerIntent, map[string][]string) (string, error) {
	return "", errors.New("OpenSM would read the file differently from the intent: 3:1: test")
}

// A subnet manager whose partitions do not render makes the file invalid,
// as an error of the file.
func TestRunSubnetManagerRefused(t *testing.T) {
	file := filepath.Join(testutil.RepoRoot(t), "profiles", "lab", "ib.yaml")
	reg := switchcfg.NewRegistry()
	m, _ := all.Registry().SubnetManager("opensm")
	reg.AddSubnetManager(refusingSM{m})
	res := Run(file, Options{Registry: reg})
	if res.Valid || res.ErrorCount != 1 || !strings.Contains(res.Diagnostics[0].Message, "subnet manager sm-01: OpenSM would read") ||
		res.Diagnostics[0].File != file {
		t.Errorf("%+v", res)
	}
}
