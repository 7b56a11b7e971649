package sim

import (
	"errors"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// This file is the configuration store shared by the Cisco-style CLIs (EOS,
// NX-OS): a tree of statements where "mode" statements (interface, policy-map,
// tx-queue, ...) hold indented children, driven by a grammar of regular
// expressions per mode. Lines that no rule of the current mode (or of a parent
// mode, which the CLI falls back to) accepts are invalid input.

// cliRule is one statement a configuration mode accepts.
type cliRule struct {
	re *regexp.Regexp
	// key identifies the statement among its siblings; a new statement with
	// the same key replaces the old one ("mtu 1500" → "mtu 9214"). A template
	// with $1..$n; "" means the whole line.
	key string
	// enter is the submode a mode statement opens ("" for a leaf).
	enter string
	// suffix builds the submode's prompt suffix from the parent's.
	suffix func(parent string, m []string) string
	// hook stores the statement itself (maps folded across lines, e.g. EOS
	// "qos map dscp ... to traffic-class N"); it returns false when a negated
	// statement names nothing it knows.
	hook func(parent *cliNode, rank int, m []string, negate bool) bool
	// negRe matches the arguments of the "no" form when they differ from the
	// statement's (e.g. "no priority-flow-control priority 3"); key applies to it.
	negRe *regexp.Regexp
	// canon, when set, is the template of the line as the device stores and
	// prints it (NX-OS prints "class type qos X" as "class X").
	canon string
	// natural prints statements of this rule sorted by key (interfaces,
	// tx-queues); otherwise they keep the order they were entered in (classes
	// of a policy-map, whose order matters).
	natural bool
	// valued: the "no" form must name the values too (NX-OS `no match cos
	// 3`, `no pause pfc-cos 0`); a bare "no" of the statement is invalid.
	valued bool
}

// needsValues marks the rule's "no" form as taking the values (negRe).
func (r cliRule) needsValues(pattern string) cliRule {
	r = r.neg(pattern)
	r.valued = true
	return r
}

// sortedByKey marks the rule's statements as printed in natural key order.
func (r cliRule) sortedByKey() cliRule {
	r.natural = true
	return r
}

// as sets the stored form of the statement.
func (r cliRule) as(canon string) cliRule {
	r.canon = canon
	return r
}

// neg sets the pattern of the statement's "no" form.
func (r cliRule) neg(pattern string) cliRule {
	r.negRe = regexp.MustCompile(`^(?:` + pattern + `)$`)
	return r
}

// rule builds a cliRule from a pattern that must match the whole line.
func rule(pattern, key string) cliRule {
	return cliRule{re: regexp.MustCompile(`^(?:` + pattern + `)$`), key: key}
}

// block builds a mode statement.
func block(pattern, key, enter string, suffix func(string, []string) string) cliRule {
	r := rule(pattern, key)
	r.enter, r.suffix = enter, suffix
	return r
}

// fixedSuffix returns a suffix function that ignores the parent.
func fixedSuffix(s string) func(string, []string) string {
	return func(string, []string) string { return s }
}

// cliGrammar maps a mode name to the statements it accepts. The root mode is "global".
type cliGrammar map[string][]cliRule

// cliNode is one statement in the configuration tree.
type cliNode struct {
	line   string
	key    string
	rank   int    // index of the rule that made it, for canonical ordering
	mode   string // submode of a mode statement ("" for leaves; "global" for the root)
	suffix string // prompt suffix of that submode
	fixed  bool   // built in (a physical interface): "no" clears it instead of deleting
	sorted bool   // printed in natural key order among its rule's statements
	kids   []*cliNode
}

func newRoot() *cliNode { return &cliNode{mode: "global"} }

func (n *cliNode) clone() *cliNode {
	c := *n
	c.kids = make([]*cliNode, len(n.kids))
	for i, k := range n.kids {
		c.kids[i] = k.clone()
	}
	return &c
}

func (n *cliNode) find(key string) *cliNode {
	for _, k := range n.kids {
		if k.key == key {
			return k
		}
	}
	return nil
}

func (n *cliNode) remove(key string) bool {
	for i, k := range n.kids {
		if k.key == key {
			if k.fixed {
				k.kids = nil
				return true
			}
			n.kids = append(n.kids[:i], n.kids[i+1:]...)
			return true
		}
	}
	return false
}

// ordered returns the children in canonical order: by rule, then naturally
// by key where the rule says so, else in the order they were entered.
func (n *cliNode) ordered() []*cliNode {
	out := append([]*cliNode(nil), n.kids...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].rank != out[j].rank {
			return out[i].rank < out[j].rank
		}
		if out[i].sorted && out[j].sorted {
			return naturalLess(out[i].key, out[j].key)
		}
		return false
	})
	return out
}

// errInvalid and errIncomplete classify a rejected line; each platform prints
// its own message for them.
var (
	errInvalid    = errors.New("invalid input")
	errIncomplete = errors.New("incomplete command")
)

// cliCursor is where a configuring user stands: the path from the root to the
// current mode statement.
type cliCursor struct {
	stack []*cliNode
}

func (c *cliCursor) top() *cliNode { return c.stack[len(c.stack)-1] }

// suffix is the prompt suffix of the current mode.
func (c *cliCursor) suffix() string { return c.top().suffix }

// configure applies one configuration line at the cursor. It returns
// leave=true for "end" (or "exit" at the top), which leave configuration mode.
func (g cliGrammar) configure(c *cliCursor, raw string) (leave bool, err error) {
	line := strings.Join(strings.Fields(raw), " ")
	switch {
	case line == "" || strings.HasPrefix(line, "!"):
		return false, nil
	case line == "end":
		c.stack = c.stack[:1]
		return true, nil
	case line == "exit":
		if len(c.stack) == 1 {
			return true, nil
		}
		c.stack = c.stack[:len(c.stack)-1]
		return false, nil
	}
	body, negate := strings.CutPrefix(line, "no ")
	if !negate {
		body, negate = strings.CutPrefix(line, "default ")
	}
	incomplete := false
	for depth := len(c.stack) - 1; depth >= 0; depth-- {
		parent := c.stack[depth]
		rules := g[parent.mode]
		for i, r := range rules {
			m := r.re.FindStringSubmatch(line)
			if m == nil {
				if r.re.MatchString(line+" x") || prefixOfRule(r, line) {
					incomplete = true
				}
				continue
			}
			c.stack = c.stack[:depth+1]
			if !g.put(c, parent, i, r, line, m) {
				return false, errInvalid
			}
			return false, nil
		}
		if !negate {
			continue
		}
		if g.negate(parent, rules, body) {
			c.stack = c.stack[:depth+1]
			return false, nil
		}
	}
	if incomplete {
		return false, errIncomplete
	}
	return false, errInvalid
}

// negate removes what "no <body>" names under parent: a statement matching a
// rule (or its no-form) exactly wins over the longest literal key prefix.
func (g cliGrammar) negate(parent *cliNode, rules []cliRule, body string) bool {
	for i, r := range rules {
		m := r.re.FindStringSubmatch(body)
		if m == nil && r.negRe != nil {
			m = r.negRe.FindStringSubmatch(body)
		}
		if m == nil {
			continue
		}
		if r.hook != nil {
			if r.hook(parent, i, m, true) {
				return true
			}
			continue
		}
		key := body
		if r.key != "" {
			key = expand(r.key, m)
		}
		parent.remove(key)
		return true
	}
	best := ""
	for _, r := range rules {
		if r.key == "" || strings.Contains(r.key, "$") || r.hook != nil || r.valued {
			continue
		}
		if (body == r.key || strings.HasPrefix(body, r.key+" ")) && len(r.key) > len(best) {
			best = r.key
		}
	}
	if best == "" {
		return false
	}
	parent.remove(best)
	return true
}

// prefixOfRule reports whether line is the literal start of r's key, i.e. a
// statement that stops before its arguments ("mtu").
func prefixOfRule(r cliRule, line string) bool {
	lit, _, _ := strings.Cut(r.key, "$")
	lit = strings.TrimSpace(lit)
	return lit != "" && lit == line && !r.re.MatchString(line)
}

// put stores a matched statement under parent and moves the cursor into it
// when it opens a mode.
func (g cliGrammar) put(c *cliCursor, parent *cliNode, rank int, r cliRule, line string, m []string) bool {
	if r.hook != nil {
		return r.hook(parent, rank, m, false)
	}
	key := line
	if r.key != "" {
		key = expand(r.key, m)
	}
	if r.canon != "" {
		line = expand(r.canon, m)
	}
	n := parent.find(key)
	if n == nil {
		n = &cliNode{line: line, key: key, rank: rank, mode: r.enter, sorted: r.natural}
		if r.enter != "" {
			n.suffix = r.suffix(parent.suffix, m)
		}
		parent.kids = append(parent.kids, n)
	} else if r.enter == "" {
		n.line, n.rank = line, rank
	}
	if r.enter != "" {
		c.stack = append(c.stack, n)
	}
	return true
}

// expand replaces $1..$9 in tmpl with the submatches m.
func expand(tmpl string, m []string) string {
	var b strings.Builder
	for i := 0; i < len(tmpl); i++ {
		if tmpl[i] == '$' && i+1 < len(tmpl) && isDigit(tmpl[i+1]) {
			if n := int(tmpl[i+1] - '0'); n < len(m) {
				b.WriteString(m[n])
			}
			i++
			continue
		}
		b.WriteByte(tmpl[i])
	}
	return b.String()
}

// render prints the tree with indent spaces per level; sep decides what goes
// between top-level statements ("!" for EOS, "" for NX-OS blank lines).
func (n *cliNode) render(b *strings.Builder, indent int, sep func(prev, cur *cliNode) (string, bool), nested string) {
	var prev *cliNode
	for _, k := range n.ordered() {
		if s, ok := sep(prev, k); ok {
			b.WriteString(s)
			b.WriteByte('\n')
		}
		k.write(b, 0, indent, nested)
		prev = k
	}
}

// write prints one statement and its children; nested (e.g. "!" for EOS) is
// printed before each nested mode statement.
func (n *cliNode) write(b *strings.Builder, depth, indent int, nested string) {
	pad := strings.Repeat(" ", depth*indent)
	b.WriteString(pad + n.line + "\n")
	for _, k := range n.ordered() {
		if k.mode != "" && nested != "" {
			b.WriteString(strings.Repeat(" ", (depth+1)*indent) + nested + "\n")
		}
		k.write(b, depth+1, indent, nested)
	}
}

// naturalLess orders strings with digit runs compared as numbers
// ("Ethernet2" < "Ethernet10").
func naturalLess(a, b string) bool {
	for a != "" && b != "" {
		ad, bd := isDigit(a[0]), isDigit(b[0])
		if ad && bd {
			ea, eb := digitRun(a), digitRun(b)
			na, _ := strconv.Atoi(a[:ea])
			nb, _ := strconv.Atoi(b[:eb])
			if na != nb {
				return na < nb
			}
			a, b = a[ea:], b[eb:]
			continue
		}
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func digitRun(s string) int {
	i := 0
	for i < len(s) && isDigit(s[i]) && i < 18 {
		i++
	}
	return i
}

// mapHook folds statements of the form "<prefix> <values...> to <target> <t>"
// into one line per target, moving a value that is mapped again (EOS keeps
// one mapping per DSCP/CoS/traffic class and prints them grouped by target).
func mapHook(prefix, target string, maxValue int) func(*cliNode, int, []string, bool) bool {
	return func(parent *cliNode, rank int, m []string, negate bool) bool {
		vals := map[int]bool{}
		for _, f := range strings.Fields(m[1]) {
			v, err := strconv.Atoi(f)
			if err != nil || v < 0 || v > maxValue {
				return false
			}
			vals[v] = true
		}
		to := m[2]
		keyOf := func(t string) string { return prefix + " -> " + target + " " + t }
		// Remove the values from every group (a value maps to one target).
		changed := false
		for _, k := range append([]*cliNode(nil), parent.kids...) {
			t, ok := strings.CutPrefix(k.key, prefix+" -> "+target+" ")
			if !ok {
				continue
			}
			if negate && to != "" && t != to {
				continue
			}
			cur := mapValues(k.line, prefix)
			kept := cur[:0]
			for _, v := range cur {
				if vals[v] {
					changed = true
					continue
				}
				kept = append(kept, v)
			}
			if len(kept) == 0 {
				parent.remove(k.key)
			} else {
				k.line = mapLine(prefix, kept, target, t)
			}
		}
		if negate {
			return changed || to != ""
		}
		n := parent.find(keyOf(to))
		var cur []int
		if n != nil {
			cur = mapValues(n.line, prefix)
		} else {
			n = &cliNode{key: keyOf(to), rank: rank, sorted: true}
			parent.kids = append(parent.kids, n)
		}
		for v := range vals {
			cur = append(cur, v)
		}
		sort.Ints(cur)
		n.line = mapLine(prefix, cur, target, to)
		return true
	}
}

func mapValues(line, prefix string) []int {
	rest := strings.TrimPrefix(line, prefix+" ")
	rest, _, _ = strings.Cut(rest, " to ")
	var out []int
	for _, f := range strings.Fields(rest) {
		if v, err := strconv.Atoi(f); err == nil {
			out = append(out, v)
		}
	}
	sort.Ints(out)
	return out
}

func mapLine(prefix string, vals []int, target, to string) string {
	s := make([]string, len(vals))
	for i, v := range vals {
		s[i] = strconv.Itoa(v)
	}
	return prefix + " " + strings.Join(s, " ") + " to " + target + " " + to
}
