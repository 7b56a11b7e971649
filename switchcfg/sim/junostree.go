package sim

import (
	"fmt"
	"regexp"
	"strings"
)

// This file is the Junos configuration store: a schema of statements (the
// part of the Junos hierarchy fabricctl uses), a tree of configured
// statements, the "set"/"delete" parser and the three printers (curly braces,
// "| display set", "show | compare").

type jkind int

const (
	jContainer jkind = iota // kw { ... }
	jList                   // kw NAME { ... }  (or NAME { ... } when kw is "")
	jLeaf                   // kw VALUE;
	jFlag                   // kw;
	jLeafList               // kw [ V1 V2 ];
)

// jdef is one statement of the schema.
type jdef struct {
	kw   string
	kind jkind
	// re validates a leaf value, a leaf-list element or a list name.
	re *regexp.Regexp
	// keys, for lists keyed by keyword/value pairs ("loss-priority any
	// protocol any"), validate each pair's value.
	keys []jkey
	kids []*jdef
	// oneline prints entries on one line: "class fc0 queue-num 0;".
	oneline bool
}

type jkey struct {
	kw string
	re *regexp.Regexp
}

func anchored(re string) *regexp.Regexp { return regexp.MustCompile(`^(?:` + re + `)$`) }

func jctr(kw string, kids ...*jdef) *jdef { return &jdef{kw: kw, kind: jContainer, kids: kids} }
func jlist(kw, name string, kids ...*jdef) *jdef {
	return &jdef{kw: kw, kind: jList, re: anchored(name), kids: kids}
}
func jleaf(kw, val string) *jdef  { return &jdef{kw: kw, kind: jLeaf, re: anchored(val)} }
func jleafs(kw, val string) *jdef { return &jdef{kw: kw, kind: jLeafList, re: anchored(val)} }
func jflag(kw string) *jdef       { return &jdef{kw: kw, kind: jFlag} }
func (d *jdef) one() *jdef        { d.oneline = true; return d }

func (d *jdef) child(kw string) *jdef {
	for _, k := range d.kids {
		if k.kw == kw && kw != "" {
			return k
		}
	}
	return nil
}

// anonList returns the child list whose entries have no keyword (e.g. the
// profiles under drop-profiles), if any.
func (d *jdef) anonList() *jdef {
	for _, k := range d.kids {
		if k.kw == "" {
			return k
		}
	}
	return nil
}

func (d *jdef) index(k *jdef) int {
	for i, c := range d.kids {
		if c == k {
			return i
		}
	}
	return len(d.kids)
}

// jnode is one configured statement.
type jnode struct {
	def    *jdef
	name   string   // list entry name (or "kw1 v1 kw2 v2" for keyed lists); leaf value
	values []string // leaf-list elements
	kids   []*jnode
}

func (n *jnode) clone() *jnode {
	c := &jnode{def: n.def, name: n.name, values: append([]string(nil), n.values...)}
	for _, k := range n.kids {
		c.kids = append(c.kids, k.clone())
	}
	return c
}

// id identifies a child among its siblings.
func (n *jnode) id() string {
	if n.def.kind == jList {
		return n.def.kw + "\x00" + n.name
	}
	return n.def.kw
}

func (n *jnode) find(def *jdef, name string) *jnode {
	for _, k := range n.kids {
		if k.def == def && (def.kind != jList || k.name == name) {
			return k
		}
	}
	return nil
}

func (n *jnode) ensure(def *jdef, name string) *jnode {
	if k := n.find(def, name); k != nil {
		return k
	}
	k := &jnode{def: def, name: name}
	// Keep schema order between different statements; entries of one list
	// stay in the order they were configured.
	pos := len(n.kids)
	for i, c := range n.kids {
		if n.def.index(c.def) > n.def.index(def) {
			pos = i
			break
		}
	}
	n.kids = append(n.kids, nil)
	copy(n.kids[pos+1:], n.kids[pos:])
	n.kids[pos] = k
	return k
}

func (n *jnode) drop(k *jnode) {
	for i, c := range n.kids {
		if c == k {
			n.kids = append(n.kids[:i], n.kids[i+1:]...)
			return
		}
	}
}

// jSyntaxError says which token of a statement is wrong.
type jSyntaxError struct {
	tok int
	msg string
}

func (e *jSyntaxError) Error() string { return e.msg }

// tokenize splits a statement, keeping "[" and "]" as tokens and quoted
// strings whole.
func tokenize(s string) []string {
	var out []string
	var cur strings.Builder
	inQuote := false
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, cur.String())
			cur.Reset()
		}
	}
	for _, r := range s {
		switch {
		case r == '"':
			inQuote = !inQuote
		case inQuote:
			cur.WriteRune(r)
		case r == ' ' || r == '\t':
			flush()
		case r == '[' || r == ']':
			flush()
			out = append(out, string(r))
		default:
			cur.WriteRune(r)
		}
	}
	flush()
	return out
}

// set applies "set <tokens>" to root.
func jset(root *jnode, tokens []string) error {
	cur := root
	i := 0
	if len(tokens) == 0 {
		return &jSyntaxError{0, "missing argument."}
	}
	for i < len(tokens) {
		def, name, next, err := jresolve(cur.def, tokens, i)
		if err != nil {
			return err
		}
		switch def.kind {
		case jContainer, jList:
			cur = cur.ensure(def, name)
		case jFlag:
			cur.ensure(def, "")
		case jLeaf:
			cur.ensure(def, "").name = name
		case jLeafList:
			n := cur.ensure(def, "")
			for _, v := range strings.Fields(name) {
				if !containsStr(n.values, v) {
					n.values = append(n.values, v)
				}
			}
		}
		i = next
	}
	return nil
}

// jdelete applies "delete <tokens>" to root; deleting what is not there is
// reported as a warning, like Junos.
func jdelete(root *jnode, tokens []string) (warning string, err error) {
	cur := root
	i := 0
	if len(tokens) == 0 {
		root.kids = nil
		return "", nil
	}
	for i < len(tokens) {
		def, name, next, err := jresolveDelete(cur.def, tokens, i)
		if err != nil {
			return "", err
		}
		n := cur.find(def, name)
		if n == nil {
			return "warning: statement not found", nil
		}
		last := next >= len(tokens)
		switch {
		case last && def.kind == jLeafList && name != "":
			for _, v := range strings.Fields(name) {
				n.values = removeStr(n.values, v)
			}
			if len(n.values) == 0 {
				cur.drop(n)
			}
			return "", nil
		case last:
			cur.drop(n)
			return "", nil
		case def.kind == jContainer || def.kind == jList:
			cur = n
		default:
			return "", &jSyntaxError{next, "syntax error."}
		}
		i = next
	}
	return "", nil
}

// jresolve reads one statement element at tokens[i] under parent: it returns
// its schema definition, its name/value and the index after it.
func jresolve(parent *jdef, tokens []string, i int) (*jdef, string, int, error) {
	tok := tokens[i]
	def := parent.child(tok)
	if def == nil {
		if a := parent.anonList(); a != nil && a.re.MatchString(tok) {
			return a, tok, i + 1, nil
		}
		return nil, "", 0, &jSyntaxError{i, "syntax error."}
	}
	switch def.kind {
	case jContainer, jFlag:
		return def, "", i + 1, nil
	case jList:
		if len(def.keys) > 0 {
			var parts []string
			j := i + 1
			for _, k := range def.keys {
				if j >= len(tokens) {
					return nil, "", 0, &jSyntaxError{len(tokens), "missing argument."}
				}
				if tokens[j] != k.kw {
					return nil, "", 0, &jSyntaxError{j, "syntax error."}
				}
				if j+1 >= len(tokens) {
					return nil, "", 0, &jSyntaxError{len(tokens), "missing argument."}
				}
				if !k.re.MatchString(tokens[j+1]) {
					return nil, "", 0, &jSyntaxError{j + 1, "syntax error."}
				}
				parts = append(parts, k.kw, tokens[j+1])
				j += 2
			}
			return def, strings.Join(parts, " "), j, nil
		}
		fallthrough
	case jLeaf:
		if i+1 >= len(tokens) {
			return nil, "", 0, &jSyntaxError{len(tokens), "missing argument."}
		}
		if !def.re.MatchString(tokens[i+1]) {
			return nil, "", 0, &jSyntaxError{i + 1, "syntax error."}
		}
		return def, tokens[i+1], i + 2, nil
	case jLeafList:
		if i+1 >= len(tokens) {
			return nil, "", 0, &jSyntaxError{len(tokens), "missing argument."}
		}
		if tokens[i+1] != "[" {
			if !def.re.MatchString(tokens[i+1]) {
				return nil, "", 0, &jSyntaxError{i + 1, "syntax error."}
			}
			return def, tokens[i+1], i + 2, nil
		}
		var vals []string
		j := i + 2
		for ; j < len(tokens) && tokens[j] != "]"; j++ {
			if !def.re.MatchString(tokens[j]) {
				return nil, "", 0, &jSyntaxError{j, "syntax error."}
			}
			vals = append(vals, tokens[j])
		}
		if j >= len(tokens) || len(vals) == 0 {
			return nil, "", 0, &jSyntaxError{j, "syntax error."}
		}
		return def, strings.Join(vals, " "), j + 1, nil
	}
	return nil, "", 0, &jSyntaxError{i, "syntax error."}
}

// jresolveDelete is jresolve where leaves and leaf-lists may omit their value.
func jresolveDelete(parent *jdef, tokens []string, i int) (*jdef, string, int, error) {
	if def := parent.child(tokens[i]); def != nil && (def.kind == jLeaf || def.kind == jLeafList) && i+1 == len(tokens) {
		return def, "", i + 1, nil
	}
	def, name, next, err := jresolve(parent, tokens, i)
	if err == nil && def.kind == jLeaf {
		name = "" // a leaf is found by keyword; its value need not match
	}
	return def, name, next, err
}

func containsStr(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func removeStr(l []string, s string) []string {
	out := l[:0]
	for _, x := range l {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}

// head is how a statement starts: "kw", "kw name", "name" (anonymous list).
func (n *jnode) head() string {
	switch {
	case n.def.kind == jList && n.def.kw == "":
		return n.name
	case n.def.kind == jList:
		return n.def.kw + " " + n.name
	}
	return n.def.kw
}

// inline prints a statement without braces or semicolon.
func (n *jnode) inline() string {
	switch n.def.kind {
	case jLeaf:
		return n.def.kw + " " + n.name
	case jFlag:
		return n.def.kw
	case jLeafList:
		if len(n.values) == 1 {
			return n.def.kw + " " + n.values[0]
		}
		return n.def.kw + " [ " + strings.Join(n.values, " ") + " ]"
	}
	parts := []string{n.head()}
	for _, k := range n.kids {
		parts = append(parts, k.inline())
	}
	return strings.Join(parts, " ")
}

// curly prints the children of n in curly-brace form at depth.
func (n *jnode) curly(b *strings.Builder, depth int) {
	for _, k := range n.kids {
		k.curlyLines(func(l string) { b.WriteString(l + "\n") }, depth)
	}
}

// curlyLines emits the lines of one statement.
func (n *jnode) curlyLines(emit func(string), depth int) {
	pad := strings.Repeat("    ", depth)
	switch {
	case n.def.kind == jLeaf || n.def.kind == jFlag || n.def.kind == jLeafList:
		emit(pad + n.inline() + ";")
	case len(n.kids) == 0:
		emit(pad + n.head() + ";")
	case n.def.oneline:
		emit(pad + n.inline() + ";")
	default:
		emit(pad + n.head() + " {")
		for _, k := range n.kids {
			k.curlyLines(emit, depth+1)
		}
		emit(pad + "}")
	}
}

// setLines prints "set" statements for everything under n; prefix is n's path.
func (n *jnode) setLines(b *strings.Builder, prefix string) {
	for _, k := range n.kids {
		p := prefix + " " + k.head()
		switch k.def.kind {
		case jLeaf:
			b.WriteString(prefix + " " + k.def.kw + " " + k.name + "\n")
		case jFlag:
			b.WriteString(p + "\n")
		case jLeafList:
			for _, v := range k.values {
				b.WriteString(prefix + " " + k.def.kw + " " + v + "\n")
			}
		default:
			if len(k.kids) == 0 {
				b.WriteString(p + "\n")
				continue
			}
			k.setLines(b, p)
		}
	}
}

// lookup finds the node at a path of tokens ("class-of-service", "interfaces",
// "et-0/0/0"); nil when it is not configured.
func (n *jnode) lookup(tokens []string) (*jnode, error) {
	cur := n
	i := 0
	for i < len(tokens) {
		def, name, next, err := jresolve(cur.def, tokens, i)
		if err != nil {
			return nil, err
		}
		if def.kind != jContainer && def.kind != jList {
			return nil, &jSyntaxError{i, "syntax error."}
		}
		cur = cur.find(def, name)
		if cur == nil {
			return nil, nil
		}
		i = next
	}
	return cur, nil
}

// jcompare prints the "show | compare" of a (committed) and c (candidate):
// in configuration order, each changed statement under the "[edit ...]"
// header of its hierarchy level, "+" added, "-" removed.
func jcompare(b *strings.Builder, a, c *jnode, path []string) {
	last := ""
	jcompareAt(b, a, c, path, &last)
}

func jcompareAt(b *strings.Builder, a, c *jnode, path []string, last *string) {
	header := "[edit" + strings.TrimRight(" "+strings.Join(path, " "), " ") + "]"
	emit := func(op byte, n *jnode) {
		if *last != header {
			b.WriteString(header + "\n")
			*last = header
		}
		n.curlyLines(func(l string) { b.WriteString(string(op) + "   " + l + "\n") }, 0)
	}
	ids := map[string]bool{}
	for _, kc := range c.kids {
		ids[kc.id()] = true
	}
	// Removed statements first where they stood, then the candidate's order.
	for _, ka := range a.kids {
		if !ids[ka.id()] {
			emit('-', ka)
		}
	}
	for _, kc := range c.kids {
		ka := a.findID(kc.id())
		switch {
		case ka == nil:
			emit('+', kc)
		case kc.def.kind == jLeaf || kc.def.kind == jLeafList || kc.def.oneline:
			if ka.inline() != kc.inline() {
				emit('-', ka)
				emit('+', kc)
			}
		default:
			jcompareAt(b, ka, kc, append(append([]string(nil), path...), kc.head()), last)
		}
	}
}

func (n *jnode) findID(id string) *jnode {
	for _, k := range n.kids {
		if k.id() == id {
			return k
		}
	}
	return nil
}

// String is the curly form of the whole tree (for tests and errors).
func (n *jnode) String() string {
	var b strings.Builder
	n.curly(&b, 0)
	return b.String()
}

var _ fmt.Stringer = (*jnode)(nil)
