package checklocal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/collective"
	"github.com/fabricctl/fabricctl/checks/preflight"
	"github.com/fabricctl/fabricctl/checks/report"
	"github.com/fabricctl/fabricctl/hostcfg"
	"github.com/fabricctl/fabricctl/hostcfg/sysfs"
	"github.com/google/go-cmp/cmp"
)

// bareHost is a Gatherer over a machine like the H200 test host: a netdev,
// no RDMA device, no netlink DCB backend, no tools.
func bareHost(t *testing.T) *preflight.Gatherer {
	t.Helper()
	sys := t.TempDir()
	if err := os.MkdirAll(filepath.Join(sys, "class", "net", "eth0"), 0o755); err != nil {
		t.Fatal(err)
	}
	return &preflight.Gatherer{
		Open: func(context.Context) (*hostcfg.Host, error) {
			return nil, errors.New("opening netlink: protocol not supported")
		},
		Sys:      sysfs.NewFS(sys),
		ProcRoot: t.TempDir(),
		FileRoot: t.TempDir(),
		LookPath: func(string) (string, error) {
			return "", errors.New(`exec: "ib_write_bw": executable file not found in $PATH`)
		},
		Run: func(_ context.Context, name string, _ ...string) ([]byte, error) {
			return nil, fmt.Errorf("running %s: executable file not found", name)
		},
		Resolve: func(context.Context, string) ([]string, error) { return nil, errors.New("no such host") },
	}
}

// TestNoRDMADeviceIsAClearFailure: a host without any RDMA device gets one
// located no-device failure, not an error and not a crash; without a fabric
// the lossless settings are not judged.
func TestNoRDMADeviceIsAClearFailure(t *testing.T) {
	rep, err := Run(t.Context(), Options{Gatherer: bareHost(t)})
	if err != nil {
		t.Fatal(err)
	}
	var dev, lossless *checks.Result
	for i, r := range rep.Results {
		switch r.ID {
		case preflight.IDRDMADevice:
			dev = &rep.Results[i]
		case preflight.IDLossless:
			lossless = &rep.Results[i]
		}
	}
	if dev == nil || dev.Status != checks.StatusFail || dev.Class != checks.NoDevice || !strings.Contains(dev.Summary, "no RDMA device on this host") {
		t.Errorf("rdma-device: %+v", dev)
	}
	if lossless == nil || lossless.Status != checks.StatusSkip {
		t.Errorf("lossless: %+v", lossless)
	}
	if len(rep.Suites) != 1 || rep.Suites[0] != report.SuitePreflight {
		t.Errorf("suites %v", rep.Suites)
	}
}

func TestUnknownSuite(t *testing.T) {
	if _, err := Run(t.Context(), Options{Gatherer: bareHost(t), Suites: []report.Suite{report.SuitePairwise}}); !errors.Is(err, ErrSuite) || !strings.Contains(err.Error(), "available: preflight, loopback, nccl") {
		t.Errorf("got %v", err)
	}
}

// TestNCCLSuiteWithoutGPU: `check --local --suite nccl` on a host without
// the NVIDIA driver is a clear skip, and the preflight is not reported.
func TestNCCLSuiteWithoutGPU(t *testing.T) {
	node := &collective.Node{LookPath: func(name string) (string, error) { return "", errors.New(name + " not found") }}
	rep, err := Run(t.Context(), Options{Gatherer: bareHost(t), Suites: []report.Suite{report.SuiteNCCL}, NCCLNode: node})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]checks.Status{}
	for _, r := range rep.Results {
		ids[r.ID] = r.Status
		if r.ID == collective.IDRun && r.Summary != "no NVIDIA GPU: nvidia-smi not found (no NVIDIA driver installed)" {
			t.Errorf("%+v", r)
		}
	}
	want := map[string]checks.Status{collective.IDRun: checks.StatusSkip, collective.IDCorrectness: checks.StatusSkip, collective.IDBusBW: checks.StatusSkip}
	if d := cmp.Diff(want, ids); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
