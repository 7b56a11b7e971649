package ibcheck

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/ibfabric"
	"github.com/fabricctl/fabricctl/fabric"
)

// fakeTools puts stand-ins for the diags on PATH that print the lab's
// healthy captures (ibqueryerrors exits 1 after printing, as it does when
// it finds errors); a tool without a capture is missing.
func fakeTools(t *testing.T, tools map[string]string) {
	t.Helper()
	bin := t.TempDir()
	for name, capture := range tools {
		p, err := filepath.Abs(filepath.Join("..", "..", "checks", "ibdiag", "testdata", "lab", capture))
		if err != nil {
			t.Fatal(err)
		}
		code := 0
		if name == "ibqueryerrors" {
			code = 1
		}
		script := fmt.Sprintf("#!/bin/sh\n/bin/cat %q\necho 'ibwarn: a complaint on stderr' >&2\nexit %d\n", p, code)
		if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)
}

func demo(t *testing.T) *fabric.Fabric {
	t.Helper()
	f, err := fabric.Load("../../checks/ibfabric/testdata/demo.yaml", fabric.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestRunReadsEveryTool(t *testing.T) {
	fakeTools(t, map[string]string{"sminfo": "healthy-sminfo.txt", "ibnetdiscover": "healthy-ibnetdiscover-p.txt",
		"iblinkinfo": "healthy-iblinkinfo.txt", "ibqueryerrors": "healthy-ibqueryerrors.txt"})
	out, err := Run(context.Background(), demo(t), Options{Vantage: "sm-01", Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	status := map[string]checks.Status{}
	for _, r := range out.Results {
		if r.ID != ibfabric.IDLink {
			status[r.ID] = r.Status
		}
		if r.ID == ibfabric.IDLink && r.Status != checks.StatusPass {
			t.Errorf("%s %s: %s %s", r.ID, r.Target, r.Status, r.Summary)
		}
	}
	// saquery and smpquery are missing here: the SA part of the SM check
	// says so, and the P_Keys are an error; the rest read their captures
	// (ibqueryerrors' exit 1 and the stderr lines included: its ibwarn
	// line makes the counters a warning, since a node may be unread).
	want := map[string]checks.Status{ibfabric.IDSubnetManager: checks.StatusPass, ibfabric.IDCabling: checks.StatusPass,
		ibfabric.IDCounters: checks.StatusWarn, ibfabric.IDPKeys: checks.StatusError}
	for id, w := range want {
		if status[id] != w {
			t.Errorf("%s: %s, want %s", id, status[id], w)
		}
	}
	for _, r := range out.Results {
		if r.ID == ibfabric.IDSubnetManager && !strings.Contains(r.Summary, "SMInfoRecords could not be read") {
			t.Errorf("SM summary %q: want the SA's absence said", r.Summary)
		}
	}
}

func TestRunWithoutTools(t *testing.T) {
	fakeTools(t, nil)
	out, err := Run(context.Background(), demo(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range out.Results {
		if r.Status != checks.StatusError && r.Status != checks.StatusSkip {
			t.Errorf("%s %s: %s, want error without the tools", r.ID, r.Target, r.Status)
		}
	}
	f := demo(t)
	f.Spec.InfiniBand = nil
	if _, err := Run(context.Background(), f, Options{}); err == nil || !strings.Contains(err.Error(), "declares no InfiniBand cabling") {
		t.Errorf("a fabric without IB cabling: %v", err)
	}
}
