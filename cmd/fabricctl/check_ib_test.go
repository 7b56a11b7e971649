package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/action/check"
	"github.com/fabricctl/fabricctl/agent"
	"github.com/fabricctl/fabricctl/agent/agentclient"
	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/rdma"
	"github.com/fabricctl/fabricctl/checks/report"
)

// TestCheckIBThroughVantageAgent is the fleet path of `check --suite ib`:
// action/check runs the ib suite through the vantage host's agent (the
// first cabled host, ib-h1), an in-process agent whose ib-diag op runs the
// real infiniband-diags attached at ib-h1's node of the InfiniBand lab
// (umad2sim). The healthy lab passes; a pulled cable (ibsim Unlink) is
// found and named, with exit code 2.
func TestCheckIBThroughVantageAgent(t *testing.T) {
	_, f, l := upIBLab(t)
	vantage := f.IBVantage()
	if vantage != "ib-h1" {
		t.Fatalf("vantage %q, want the first cabled host ib-h1", vantage)
	}
	var hosts []check.Host
	for _, in := range f.Resolve().Hosts {
		h := &agent.Handler{}
		// every host's agent is attached at its own node, as on a fabric
		(&rdma.Agent{IBEnv: l.Env(in.Host), IBDir: l.ClientsDir()}).Register(h)
		hosts = append(hosts, check.Host{Intent: in, Agent: agentclient.Local{Handler: h}})
	}
	run := func() (*report.Report, []string) {
		t.Helper()
		o := check.Options{Suites: []report.Suite{report.SuiteIB}}
		o.IBSuite.Fabric, o.IBSuite.Vantage, o.IBSuite.Options.Timeout = f, vantage, 20*time.Second
		rep, err := check.Run(context.Background(), f.Metadata.Name, hosts, o)
		if err != nil {
			t.Fatal(err)
		}
		var fs []string
		for _, r := range rep.Results {
			if r.Status != checks.StatusPass && r.Status != checks.StatusSkip {
				fs = append(fs, r.ID+" "+r.Target+": "+r.Summary)
			}
		}
		return rep, fs
	}
	rep, fs := run()
	if len(fs) != 0 || len(rep.Results) != 11 || rep.Topology == nil || checkExit(rep) != nil {
		t.Fatalf("healthy lab through %s's agent: %d results, findings:\n%s", vantage, len(rep.Results), strings.Join(fs, "\n"))
	}
	from := l.LogSize()
	if reply, err := l.Sim(context.Background(), `Unlink "ib-h3"[1]`); err != nil || strings.HasPrefix(reply, "#") {
		t.Fatalf("Unlink: %q %v", reply, err)
	}
	if err := l.WaitSweep(context.Background(), from, 20*time.Second); err != nil {
		t.Fatal(err)
	}
	rep, fs = run()
	var ec exitCodeError
	if len(fs) == 0 || !strings.Contains(fs[0], "ib/link ib-h3:1 <-> leaf-02:1: link down") || !asExit(checkExit(rep), &ec) || ec.code != exitChanges {
		t.Errorf("pulled cable: exit %v, findings:\n%s", checkExit(rep), strings.Join(fs, "\n"))
	}
}

func asExit(err error, ec *exitCodeError) bool {
	e, ok := err.(exitCodeError)
	*ec = e
	return ok
}

// TestCheckIBFlagErrors: the ib suite is a suite of the fleet check, and
// a vantage that is not a host of the fabric is refused.
func TestCheckIBFlagErrors(t *testing.T) {
	code, out, errs := runCLI(t, "check", "-f", ibLabFabric, "--suite", "ib", "--vantage", "sm-01")
	if code != exitError || out != "" || !strings.Contains(errs, "--vantage sm-01: no such host in") {
		t.Errorf("--vantage sm-01: exit %d stdout %q stderr %q", code, out, errs)
	}
}
