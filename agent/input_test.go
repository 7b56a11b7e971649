package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/agent"
	"github.com/fabricctl/fabricctl/agent/hostops"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/hostcfg"
)

// endless is a request line that never ends: an id of 'a's, n bytes in
// all. It counts what was read of it.
type endless struct{ n, read int64 }

func (e *endless) Read(p []byte) (int, error) {
	const head = `{"apiVersion":"fabricctl.io/v1alpha1","protocol":1,"op":"hello","id":"`
	if e.read >= e.n {
		return 0, io.EOF
	}
	k := 0
	for k < len(p) && e.read < e.n {
		if e.read < int64(len(head)) {
			p[k] = head[e.read]
		} else {
			p[k] = 'a'
		}
		k++
		e.read++
	}
	return k, nil
}

// TestOversizedRequestIsRefusedUnread: a 100 MiB request line (its id is
// echoed) is refused once it passes MaxRequestBytes, without reading the
// rest or buffering the line: the reply names the limit, carries no id,
// and the stream ends.
func TestOversizedRequestIsRefusedUnread(t *testing.T) {
	in := &endless{n: 100 << 20}
	var out bytes.Buffer
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	failed, err := (&agent.Handler{}).Serve(t.Context(), io.MultiReader(in, strings.NewReader(`"}
{"apiVersion":"fabricctl.io/v1alpha1","protocol":1,"op":"hello"}`)), &out)
	runtime.ReadMemStats(&after)
	if err != nil || failed != 1 {
		t.Fatalf("Serve = %d failed, %v", failed, err)
	}
	if in.read > agent.MaxRequestBytes {
		t.Errorf("read %d bytes of the request, more than the limit of %d", in.read, agent.MaxRequestBytes)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 6*agent.MaxRequestBytes {
		t.Errorf("refusing a 100 MiB request allocated %d MiB", alloc>>20)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var r agent.Reply
	if len(lines) != 1 || json.Unmarshal([]byte(lines[0]), &r) != nil {
		t.Fatalf("want one reply and the end of the stream, got:\n%.300s", out.String())
	}
	if r.OK || r.Error.Kind != agent.ErrorBadRequest || r.ID != "" ||
		!strings.Contains(r.Error.Message, fmt.Sprint(agent.MaxRequestBytes)) {
		t.Errorf("reply = %+v", r.Error)
	}
}

// TestRequestsUpToTheLimitAreServed: the budget is per request, so
// several large requests in one stream are all served.
func TestRequestsUpToTheLimitAreServed(t *testing.T) {
	h := &agent.Handler{}
	h.Register("echo", func(_ context.Context, args json.RawMessage) (any, error) { return len(args), nil })
	big := strings.Repeat("x", agent.MaxRequestBytes-200)
	req := `{"apiVersion":"fabricctl.io/v1alpha1","protocol":1,"op":"echo","args":"` + big + `"}`
	if len(req) >= agent.MaxRequestBytes {
		t.Fatalf("request of %d bytes", len(req))
	}
	var out bytes.Buffer
	failed, err := h.Serve(t.Context(), strings.NewReader(req+"\n"+req+"\n"), &out)
	if err != nil || failed != 0 || strings.Count(out.String(), "\n") != 2 {
		t.Fatalf("Serve = %d failed, %v:\n%.300s", failed, err, out.String())
	}
}

// TestEchoedStringsAreBounded: an id or op longer than MaxNameBytes is
// refused and not echoed; the stream goes on.
func TestEchoedStringsAreBounded(t *testing.T) {
	long := strings.Repeat("i", agent.MaxNameBytes+1)
	ok := strings.Repeat("i", agent.MaxNameBytes)
	in := fmt.Sprintf(`{"apiVersion":"fabricctl.io/v1alpha1","protocol":1,"op":"hello","id":%q}
{"apiVersion":"fabricctl.io/v1alpha1","protocol":1,"op":%q,"id":"2"}
{"apiVersion":"fabricctl.io/v1alpha1","protocol":1,"op":"hello","id":%q}
{"apiVersion":"fabricctl.io/v1alpha1","protocol":"one","id":%q}
`, long, long, ok, long)
	var out bytes.Buffer
	failed, err := (&agent.Handler{}).Serve(t.Context(), strings.NewReader(in), &out)
	if err != nil || failed != 3 {
		t.Fatalf("Serve = %d failed, %v", failed, err)
	}
	if strings.Contains(out.String(), long) {
		t.Errorf("a reply echoes %d bytes:\n%s", len(long), out.String())
	}
	var rs []agent.Reply
	for l := range strings.Lines(out.String()) {
		var r agent.Reply
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	if len(rs) != 4 || rs[0].OK || rs[0].Error.Kind != agent.ErrorBadRequest || !strings.Contains(rs[0].Error.Message, "id is 129 bytes") ||
		rs[1].OK || rs[1].ID != "2" || !rs[2].OK || rs[2].ID != ok || rs[3].OK || rs[3].ID != "" {
		t.Errorf("replies = %+v", rs)
	}
}

// TestDecodeArgsIsStrict: unknown fields, trailing data, values out of
// their type's range and absent args are bad requests, and a registered
// op returning one is answered with kind bad-request.
func TestDecodeArgsIsStrict(t *testing.T) {
	type args struct {
		Name  string `json:"name"`
		Count int8   `json:"count"`
	}
	for _, c := range []struct{ raw, want string }{
		{`{"name":"x","bogus":1}`, `unknown field "bogus"`},
		{`{"name":"x"} {"name":"y"}`, "more data after the JSON value"},
		{`{"count":1000}`, "count"},
		{`{"count":-1e999}`, "count"},
		{``, "none given"},
		{`null`, "none given"},
		{`{"name":"x","` + strings.Repeat("f", 4096) + `":1}`, "bytes)"},
	} {
		var a args
		err := agent.DecodeArgs(json.RawMessage(c.raw), &a)
		if !errors.Is(err, agent.ErrBadRequest) || !strings.Contains(err.Error(), c.want) || len(err.Error()) > 700 {
			t.Errorf("%.40s: %v, want a bad request saying %q", c.raw, err, c.want)
		}
	}
	if err := agent.NoArgs(json.RawMessage(`{"x":1}`)); !errors.Is(err, agent.ErrBadRequest) {
		t.Errorf("NoArgs({x}) = %v", err)
	}
	for _, raw := range []string{``, `null`, `{}`, ` { } `} {
		if err := agent.NoArgs(json.RawMessage(raw)); err != nil {
			t.Errorf("NoArgs(%q) = %v", raw, err)
		}
	}

	h := &agent.Handler{}
	h.Register("op", func(_ context.Context, raw json.RawMessage) (any, error) {
		var a args
		return a, agent.DecodeArgs(raw, &a)
	})
	r := h.Handle(t.Context(), agent.Request{APIVersion: fabric.APIVersion, Protocol: agent.Protocol, Op: "op", Args: json.RawMessage(`{"nmae":"x"}`)})
	if r.OK || r.Error.Kind != agent.ErrorBadRequest || !strings.Contains(r.Error.Message, `unknown field "nmae"`) {
		t.Errorf("reply = %+v", r.Error)
	}
}

// TestCheckName: a name that would leave its sysfs directory, or carries
// a control character, is refused before any lookup.
func TestCheckName(t *testing.T) {
	for _, bad := range []string{"", ".", "..", "../../../../etc", "mlx5_0/../..", "eth0\x00", "eth\x1b[2J", "eth0\n", "\xff\xfe",
		strings.Repeat("e", agent.MaxNameBytes+1)} {
		if err := agent.CheckName("spec.Device", bad); !errors.Is(err, agent.ErrBadRequest) || !strings.HasPrefix(err.Error(), "spec.Device") {
			t.Errorf("CheckName(%q) = %v", bad, err)
		}
	}
	for _, good := range []string{"mlx5_0", "ens1f0np0", "ib0.8002", "rxe0", "mlx5_bond_0"} {
		if err := agent.CheckName("spec.Device", good); err != nil {
			t.Errorf("CheckName(%q) = %v", good, err)
		}
	}
	err := agent.CheckKnown("spec.Device", "mlx5_9", "RDMA device", []string{"mlx5_0", "mlx5_1"})
	if !errors.Is(err, agent.ErrBadRequest) || err.Error() != `spec.Device "mlx5_9": this host has no such RDMA device (it has mlx5_0, mlx5_1)` {
		t.Errorf("CheckKnown = %v", err)
	}
}

// TestHostOpsRefuseHostileRequests: names that would leave their sysfs
// directory, numbers outside their settings' ranges, unknown fields and
// over-long ids are bad requests, refused before the host is opened.
func TestHostOpsRefuseHostileRequests(t *testing.T) {
	h := &agent.Handler{}
	(&hostops.Ops{Open: func(context.Context) (*hostcfg.Host, error) {
		t.Error("the host was opened for a request that is refused")
		return nil, errors.New("no host")
	}}).Register(h)
	const head = `{"apiVersion":"fabricctl.io/v1alpha1","protocol":1,`
	desired := func(iface string) string {
		return `"desired":{"apiVersion":"fabricctl.io/v1alpha1","host":"h","interfaces":[` + iface + `]}`
	}
	for _, c := range []struct{ req, want string }{
		{`"op":"observe",` + desired(`{"name":"../../../../etc"}`), `desired.interfaces[0].name "../../../../etc"`},
		{`"op":"plan",` + desired(`{"name":"eth0\u001b]0;x\u0007"}`), "control character"},
		{`"op":"apply",` + desired(`{"name":"eth0","mtu":-1}`), "desired.interfaces[0].mtu -1 is negative"},
		{`"op":"apply",` + desired(`{"name":"eth0","pfc":{"priorities":[3,9]}}`), "desired.interfaces[0].pfc.priorities[1] 9 is outside 0..7"},
		{`"op":"plan",` + desired(`{"name":"eth0","cnp":{"dscp":64,"priority":-1}}`), "desired.interfaces[0].cnp.priority -1 is negative"},
		{`"op":"plan",` + desired(`{"name":"eth0","dcqcn":{"enabled":true,"np":{"../x":1}}}`), `desired.interfaces[0].dcqcn.np "../x"`},
		{`"op":"plan",` + desired(`{"name":"eth0","mtu":1e99}`), "mtu"},
		{`"op":"plan",` + desired(`{"name":"eth0","bogus":1}`), `unknown field "bogus"`},
		{`"op":"show","interfaces":["eth0","../../etc"]`, `interfaces[1] "../../etc"`},
		{`"op":"show","interfaces":["eth0"],"bogus":1`, `unknown field "bogus"`},
		{`"op":"rollback","plan":{"changes":[{"interface":"../../etc","setting":"trust","old":"pcp","new":"dscp"}]}`, `plan.changes[0].interface "../../etc"`},
		{`"op":"rollback","plan":{"changes":[{"interface":"mlx5_0/1/..","setting":"pkey.0x0002"}]}`, "neither a netdev nor DEVICE/PORT"},
		{`"op":"settle","journal":"` + strings.Repeat("j", 200) + `",` + desired(``), "journal is 200 bytes"},
		{`"op":"recover","bogus":true,` + desired(``), `unknown field "bogus"`},
	} {
		var out bytes.Buffer
		if _, err := h.Serve(t.Context(), strings.NewReader(head+c.req+"}\n"), &out); err != nil {
			t.Fatal(err)
		}
		var r agent.Reply
		if err := json.Unmarshal(out.Bytes(), &r); err != nil {
			t.Fatalf("%s: %v", c.req, err)
		}
		msg := ""
		if r.Error != nil {
			msg = r.Error.Message + strings.Join(r.Error.Details, "\n")
		}
		if r.OK || r.Error.Kind != agent.ErrorBadRequest || !strings.Contains(msg, c.want) {
			t.Errorf("%.80s: reply %+v, want a bad request saying %q", c.req, r.Error, c.want)
		}
	}
}
