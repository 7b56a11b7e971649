package ibcheck

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/agent"
	"github.com/fabricctl/fabricctl/agent/agentclient"
	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/rdma"
)

// TestRunThroughAgent: Run with an AgentRunner reads the same captures
// through an in-process agent's ib-diag op as it does locally, and judges
// them alike.
func TestRunThroughAgent(t *testing.T) {
	fakeTools(t, map[string]string{"sminfo": "healthy-sminfo.txt", "ibnetdiscover": "healthy-ibnetdiscover-p.txt",
		"iblinkinfo": "healthy-iblinkinfo.txt", "ibqueryerrors": "healthy-ibqueryerrors.txt"})
	h := &agent.Handler{}
	(&rdma.Agent{IBDir: t.TempDir()}).Register(h)
	out, err := Run(context.Background(), demo(t), Options{Vantage: "ib-h1", Runner: AgentRunner{Agent: agentclient.Local{Handler: h}, Host: "ib-h1"}})
	if err != nil {
		t.Fatal(err)
	}
	local, err := Run(context.Background(), demo(t), Options{Vantage: "ib-h1", Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Results) != len(local.Results) || len(out.Results) == 0 {
		t.Fatalf("%d results through the agent, %d locally", len(out.Results), len(local.Results))
	}
	for i, r := range out.Results {
		l := local.Results[i]
		if r.ID != l.ID || r.Target != l.Target || r.Status != l.Status {
			t.Errorf("through the agent %s %s %s, locally %s %s %s", r.ID, r.Target, r.Status, l.ID, l.Target, l.Status)
		}
		if r.ID == "ib/cabling" && r.Status != checks.StatusPass {
			t.Errorf("cabling through the agent: %s %s", r.Status, r.Summary)
		}
	}
}

// TestAgentRunnerRefuses: argv the op does not run is refused before
// anything is sent, with a clear error.
func TestAgentRunnerRefuses(t *testing.T) {
	h := &agent.Handler{}
	h.Register(rdma.OpIBDiag, func(context.Context, json.RawMessage) (any, error) {
		t.Error("a refused argv reached the agent")
		return nil, nil
	})
	r := AgentRunner{Agent: agentclient.Local{Handler: h}, Host: "ib-h1"}
	for _, argv := range [][]string{{"ibstat"}, {"smpquery", "nodeinfo", "3"}, {"sh", "-c", "reboot"}} {
		_, err := r.RunDiag(context.Background(), argv)
		if !errors.Is(err, rdma.ErrIBDiagRefused) || !strings.Contains(err.Error(), "on ib-h1 through its agent: ") {
			t.Errorf("%v: %v, want refused", argv, err)
		}
	}
	if _, err := r.RunDiag(context.Background(), nil); err == nil {
		t.Error("empty argv: no error")
	}
}
