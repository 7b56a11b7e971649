package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/agent"
	"github.com/fabricctl/fabricctl/fabric"
)

// runAgent feeds requests (JSON values, one per line) to `fabricctl agent`
// and decodes every reply line.
func runAgent(t *testing.T, requests ...string) (int, []agent.Reply, string) {
	t.Helper()
	var out, errb bytes.Buffer
	g := &globals{stdin: strings.NewReader(strings.Join(requests, "\n")), stdout: &out, stderr: &errb}
	code := execute(context.Background(), g, []string{"agent"})
	var replies []agent.Reply
	dec := json.NewDecoder(&out)
	for dec.More() {
		var r agent.Reply
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("reply is not JSON: %v\n%s", err, out.String())
		}
		replies = append(replies, r)
	}
	return code, replies, errb.String()
}

func request(t *testing.T, r agent.Request) string {
	t.Helper()
	if r.APIVersion == "" {
		r.APIVersion = fabric.APIVersion
	}
	if r.Protocol == 0 {
		r.Protocol = agent.Protocol
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func hostIntent(t *testing.T, name string) *fabric.HostIntent {
	b, err := os.ReadFile(desiredFile(t, name))
	if err != nil {
		t.Fatal(err)
	}
	var d fabric.HostIntent
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	return &d
}

func TestAgentHello(t *testing.T) {
	fixtureHost(t, "rxe")
	code, rs, errs := runAgent(t, request(t, agent.Request{Op: agent.OpHello, ID: "h1"}))
	if code != 0 || len(rs) != 1 {
		t.Fatalf("exit %d, %d replies, stderr %s", code, len(rs), errs)
	}
	r := rs[0]
	if !r.OK || r.ID != "h1" || r.Hello == nil || r.Hello.Version != version || r.Hello.SHA256 == "" {
		t.Fatalf("hello = %+v", r)
	}
	if !slices.Equal(r.Hello.Protocols, []int{1}) || !slices.IsSorted(r.Hello.Ops) ||
		!slices.Contains(r.Hello.Ops, agent.OpApply) || !slices.Contains(r.Hello.Ops, agent.OpRollback) {
		t.Errorf("hello protocols %v ops %v", r.Hello.Protocols, r.Hello.Ops)
	}
}

func TestAgentPlanApplyRollback(t *testing.T) {
	f := fixtureHost(t, "mlx5-ofed")
	d := hostIntent(t, "mlx5-ofed")

	_, rs, _ := runAgent(t, request(t, agent.Request{Op: agent.OpPlan, Desired: d}))
	if len(rs) != 1 || !rs[0].OK || rs[0].Plan == nil || len(rs[0].Plan.Changes) == 0 || rs[0].Fingerprint == "" {
		t.Fatalf("plan reply = %+v", rs)
	}
	confirmed := rs[0].Fingerprint

	// The host changes between the confirmation and the apply.
	mtu := 9000
	if err := f.Links.SetMTU(context.Background(), "ens1f1np1", mtu); err != nil {
		t.Fatal(err)
	}
	code, rs, _ := runAgent(t, request(t, agent.Request{Op: agent.OpApply, Desired: d, PlanFingerprint: confirmed}))
	if code != exitError || rs[0].OK || rs[0].Error.Kind != agent.ErrorPlanChanged || rs[0].Plan == nil || rs[0].Result != nil {
		t.Fatalf("apply with a stale fingerprint: exit %d, %+v", code, rs[0])
	}

	code, rs, _ = runAgent(t,
		request(t, agent.Request{Op: agent.OpApply, Desired: d, DryRun: true}),
		request(t, agent.Request{Op: agent.OpApply, Desired: d, PlanFingerprint: rs[0].Fingerprint}),
		request(t, agent.Request{Op: agent.OpPlan, Desired: d}))
	if code != 0 || len(rs) != 3 {
		t.Fatalf("exit %d, %d replies", code, len(rs))
	}
	if !rs[0].OK || rs[0].Result != nil || rs[0].Plan == nil || len(rs[0].Plan.Changes) == 0 {
		t.Errorf("dry run = %+v", rs[0])
	}
	res := rs[1].Result
	if !rs[1].OK || res == nil || len(res.Applied) == 0 {
		t.Fatalf("apply reply = %+v", rs[1])
	}
	if len(rs[2].Plan.Changes) != 0 {
		t.Errorf("plan after apply = %+v", rs[2].Plan.Changes)
	}

	// The controller rolls the host back with the undo plan it was given.
	_, rs, _ = runAgent(t, request(t, agent.Request{Op: agent.OpRollback, Plan: &res.Undo}),
		request(t, agent.Request{Op: agent.OpPlan, Desired: d}))
	if !rs[0].OK || len(rs[0].Result.Applied) != len(res.Applied) {
		t.Fatalf("rollback = %+v", rs[0])
	}
	if got, want := len(rs[1].Plan.Changes), len(res.Applied); got != want {
		t.Errorf("after rollback the plan has %d changes, want %d again", got, want)
	}
}

func TestAgentApplyFailureReply(t *testing.T) {
	f := fixtureHost(t, "mlx5-upstream")
	f.Kernel.SetUnprivileged(true)
	code, rs, _ := runAgent(t, request(t, agent.Request{Op: agent.OpApply, Desired: hostIntent(t, "mlx5-upstream")}))
	if code != exitError || rs[0].OK || rs[0].Error.Kind != agent.ErrorApply || rs[0].Result == nil || len(rs[0].Result.RolledBack) == 0 {
		t.Fatalf("exit %d, reply %+v", code, rs[0])
	}
	if !strings.Contains(rs[0].Error.Message, "writing dcbx on ens3f0np0 via dcbnl") {
		t.Errorf("error not located: %+v", rs[0].Error)
	}
}

func TestAgentBadRequests(t *testing.T) {
	fixtureHost(t, "rxe")
	for _, tc := range []struct {
		req, kind, want string
	}{
		{`{"apiVersion":"fabricctl.io/v1alpha1","protocol":2,"op":"hello"}`, agent.ErrorProtocol, "speaks protocol 1..1"},
		{`{"apiVersion":"fabricctl.io/v9","protocol":1,"op":"hello"}`, agent.ErrorProtocol, "apiVersion"},
		{`{"apiVersion":"fabricctl.io/v1alpha1","protocol":1,"op":"dance"}`, agent.ErrorBadRequest, "unknown op \"dance\""},
		{`{"apiVersion":"fabricctl.io/v1alpha1","protocol":1,"op":"plan"}`, agent.ErrorBadRequest, "needs desired"},
		{`{"apiVersion":"fabricctl.io/v1alpha1","protocol":1,"op":"rollback"}`, agent.ErrorBadRequest, "needs plan"},
		{`{"apiVersion":"fabricctl.io/v1alpha1","protocol":1,"op":"hello","colour":1}`, agent.ErrorBadRequest, "unknown field"},
		{`{"op": hello}`, agent.ErrorBadRequest, "invalid character"},
	} {
		code, rs, _ := runAgent(t, tc.req)
		if code != exitError || len(rs) != 1 || rs[0].OK || rs[0].Error.Kind != tc.kind || !strings.Contains(rs[0].Error.Message, tc.want) {
			t.Errorf("%s: exit %d, replies %+v", tc.req, code, rs)
		}
	}
	// A malformed request ends the stream; the good one before it is answered.
	code, rs, _ := runAgent(t, request(t, agent.Request{Op: agent.OpHello}), "{not json", request(t, agent.Request{Op: agent.OpHello}))
	if code != exitError || len(rs) != 2 || !rs[0].OK || rs[1].OK {
		t.Errorf("stream with a bad request: exit %d, %d replies", code, len(rs))
	}
	// No request at all is not an error.
	if code, rs, _ := runAgent(t); code != 0 || len(rs) != 0 {
		t.Errorf("empty stdin: exit %d, %d replies", code, len(rs))
	}
}

func TestAgentShowAndObserve(t *testing.T) {
	fixtureHost(t, "mlx5-ib")
	_, rs, _ := runAgent(t, request(t, agent.Request{Op: agent.OpShow}),
		request(t, agent.Request{Op: agent.OpObserve, Desired: hostIntent(t, "mlx5-ib")}))
	if !rs[0].OK || rs[0].Observed == nil || len(rs[0].Observed.Interfaces) != 1 || len(rs[0].Observed.Ports) != 1 {
		t.Fatalf("show = %+v", rs[0])
	}
	if pk := rs[0].Observed.Ports[0].PKeys; !slices.Equal(pk, []string{"0xffff", "0x8002", "0x0003", "0x8004"}) {
		t.Errorf("pkeys = %v", pk)
	}
	obs := rs[1].Observed
	if !rs[1].OK || obs == nil || len(obs.Ports[0].Settings) != 4 {
		t.Fatalf("observe = %+v", rs[1])
	}
}
