package task

import (
	"errors"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/checks/collective"
	"github.com/fabricctl/fabricctl/fabric"
)

// TestTaskSpecRefusesHostileParts: a spec naming a device by a path, a node with a control
// character or a space, a negative duration, a port out of range is refused, saying where.
func TestTaskSpecRefusesHostileParts(t *testing.T) {
	round := func(edit func(*Spec)) Spec {
		s := roundSpec(2)
		edit(&s)
		return s
	}
	neg := -1
	for name, c := range map[string]struct {
		spec Spec
		want string
	}{
		"device path":       {round(func(s *Spec) { s.Jobs[0].Server.Device = "../../../../etc" }), `jobs[0].server.device "../../../../etc": a path, not a device name`},
		"loop device path":  {round(func(s *Spec) { s.Jobs[0].Client.LoopDevice = "a/b" }), `jobs[0].client.loopDevice "a/b": a path`},
		"interface option":  {round(func(s *Spec) { s.Jobs[0].Client.Interface = "-x" }), `jobs[0].client.interface "-x": starts with '-'`},
		"node with ESC":     {round(func(s *Spec) { s.Jobs[0].Server.Node = "gpu\x1b]0;x\a" }), `jobs[0].server.node "gpu\x1b]0;x\a": white space or a control character`},
		"node with a space": {round(func(s *Spec) { s.Jobs[0].Client.Node = "two words" }), `jobs[0].client.node "two words"`},
		"empty node":        {round(func(s *Spec) { s.Jobs[0].Client.Node = "" }), `jobs[0].client.node "": empty`},
		"negative duration": {round(func(s *Spec) { s.Test.Duration = -5e9 }), "duration -5s"},
		"tcp port":          {round(func(s *Spec) { s.Jobs[0].TCPPort = 70000 }), "jobs[0].tcpPort 70000 is outside 1..65535"},
		"gid index":         {round(func(s *Spec) { s.Jobs[0].Client.GIDIndex = &neg }), "jobs[0].client.gidIndex -1 is outside 0..255"},
		"preflight netdev": {PreflightSpec([]fabric.HostIntent{{Host: "h1", Interfaces: []fabric.InterfaceIntent{{Name: ".."}}}}, nil, strings.ToUpper),
			`hosts[0].intent.interfaces[0].name "..": a path`},
		"nccl node": {NCCLProbeSpec([]string{"h\n1"}, strings.ToUpper, collective.ProbeArgs{}), `nccl.nodes[0].node "H\n1"`},
	} {
		args, err := EncodeArgs(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		_, err = DecodeArgs(args)
		if !errors.Is(err, ErrSpec) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want ErrSpec saying %q", name, err, c.want)
		}
	}
	// what the controller writes passes, "*" (every RDMA netdev) included
	ok := round(func(s *Spec) { s.Jobs[0].Server.Interface = fabric.AllRDMANetdevs })
	args, _ := EncodeArgs(ok)
	if _, err := DecodeArgs(args); err != nil {
		t.Errorf("a round the controller writes: %v", err)
	}
}

// TestTaskWriteResultRefusesControlCharacters: a node name that would put a control character on
// the launcher's output (a frame's node field) is refused before anything is written.
func TestTaskWriteResultRefusesControlCharacters(t *testing.T) {
	var b strings.Builder
	for _, n := range []string{"gpu\x1b[2J", "gpu\x00", "a\tb", ""} {
		if err := WriteResult(&b, Result{Node: n}); err == nil || !strings.Contains(err.Error(), "node name") {
			t.Errorf("node %q: %v", n, err)
		}
	}
	if b.Len() != 0 {
		t.Errorf("wrote %q", b.String())
	}
	// nor does Collect repeat one from a frame in its errors
	c := Collect(strings.NewReader(FrameTag+" v1 gpu\x1b]0;x\a 1/1 AAAA\n"), nil)
	if len(c.Errors) != 1 || !strings.Contains(c.Errors[0].Error(), `line 1: node "gpu\x1b]0;x\a": white space or a control character`) {
		t.Errorf("a frame's node with ESC: %v", c.Errors)
	}
}
