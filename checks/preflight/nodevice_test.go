package preflight

import (
	"testing"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/hostcfg"
)

// TestRoCESettingsOfAMissingDevice: when a netdev's RDMA device is gone (rdma link delete rxe0,
// a dead HCA), its RoCE settings cannot be read; the host fails preflight/rdma-device, and the
// lossless check is not also undecided (seen in the Slurm lab test: the health check answered
// "could not decide" on a node whose device was gone, and check exited 1 instead of 2).
func TestRoCESettingsOfAMissingDevice(t *testing.T) {
	f := Facts{Host: "lab-h3",
		Observed: &hostcfg.Observed{Interfaces: []hostcfg.InterfaceState{{Name: "eth0"}}},
		Plan: &hostcfg.Plan{Issues: []hostcfg.Issue{
			{Interface: "eth0", Setting: hostcfg.SettingRoCEMode, Kind: hostcfg.IssueError, Reason: "mkdir rdma_cm/rxe0: no such device"},
			{Interface: "eth0", Setting: hostcfg.SettingRoCEToS, Kind: hostcfg.IssueError, Reason: "mkdir rdma_cm/rxe0: no such device"},
		}},
		Perftest: "4.5",
	}
	var dev, lossless checks.Result
	for _, r := range Evaluate(f, Options{}) {
		switch r.ID {
		case IDRDMADevice:
			dev = r
		case IDLossless:
			lossless = r
		}
	}
	if dev.Status != checks.StatusFail {
		t.Errorf("rdma-device: %+v", dev)
	}
	if lossless.Status == checks.StatusError || lossless.Status == checks.StatusFail {
		t.Errorf("lossless: %s %q %q, want neither error nor failure (the missing device is the failure)", lossless.Status, lossless.Summary, lossless.Evidence)
	}
	// a read error of a netdev that has its device is still undecided
	f.Observed.Interfaces[0].RDMA = &hostcfg.RDMAState{}
	for _, r := range Evaluate(f, Options{}) {
		if r.ID == IDLossless && r.Status != checks.StatusError {
			t.Errorf("lossless with the device present: %s, want error", r.Status)
		}
	}
}

// TestPortOfAVanishingDevice: while an RDMA device is being removed its port directory is gone
// before the device is: the port is down (a failure), not an undecided read (the Slurm lab test
// saw three health checks answer "could not decide" in that window).
func TestPortOfAVanishingDevice(t *testing.T) {
	gone := "reading /sys/class/infiniband/rxe0/ports/1/state: open /sys/class/infiniband/rxe0/ports/1/state: no such file or directory"
	f := Facts{Host: "lab-h3", Perftest: "4.5", Plan: &hostcfg.Plan{},
		Observed: &hostcfg.Observed{Interfaces: []hostcfg.InterfaceState{{Name: "eth0",
			RDMA: &hostcfg.RDMAState{Error: gone}}}}}
	for _, r := range Evaluate(f, Options{}) {
		if r.ID == IDPort && (r.Status != checks.StatusFail || r.Class != checks.PortDown) {
			t.Errorf("port of a vanishing device: %s %s %q, want a port-down failure", r.Status, r.Class, r.Summary)
		}
	}
	f.Observed.Interfaces[0].RDMA.Error = "reading /sys/class/infiniband/rxe0/ports/1/state: read: input/output error"
	for _, r := range Evaluate(f, Options{}) {
		if r.ID == IDPort && r.Status != checks.StatusError {
			t.Errorf("an I/O error reading the port: %s, want error (undecided)", r.Status)
		}
	}
}
