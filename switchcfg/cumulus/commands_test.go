package cumulus

// The tests' NVUE command reader: ParseCommands builds a Tree from `nv set`
// and `nv unset` lines (of NVUE's documentation, transcripts and what
// render writes), so that the tests can compare a rendering or a published
// command list with the configuration tree the driver reads back. The
// driver itself only reads trees (DecodeConfig) and `nv show` output.

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/switchcfg"
)

// idKind says how the identifiers of a collection are written and expanded.
type idKind int

const (
	idName  idKind = iota // a profile or pool name, taken as is
	idPrio                // 0..7, comma lists and ranges ("0-3,5")
	idDSCP                // 0..63, comma lists and ranges
	idIface               // NVUE interface ranges ("swp1-4,swp6", "swp1s0-3")
)

// snode is one level of the subset of NVUE's schema fabricctl renders and
// reads. Keywords not listed fall back to a generic rule (see walk).
type snode struct {
	kids map[string]*snode
	coll *snode // the next token names one or more members; continue there
	ids  idKind
	leaf bool // the next token is the value
}

func kw(kids map[string]*snode) *snode         { return &snode{kids: kids} }
func coll(ids idKind, member *snode) *snode    { return &snode{coll: member, ids: ids} }
func leaf() *snode                             { return &snode{leaf: true} }
func profiles(member map[string]*snode) *snode { return coll(idName, kw(member)) }
func empty() *snode                            { return kw(nil) }
func leaves(names ...string) map[string]*snode { return addLeaves(map[string]*snode{}, names...) }
func addLeaves(m map[string]*snode, names ...string) map[string]*snode {
	for _, n := range names {
		m[n] = leaf()
	}
	return m
}

// schema covers the QoS part of NVUE plus interface link/qos settings.
var schema = kw(map[string]*snode{
	"qos": kw(map[string]*snode{
		"roce": kw(leaves("enable", "mode")),
		"mapping": profiles(addLeaves(map[string]*snode{
			"dscp": coll(idDSCP, kw(leaves("switch-priority"))),
			"pcp":  coll(idPrio, kw(leaves("switch-priority"))),
		}, "trust", "port-default-sp")),
		"egress-queue-mapping": profiles(map[string]*snode{
			"switch-priority": coll(idPrio, kw(leaves("traffic-class"))),
		}),
		"pfc": profiles(addLeaves(map[string]*snode{
			"switch-priority": coll(idPrio, empty()),
		}, "cable-length", "tx", "rx", "port-buffer", "xoff-threshold", "xon-threshold")),
		"congestion-control": profiles(map[string]*snode{
			"traffic-class": coll(idPrio, kw(leaves("min-threshold", "max-threshold", "probability", "ecn", "red"))),
		}),
		"egress-scheduler": profiles(map[string]*snode{
			"traffic-class": coll(idPrio, kw(leaves("mode", "bw-percent"))),
		}),
		"pfc-watchdog": kw(leaves("polling-interval", "robustness")),
		"traffic-pool": profiles(addLeaves(map[string]*snode{
			"switch-priority": coll(idPrio, empty()),
		}, "memory-percent")),
	}),
	"interface": coll(idIface, kw(map[string]*snode{
		"link": kw(leaves("mtu", "state", "speed", "fec", "mac-address")),
		"ip":   kw(map[string]*snode{"address": coll(idName, empty())}),
		"bond": kw(map[string]*snode{"member": coll(idIface, empty())}),
		"qos": kw(map[string]*snode{
			"pfc-watchdog": kw(leaves("state")),
		}),
	})),
})

// Apply applies one `nv set …` or `nv unset …` command (without a prompt) to t.
// Ranges expand as NVUE expands them: "dscp 0-7", "traffic-class 0,3",
// "interface swp1-4". Bare containers ("nv set qos roce",
// "nv set interface swp1 qos pfc-watchdog") become empty objects.
func (t Tree) Apply(command string) error {
	f := strings.Fields(command)
	if len(f) < 3 || f[0] != "nv" || (f[1] != "set" && f[1] != "unset") {
		return fmt.Errorf("%w: %q is not an nv set/unset command", ErrSyntax, command)
	}
	unset := f[1] == "unset"
	if err := walk(map[string]any(t), schema, f[2:], unset); err != nil {
		return fmt.Errorf("%w: %q: %w", ErrSyntax, command, err)
	}
	return nil
}

// walk applies tokens below node n of the tree at m.
func walk(m map[string]any, n *snode, toks []string, unset bool) error {
	if len(toks) == 0 {
		return nil
	}
	if n == nil || (n.kids == nil && n.coll == nil) {
		return generic(m, toks, unset)
	}
	if n.coll != nil {
		ids, err := expandIDs(n.ids, toks[0])
		if err != nil {
			return err
		}
		for _, id := range ids {
			if err := step(m, id, n.coll, toks[1:], unset); err != nil {
				return err
			}
		}
		return nil
	}
	child, ok := n.kids[toks[0]]
	if !ok {
		return generic(m, toks, unset)
	}
	if child.leaf {
		if unset {
			delete(m, toks[0])
			return nil
		}
		if len(toks) != 2 {
			return fmt.Errorf("%s needs exactly one value", toks[0])
		}
		m[toks[0]] = toks[1]
		return nil
	}
	return step(m, toks[0], child, toks[1:], unset)
}

// step descends into key (creating it on set) and continues with rest.
func step(m map[string]any, key string, n *snode, rest []string, unset bool) error {
	if unset && len(rest) == 0 {
		delete(m, key)
		return nil
	}
	sub, ok := m[key].(map[string]any)
	if !ok {
		if unset {
			return nil
		}
		sub = map[string]any{}
		m[key] = sub
	}
	return walk(sub, n, rest, unset)
}

// generic handles keywords outside the schema the way most of NVUE reads:
// the last token is the value of the path before it, a single token is an
// empty container.
func generic(m map[string]any, toks []string, unset bool) error {
	if len(toks) == 1 {
		return step(m, toks[0], nil, nil, unset)
	}
	for _, k := range toks[:len(toks)-2] {
		sub, ok := m[k].(map[string]any)
		if !ok {
			if unset {
				return nil
			}
			sub = map[string]any{}
			m[k] = sub
		}
		m = sub
	}
	k, v := toks[len(toks)-2], toks[len(toks)-1]
	if unset {
		delete(m, k)
		return nil
	}
	m[k] = v
	return nil
}

func expandIDs(kind idKind, tok string) ([]string, error) {
	switch kind {
	case idPrio, idDSCP:
		max := 7
		if kind == idDSCP {
			max = 63
		}
		vals, err := switchcfg.ParseIntSet(tok, 0, max)
		if err != nil {
			return nil, err
		}
		if len(vals) == 0 {
			return nil, fmt.Errorf("empty list %q", tok)
		}
		out := make([]string, len(vals))
		for i, v := range vals {
			out[i] = strconv.Itoa(v)
		}
		return out, nil
	case idIface:
		return ExpandInterfaces(tok)
	}
	if tok == "" {
		return nil, errors.New("empty name")
	}
	return []string{tok}, nil
}

// ParseCommands builds a Tree from text holding `nv set` / `nv unset` lines,
// with or without a shell prompt before "nv" (as in documentation and
// transcripts). Other lines (output, `nv config apply`, comments) are skipped.
// Errors name the line number.
func ParseCommands(text string) (Tree, error) {
	t := Tree{}
	for i, line := range strings.Split(text, "\n") {
		cmd, ok := nvCommand(line)
		if !ok {
			continue
		}
		if err := t.Apply(cmd); err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
	}
	return t, nil
}

// nvCommand extracts "nv set …"/"nv unset …" from a line that may carry a
// prompt ("cumulus@switch:mgmt:~$ nv set …") or sudo.
func nvCommand(line string) (string, bool) {
	line = strings.TrimSpace(line)
	if strings.HasPrefix(line, "#") {
		return "", false
	}
	for _, marker := range []string{"nv set ", "nv unset "} {
		i := strings.Index(line, marker)
		if i < 0 {
			continue
		}
		prefix := strings.TrimSpace(line[:i])
		if prefix == "" || prefix == "sudo" || strings.HasSuffix(prefix, "$") || strings.HasSuffix(prefix, "#") ||
			strings.HasSuffix(prefix, "$ sudo") || strings.HasSuffix(prefix, "# sudo") {
			return strings.Join(strings.Fields(line[i:]), " "), true
		}
	}
	return "", false
}

// ShowJSON prints t the way `nv config show -o json` does: a header document
// and a set document. The fuzz tests check it encodes; header fields are fixed.
func (t Tree) ShowJSON() ([]byte, error) {
	docs := []map[string]any{
		{"header": map[string]any{"model": "fabricctl-sim", "nvue-api-version": "nvue_v1", "rev-id": "1.0.0", "version": "Cumulus Linux 5.14.0"}},
		{"set": map[string]any(t)},
	}
	return json.MarshalIndent(docs, "", "  ")
}
