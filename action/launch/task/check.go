package task

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxProblems bounds the problems one error lists.
const maxProblems = 10

// check refuses what a task would use unsafely: names with white space or control characters
// (a node name is one field of a frame line, and names reach terminals and logs), device and
// interface names that are paths ("../../etc": they name files under /sys/class), and ports,
// sizes and durations out of range.
func (s Spec) check() error {
	var probs []error
	bad := func(format string, a ...any) {
		if len(probs) < maxProblems {
			probs = append(probs, fmt.Errorf(format, a...))
		}
	}
	// locations are formatted only for a problem: a spec has 10,000 nodes
	for i, h := range s.Hosts {
		if why := nameProblem(h.Node); why != "" {
			bad("hosts[%d].node %+q: %s", i, h.Node, why)
		}
		if why := nameProblem(h.Intent.Host); why != "" {
			bad("hosts[%d].intent.host %+q: %s", i, h.Intent.Host, why)
		}
		for j, in := range h.Intent.Interfaces {
			if why := deviceProblem(in.Name); why != "" {
				bad("hosts[%d].intent.interfaces[%d].name %+q: %s", i, j, in.Name, why)
			}
		}
	}
	for i, p := range s.Peers {
		if why := nameProblem(p.Name); why != "" {
			bad("peers[%d].name %+q: %s", i, p.Name, why)
		}
		if why := nameProblem(p.Address); p.Address != "" && why != "" {
			bad("peers[%d].address %+q: %s", i, p.Address, why)
		}
	}
	t := s.Test
	if t.Size < 0 || t.Duration < 0 || t.Iterations < 0 || t.Timeout < 0 || t.Retries < 0 || t.QPTimeout < 0 {
		bad("test: size %d, duration %s, iterations %d, timeout %s, retries %d, qp timeout %d: none may be negative",
			t.Size, t.Duration, t.Iterations, t.Timeout, t.Retries, t.QPTimeout)
	}
	if t.TClass != nil && (*t.TClass < 0 || *t.TClass > 255) {
		bad("test: traffic class %d is outside 0..255", *t.TClass)
	}
	for i, j := range s.Jobs {
		for _, side := range [2]struct {
			role string
			s    *Side
		}{{"server", &j.Server}, {"client", &j.Client}} {
			if err := side.s.check(); err != nil {
				bad("jobs[%d].%s.%w", i, side.role, err)
			}
		}
		if j.TCPPort < 1 || j.TCPPort > 65535 {
			bad("jobs[%d].tcpPort %d is outside 1..65535", i, j.TCPPort)
		}
	}
	if s.NCCL != nil {
		for i, n := range s.NCCL.Nodes {
			if why := nameProblem(n.Node); why != "" {
				bad("nccl.nodes[%d].node %+q: %s", i, n.Node, why)
			}
			if why := nameProblem(n.Host); why != "" {
				bad("nccl.nodes[%d].host %+q: %s", i, n.Host, why)
			}
		}
	}
	return errors.Join(probs...)
}

// check returns the first problem of one side of a job, its field named first.
func (s *Side) check() error {
	for _, f := range [3]struct {
		name string
		v    string
	}{{"node", s.Node}, {"host", s.Host}, {"address", s.Address}} {
		if why := nameProblem(f.v); why != "" && (f.v != "" || f.name != "address") {
			return fmt.Errorf("%s %+q: %s", f.name, f.v, why)
		}
	}
	for _, f := range [3]struct {
		name string
		v    string
	}{{"interface", s.Interface}, {"device", s.Device}, {"loopDevice", s.LoopDevice}} {
		if why := deviceProblem(f.v); why != "" && f.v != "" {
			return fmt.Errorf("%s %+q: %s", f.name, f.v, why)
		}
	}
	if s.Port < 0 || s.Port > 255 {
		return fmt.Errorf("port %d is outside 0..255", s.Port)
	}
	if s.GIDIndex != nil && (*s.GIDIndex < 0 || *s.GIDIndex > 255) {
		return fmt.Errorf("gidIndex %d is outside 0..255", *s.GIDIndex)
	}
	return nil
}

// CheckNodeName refuses a node name a frame cannot carry: empty, white space, control
// characters, bytes that are not UTF-8. WriteResult and Collect apply it; a task checks its own
// name (NodeName) with it before it runs.
func CheckNodeName(node string) error {
	if why := nameProblem(node); why != "" {
		return fmt.Errorf("node name %+q: %s", node, why)
	}
	return nil
}

// nameProblem says what keeps s from being a node, host or address name: empty, white space,
// control characters, bytes that are not UTF-8.
func nameProblem(s string) string {
	switch {
	case s == "":
		return "empty"
	case !utf8.ValidString(s):
		return "not UTF-8"
	case strings.IndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }) >= 0:
		return "white space or a control character"
	}
	return ""
}

// deviceProblem says what keeps s from being an RDMA device or netdev name, which name
// directories under /sys/class: a path ('/', "." or ".."), an option ('-'), more than 64 bytes,
// or what nameProblem refuses.
func deviceProblem(s string) string {
	switch {
	case nameProblem(s) != "":
		return nameProblem(s)
	case s == "." || s == ".." || strings.Contains(s, "/"):
		return "a path, not a device name"
	case strings.HasPrefix(s, "-"):
		return "starts with '-'"
	case len(s) > 64:
		return "longer than 64 bytes"
	}
	return ""
}
