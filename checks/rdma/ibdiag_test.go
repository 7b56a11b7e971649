package rdma

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/agent"
	"github.com/fabricctl/fabricctl/agent/agentclient"
)

// ibAgent serves OpIBDiag with stand-in tools: each prints its argv, the
// IB environment and its working directory, writes to stderr and exits
// with the status in EXIT (0 when unset); sleeper sleeps.
func ibAgent(t *testing.T) (agentclient.Local, string) {
	t.Helper()
	bin, dir := t.TempDir(), t.TempDir()
	script := "#!/bin/sh\necho \"$0 $*\"\necho \"env=$IBSIM_SOCKNAME lc=$LC_ALL\"\npwd\necho 'ibwarn: complaint' >&2\nexit ${EXIT:-0}\n"
	for _, tool := range []string{"sminfo", "ibqueryerrors", "smpquery", "saquery"} {
		if err := os.WriteFile(filepath.Join(bin, tool), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(bin, "iblinkinfo"), []byte("#!/bin/sh\nexec sleep 30\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	a := &Agent{IBEnv: []string{"IBSIM_SOCKNAME=lab9"}, IBDir: dir, LookPath: func(name string) (string, error) {
		p := filepath.Join(bin, name)
		if _, err := os.Stat(p); err != nil {
			return "", errors.New("executable file not found in $PATH")
		}
		return p, nil
	}}
	h := &agent.Handler{}
	a.Register(h)
	return agentclient.Local{Handler: h}, dir
}

// TestIBDiagRunsAllowedTools: the op is served, runs the tool with its
// arguments (not through a shell), LC_ALL=C and the agent's IB
// environment, in its directory, and answers stdout, stderr and the exit
// status; a non-zero exit is an answer, not an error.
func TestIBDiagRunsAllowedTools(t *testing.T) {
	ag, dir := ibAgent(t)
	if !slices.Contains(ag.Handler.Ops(), OpIBDiag) {
		t.Fatalf("ops %v lack %s", ag.Handler.Ops(), OpIBDiag)
	}
	var out IBDiagOutput
	if err := agentclient.Call(t.Context(), ag, OpIBDiag, IBDiagArgs{Tool: "smpquery", Args: []string{"pkeys", "12", "1"}}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.Stdout, "/smpquery pkeys 12 1\n") || !strings.Contains(out.Stdout, "env=lab9 lc=C\n"+dir+"\n") ||
		out.Stderr != "ibwarn: complaint\n" || out.ExitCode != 0 || out.TimedOut || out.Truncated {
		t.Errorf("smpquery: %+v", out)
	}
	t.Setenv("EXIT", "1")
	if err := agentclient.Call(t.Context(), ag, OpIBDiag, IBDiagArgs{Tool: "ibqueryerrors", Args: []string{"--skip-sl"}}, &out); err != nil || out.ExitCode != 1 {
		t.Errorf("ibqueryerrors exiting 1: %+v %v, want exit 1 answered", out, err)
	}
}

// TestIBDiagBounds: a tool past its timeout is killed and says so; a tool
// the host lacks is the op's error naming it.
func TestIBDiagBounds(t *testing.T) {
	ag, _ := ibAgent(t)
	var out IBDiagOutput
	if err := agentclient.Call(t.Context(), ag, OpIBDiag, IBDiagArgs{Tool: "iblinkinfo", TimeoutSeconds: 1}, &out); err != nil || !out.TimedOut || out.Millis > 10000 {
		t.Errorf("iblinkinfo sleeping: %+v %v, want it killed at 1 s", out, err)
	}
	err := agentclient.Call(t.Context(), ag, OpIBDiag, IBDiagArgs{Tool: "ibnetdiscover", Args: []string{"-p"}}, &out)
	if !errors.Is(err, agentclient.ErrAgent) || !strings.Contains(err.Error(), "finding ibnetdiscover") {
		t.Errorf("missing tool: %v", err)
	}
	h := &headBuffer{max: 4}
	h.Write([]byte("abc"))
	h.Write([]byte("def"))
	if string(h.b) != "abcd" || !h.cut {
		t.Errorf("head buffer kept %q cut=%v, want abcd and cut", h.b, h.cut)
	}
}

// TestIBDiagRefusals: only the listed tools and argument shapes run; the
// rest are bad requests that say why, and nothing runs.
func TestIBDiagRefusals(t *testing.T) {
	ag, _ := ibAgent(t)
	for _, c := range []struct {
		args IBDiagArgs
		want string
	}{
		{IBDiagArgs{Tool: "sh", Args: []string{"-c", "id"}}, `tool "sh" (allowed: dump_fts, iblinkinfo,`},
		{IBDiagArgs{Tool: "/usr/sbin/sminfo"}, `tool "/usr/sbin/sminfo"`},
		{IBDiagArgs{Tool: "sminfo", Args: []string{"-C", "mlx5_0"}}, "sminfo [\"-C\" \"mlx5_0\"]: want no arguments"},
		{IBDiagArgs{Tool: "saquery", Args: []string{"PR"}}, "want SMIR"},
		{IBDiagArgs{Tool: "smpquery", Args: []string{"pkeys", "12;reboot", "1"}}, `LID "12;reboot" is not a unicast LID`},
		{IBDiagArgs{Tool: "smpquery", Args: []string{"pkeys", "0xc000"}}, "not a unicast LID"},
		{IBDiagArgs{Tool: "smpquery", Args: []string{"portinfo", "12", "1"}}, "want pkeys LID [PORT]"},
		{IBDiagArgs{Tool: "smpquery", Args: []string{"pkeys", "12", "300"}}, `port "300" is not a port number`},
		{IBDiagArgs{Tool: "smpquery", Args: []string{"pkeys", "-G", "0xzz", "1"}}, "is not 0x and up to 16 hex digits"},
		{IBDiagArgs{Tool: "perfquery", Args: []string{"-l", "3", "1"}}, "wants port 255"},
		{IBDiagArgs{Tool: "ibroute", Args: []string{"-M", "3"}}, "want one switch LID"},
		{IBDiagArgs{Tool: "sminfo", TimeoutSeconds: 3600}, "timeoutSeconds 3600 is outside 0..600"},
	} {
		rep := serveOne(t, ag.Handler, c.args)
		if rep.OK || rep.Error == nil || rep.Error.Kind != agent.ErrorBadRequest || !strings.Contains(rep.Error.Message, c.want) {
			t.Errorf("%+v: %+v, want a bad request containing %q", c.args, rep.Error, c.want)
		}
	}
	for _, ok := range [][]string{{"sminfo"}, {"ibnetdiscover", "-p"}, {"iblinkinfo"}, {"saquery", "SMIR"}, {"ibqueryerrors", "--skip-sl"},
		{"smpquery", "pkeys", "1", "0"}, {"smpquery", "pkeys", "-G", "0x0002c90300001001", "1"}, {"dump_fts"}, {"ibroute", "49151"},
		{"perfquery", "3", "7"}, {"perfquery", "-l", "3", "255"}} {
		if err := CheckIBDiag(ok[0], ok[1:]); err != nil {
			t.Errorf("%v refused: %v", ok, err)
		}
	}
	if _, err := (&Agent{}).RunIBDiag(context.Background(), IBDiagArgs{Tool: "bash"}); !errors.Is(err, ErrIBDiagRefused) || !errors.Is(err, ErrBadArgs) {
		t.Errorf("bash: %v, want ErrIBDiagRefused", err)
	}
}

// serveOne sends one ib-diag request to h and returns its reply.
func serveOne(t *testing.T, h *agent.Handler, args IBDiagArgs) agent.Reply {
	t.Helper()
	req, err := agentclient.Request(OpIBDiag, args)
	if err != nil {
		t.Fatal(err)
	}
	in, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := h.Serve(t.Context(), bytes.NewReader(append(in, '\n')), &out); err != nil {
		t.Fatal(err)
	}
	var rep agent.Reply
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("%v: %s", err, out.Bytes())
	}
	return rep
}
