package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/lab/iblab"
	"github.com/fabricctl/fabricctl/switchcfg/opensm"
)

func TestCheckLocalIBFlagErrors(t *testing.T) {
	for name, c := range map[string]struct {
		args []string
		want string
	}{
		"ib without a fabric": {[]string{"check", "--local", "--suite", "ib"}, "running the ib suite: suite not available for --local: it judges the fabric against a fabric file (-f FABRIC)"},
		"ib and a bad suite":  {[]string{"check", "--local", "--suite", "ib,bogus"}, `unknown suite "bogus"`},
		"fabric without IB cabling": {[]string{"check", "--local", "--suite", "ib", "-f", "../../profiles/lab/fabric.yaml"},
			"the fabric declares no InfiniBand cabling (spec.infiniband)"},
	} {
		code, out, errs := runCLI(t, c.args...)
		if code != 1 || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("%s: exit %d stdout %q stderr %q, want %q", name, code, out, errs, c.want)
		}
	}
}

// TestCheckLocalIB is the issue's contract: `fabricctl check --local --suite
// ib -f FABRIC` under umad2sim (LD_PRELOAD and IBSIM_SOCKNAME in the
// environment, which the diagnostics inherit) reaches the ibsim fabric of
// the InfiniBand lab built from the fabric's declared cabling, and the
// healthy lab passes, in the table and in JSON with its topology.
func TestCheckLocalIB(t *testing.T) {
	path, _, l := upIBLab(t)
	for _, kv := range l.Env("") {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	t.Chdir(l.ClientsDir()) // umad2sim writes its fake sysfs into the working directory
	code, out, errs := runCLI(t, "check", "--local", "--suite", "ib", "-f", path)
	if code != 0 || !strings.Contains(out, "ib/subnet-manager") || !strings.Contains(out, "INFINIBAND TOPOLOGY (as declared: 3 switches, 7 cables; 0 with a finding)") {
		t.Errorf("check --local --suite ib: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = runCLI(t, "check", "--local", "--suite", "ib", "-f", path, "-o", "json")
	var rep struct {
		Suites   []string `json:"suites"`
		Results  []struct{ ID, Status string }
		Topology struct{ Links []any }
	}
	if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil || len(rep.Topology.Links) != 7 || len(rep.Results) != 11 || rep.Suites[0] != "ib" {
		t.Errorf("-o json: exit %d %v %+v\n%s", code, err, rep, errs)
	}
}

// upIBLab starts the InfiniBand lab of the IB lab fabric (its declared
// cabling, its partitions rendered by OpenSM's renderer) for t, and stops
// it when t ends; without ibsim it skips, except in CI.
func upIBLab(t *testing.T) (path string, f *fabric.Fabric, l *iblab.Lab) {
	t.Helper()
	if err := iblab.Available(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	path, err := filepath.Abs(ibLabFabric)
	if err != nil {
		t.Fatal(err)
	}
	if f, err = fabric.Load(path, fabric.Options{}); err != nil {
		t.Fatal(err)
	}
	topo, guids, err := iblab.FromFabric(f)
	if err != nil {
		t.Fatal(err)
	}
	conf, err := opensm.Render(f.Resolve().SubnetManagers[0], guids)
	if err != nil {
		t.Fatal(err)
	}
	if l, err = iblab.Up(context.Background(), iblab.Options{Dir: t.TempDir(), Topology: topo, Partitions: []byte(conf)}, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := l.Down(context.Background()); err != nil {
			t.Error(err)
		}
	})
	return path, f, l
}
