package slurm

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// ErrParse: scontrol printed something that is not a node record.
var ErrParse = errors.New("parsing scontrol output")

// Node is one node as `scontrol show node` prints it.
type Node struct {
	Name string `json:"name"`
	// State is the base state (IDLE, ALLOCATED, MIXED, DOWN, UNKNOWN, FUTURE, …) and Flags the
	// "+" suffixes (DRAIN, NOT_RESPONDING, FAIL, MAINTENANCE, RESERVED, POWERED_DOWN, …). An old
	// "*" suffix (IDLE*) is read as the flag NOT_RESPONDING.
	State string   `json:"state"`
	Flags []string `json:"flags,omitempty"`
	// Reason is the reason text without Slurm's " [user@time]" suffix; ReasonBy is that user.
	Reason   string `json:"reason,omitempty"`
	ReasonBy string `json:"reasonBy,omitempty"`
	// Address is NodeAddr.
	Address string `json:"address,omitempty"`
	// Fields holds every key of the record as printed.
	Fields map[string]string `json:"-"`
}

// Has reports whether the node carries flag f (e.g. "DRAIN").
func (n Node) Has(f string) bool { return slices.Contains(n.Flags, f) }

// Drained reports whether the node is drained or draining.
func (n Node) Drained() bool { return n.Has("DRAIN") }

// StateString is the state as scontrol prints it: STATE+FLAG+….
func (n Node) StateString() string { return strings.Join(append([]string{n.State}, n.Flags...), "+") }

// unusable are the flags that keep Slurm from starting anything new on a node.
var unusable = []string{"DRAIN", "FAIL", "NOT_RESPONDING", "POWERED_DOWN", "POWERING_DOWN", "POWERING_UP", "REBOOT_ISSUED", "INVALID_REG"}

// Allocatable reports whether Slurm would start a new job on the node: it is up and carries no
// flag that keeps work away (drained, failing, not responding, powered down).
func (n Node) Allocatable() bool {
	switch n.State {
	case "DOWN", "UNKNOWN", "FUTURE", "":
		return false
	}
	for _, f := range unusable {
		if n.Has(f) {
			return false
		}
	}
	return true
}

// Responding reports whether slurmd answers: the node may run steps of an allocation it already
// belongs to even while it drains.
func (n Node) Responding() bool {
	return n.State != "DOWN" && n.State != "UNKNOWN" && n.State != "FUTURE" && !n.Has("NOT_RESPONDING") && !n.Has("POWERED_DOWN")
}

// restOfLine are the keys whose values may hold spaces: scontrol prints each of them last on its
// line (OS=Linux 6.1.0 #1 SMP …, Reason=… [user@time]).
var restOfLine = map[string]bool{"OS": true, "Reason": true, "Comment": true, "Extra": true}

// reasonIndent starts each further line of a reason holding newlines: slurm_sprint_node_table
// (src/api/node_info.c) prints line_end ("\n" and 3 spaces) and 7 more spaces, and no KEY=.
const reasonIndent = "          "

// ParseNodes reads the output of `scontrol show node [NAMES]` (the multi-line form, records
// separated by blank lines, each starting with NodeName=). The further lines of a multi-line
// reason join the reason with "\n". A line that is neither a record's field list, a reason's
// further line nor blank is an error naming its line number.
func ParseNodes(r io.Reader) ([]Node, error) {
	var nodes []Node
	var cur *Node
	inReason := false // the previous line was the record's Reason= or one of its further lines
	more := map[int][]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	line := 0
	for sc.Scan() {
		line++
		raw := sc.Text()
		text := strings.TrimSpace(raw)
		if text == "" {
			cur, inReason = nil, false
			continue
		}
		if inReason && cur != nil && strings.HasPrefix(raw, reasonIndent) {
			more[len(nodes)-1] = append(more[len(nodes)-1], text)
			continue
		}
		inReason = false
		if strings.HasPrefix(text, "No nodes in the system") {
			continue
		}
		fields, err := splitFields(text)
		if err != nil {
			return nil, fmt.Errorf("%w: line %d: %w", ErrParse, line, err)
		}
		if name, ok := fields.first("NodeName"); ok {
			nodes = append(nodes, Node{Name: name, Fields: map[string]string{}})
			cur = &nodes[len(nodes)-1]
		}
		if cur == nil {
			return nil, fmt.Errorf("%w: line %d: %q: fields outside a NodeName= record", ErrParse, line, clip(text))
		}
		for _, kv := range fields {
			cur.Fields[kv.key] = kv.value
		}
		inReason = fields[len(fields)-1].key == "Reason"
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrParse, err)
	}
	for i := range nodes {
		n := &nodes[i]
		n.Address = n.Fields["NodeAddr"]
		n.State, n.Flags = parseState(n.Fields["State"])
		n.Reason, n.ReasonBy = parseReason(n.Fields["Reason"])
		if m := more[i]; len(m) > 0 {
			n.Reason = strings.Join(append([]string{n.Reason}, m...), "\n")
			n.Fields["Reason"] += "\n" + strings.Join(m, "\n")
		}
		if n.State == "" {
			return nil, fmt.Errorf("%w: node %s has no State", ErrParse, n.Name)
		}
	}
	return nodes, nil
}

type kv struct{ key, value string }

type kvs []kv

func (f kvs) first(key string) (string, bool) {
	if len(f) > 0 && f[0].key == key {
		return f[0].value, true
	}
	return "", false
}

// splitFields cuts "A=1 B=x=y C=" into key/value pairs; a value runs to the next " Key=" (a key
// is letters, digits, '_' and ':' after a letter) or, for restOfLine keys, to the end.
func splitFields(s string) (kvs, error) {
	var out kvs
	for s != "" {
		eq := strings.IndexByte(s, '=')
		if eq <= 0 || !isKey(s[:eq]) {
			return nil, fmt.Errorf("%q: want KEY=VALUE", clip(s))
		}
		key := s[:eq]
		rest := s[eq+1:]
		if restOfLine[key] {
			out = append(out, kv{key, rest})
			break
		}
		end := nextKey(rest)
		out = append(out, kv{key, strings.TrimSpace(rest[:end])})
		s = strings.TrimLeft(rest[end:], " ")
	}
	return out, nil
}

// nextKey returns the index in s of the space before the next "Key=" (len(s) when none).
func nextKey(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] != ' ' {
			continue
		}
		j := i + 1
		for j < len(s) && s[j] == ' ' {
			j++
		}
		rest := s[j:]
		if eq := strings.IndexByte(rest, '='); eq > 0 && isKey(rest[:eq]) {
			return i
		}
	}
	return len(s)
}

func isKey(k string) bool {
	if k == "" || !isLetter(k[0]) {
		return false
	}
	for i := 1; i < len(k); i++ {
		c := k[i]
		if !isLetter(c) && !(c >= '0' && c <= '9') && c != '_' && c != ':' && c != '/' {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' }

// parseState reads "IDLE+DRAIN", "DOWN*", "MIXED+DRAIN+NOT_RESPONDING".
func parseState(s string) (string, []string) {
	s = strings.TrimSpace(s)
	var flags []string
	if strings.HasSuffix(s, "*") {
		s = strings.TrimSuffix(s, "*")
		flags = append(flags, "NOT_RESPONDING")
	}
	parts := strings.Split(s, "+")
	for _, f := range parts[1:] {
		if f != "" && !slices.Contains(flags, f) {
			flags = append(flags, f)
		}
	}
	return parts[0], flags
}

// parseReason splits "text [user@2026-12-03T08:00:00]" into the text and the user.
func parseReason(s string) (string, string) {
	s = strings.TrimSpace(s)
	if s == "" || s == "(null)" || s == "None" {
		return "", ""
	}
	if strings.HasSuffix(s, "]") {
		if i := strings.LastIndex(s, " ["); i >= 0 {
			by, _, _ := strings.Cut(s[i+2:len(s)-1], "@")
			return strings.TrimSpace(s[:i]), by
		}
	}
	return s, ""
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}
