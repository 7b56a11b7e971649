package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/agent"
	"github.com/fabricctl/fabricctl/agent/hostops"
	"github.com/fabricctl/fabricctl/hostcfg"
)

func TestRegisteredOp(t *testing.T) {
	h := &agent.Handler{}
	(&hostops.Ops{Open: func(context.Context) (*hostcfg.Host, error) {
		t.Error("a registered op must not open the host")
		return nil, errors.New("no host")
	}}).Register(h)
	h.Register("exec-check", func(_ context.Context, args json.RawMessage) (any, error) {
		var a struct{ Name string }
		if err := json.Unmarshal(args, &a); err != nil {
			return nil, err
		}
		if a.Name == "" {
			return nil, errors.New("no check named")
		}
		return map[string]string{"ran": a.Name}, nil
	})
	in := `{"apiVersion":"fabricctl.io/v1alpha1","protocol":1,"op":"exec-check","args":{"Name":"preflight"}}
{"apiVersion":"fabricctl.io/v1alpha1","protocol":1,"op":"exec-check","args":{}}
{"apiVersion":"fabricctl.io/v1alpha1","protocol":1,"op":"hello"}`
	var out bytes.Buffer
	failed, err := h.Serve(context.Background(), strings.NewReader(in), &out)
	if err != nil || failed != 1 {
		t.Fatalf("Serve = %d failed, %v", failed, err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d reply lines, want one per request:\n%s", len(lines), out.String())
	}
	var r1, r2, r3 agent.Reply
	for i, r := range []*agent.Reply{&r1, &r2, &r3} {
		if err := json.Unmarshal([]byte(lines[i]), r); err != nil {
			t.Fatal(err)
		}
	}
	if !r1.OK || string(r1.Data) != `{"ran":"preflight"}` {
		t.Errorf("exec-check reply = %+v (data %s)", r1, r1.Data)
	}
	if r2.OK || r2.Error.Kind != agent.ErrorOp || r2.Error.Message != "no check named" {
		t.Errorf("failing op reply = %+v", r2)
	}
	if want := []string{"apply", "exec-check", "hello", "observe", "plan", "recover", "rollback", "settle", "show"}; strings.Join(r3.Hello.Ops, " ") != strings.Join(want, " ") {
		t.Errorf("ops = %v, want %v", r3.Hello.Ops, want)
	}
}

func TestRegisterTwicePanics(t *testing.T) {
	for _, op := range []string{agent.OpHello, agent.OpApply} {
		h := &agent.Handler{}
		(&hostops.Ops{}).Register(h)
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("registering %s twice did not panic", op)
				}
			}()
			h.Register(op, nil)
		}()
	}
}

// FuzzServe feeds arbitrary bytes to the agent: it must answer (or stop)
// without panicking, with one JSON reply per request it read.
func FuzzServe(f *testing.F) {
	for _, s := range []string{
		`{"apiVersion":"fabricctl.io/v1alpha1","protocol":1,"op":"hello"}`,
		`{"apiVersion":"fabricctl.io/v1alpha1","protocol":1,"op":"plan","desired":{"apiVersion":"fabricctl.io/v1alpha1","interfaces":[{"name":"*","mtu":9000}]}}`,
		`{"apiVersion":"fabricctl.io/v1alpha1","protocol":1,"op":"rollback","plan":{"changes":[{"interface":"eth0","setting":"mtu","old":"9000","new":"1500"}]}}`,
		`{"op":"apply","dryRun":true}` + "\n" + `{"op":`,
		`[1,2,3]`, `"x"`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		h := &agent.Handler{}
		(&hostops.Ops{Open: func(context.Context) (*hostcfg.Host, error) { return nil, errors.New("no host in the fuzzer") }}).Register(h)
		var out bytes.Buffer
		failed, err := h.Serve(context.Background(), bytes.NewReader(in), &out)
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
		dec := json.NewDecoder(&out)
		n := 0
		for dec.More() {
			var r agent.Reply
			if err := dec.Decode(&r); err != nil {
				t.Fatalf("reply %d is not JSON: %v", n, err)
			}
			if r.OK == (r.Error != nil) {
				t.Fatalf("reply %d: ok=%v with error %v", n, r.OK, r.Error)
			}
			n++
		}
		if failed > n {
			t.Fatalf("%d failures but %d replies", failed, n)
		}
	})
}
