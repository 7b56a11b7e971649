package lldpagent

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/agent"
	"github.com/fabricctl/fabricctl/agent/agentclient"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/fabric/lldp"
)

// serve returns an agent whose lldp op runs run instead of lldpcli.
func serve(run func(context.Context, []string) ([]byte, error)) agentclient.Agent {
	h := &agent.Handler{}
	(&Agent{Run: run}).Register(h)
	return agentclient.Local{Handler: h}
}

// TestObserve: the op runs lldpcli -f json show neighbors details on the
// host and the controller gets the parsed neighbours (lldpd's own JSON
// sample: ns-2.example.com on eth0, port described eth1) as an
// observation of that host.
func TestObserve(t *testing.T) {
	sample, err := os.ReadFile("../../fabric/lldp/testdata/lldpd-test-json.json")
	if err != nil {
		t.Fatal(err)
	}
	var ran []string
	ag := serve(func(_ context.Context, argv []string) ([]byte, error) { ran = argv; return sample, nil })
	obs, err := Observe(t.Context(), "gpu-01", ag)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ran, lldp.Command) {
		t.Errorf("ran %q, want %q", ran, lldp.Command)
	}
	if obs.Device != "gpu-01" || len(obs.Neighbors) != 1 {
		t.Fatalf("observation %+v", obs)
	}
	n := obs.Neighbors[0]
	if n.LocalPort != "eth0" || n.SystemName != "ns-2.example.com" || n.PortDescription != "eth1" {
		t.Errorf("neighbour %+v", n)
	}
}

// TestObserveErrors: a host without lldpd, and output that is not
// lldpcli's, are errors naming the host and the command, never "no
// neighbours" (which checks/topology would read as missing cables).
func TestObserveErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func(context.Context, []string) ([]byte, error)
		want string
	}{
		{"no lldpd", func(context.Context, []string) ([]byte, error) { return nil, ErrNoLLDPD }, "install lldpd"},
		{"not lldpcli", func(context.Context, []string) ([]byte, error) { return []byte("{\"lldp\": [1,"), nil }, "parsing the output of lldpcli"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Observe(t.Context(), "gpu-01", serve(tc.run))
			if err == nil || !strings.Contains(err.Error(), "gpu-01") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one naming gpu-01 and %q", err, tc.want)
			}
		})
	}
	// the real program, absent from PATH
	t.Setenv("PATH", t.TempDir())
	if _, err := (&Agent{}).Read(t.Context()); !errors.Is(err, ErrNoLLDPD) {
		t.Errorf("without lldpcli on PATH: %v, want ErrNoLLDPD", err)
	}
}

// TestArgsRefused: the op takes no args; any field is a bad request, and
// lldpcli does not run.
func TestArgsRefused(t *testing.T) {
	h := &agent.Handler{}
	(&Agent{Run: func(context.Context, []string) ([]byte, error) {
		t.Error("lldpcli ran for a refused request")
		return nil, nil
	}}).Register(h)
	r := h.Handle(t.Context(), agent.Request{APIVersion: fabric.APIVersion, Protocol: agent.Protocol, Op: Op, Args: json.RawMessage(`{"socket":"/tmp/x"}`)})
	if r.OK || r.Error.Kind != agent.ErrorBadRequest || !strings.Contains(r.Error.Message, `unknown field "socket"`) {
		t.Errorf("reply %+v", r.Error)
	}
}
