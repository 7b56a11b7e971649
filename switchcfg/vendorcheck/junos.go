package vendorcheck

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Junos configuration checked against Juniper's published configuration
// YANG (github.com/Juniper/yang, the `conf` models of one release and
// family): set statements are walked down libyang's compiled schema of the
// `configuration` root, which tells containers, lists and their keys,
// leaves (`empty` ones take no value) and leaf-lists (`[ a b ]`) apart; the
// result is Junos XML configuration that `yanglint -t config` validates
// (unknown keywords, value types, ranges, patterns, enumerations,
// duplicate leaf-list values). Every error names the statement and its
// line.
//
// The CLI writes some leaves without their keyword (`classifiers dscp
// NAME` is dscp/classifier-name): the family's conf-with-extensions models
// mark them `junos:cli-feature "nokeyword"`, and the walk reads those
// marks there. It also elides some list names (`interfaces et-0/0/0 mtu
// 9216` is interfaces/interface[name=et-0/0/0]): a word that names no child
// of a container holding exactly one list (apply-macro aside), or one list
// named like the container without its final s, is taken as that list's
// key.
//
// YANG cannot see Juniper's commit-time rules (junos:must, references
// between classifiers, schedulers and maps, per-platform limits); they live
// in the device's mgd.

// JunosFamily is one family of Juniper's configuration models in the
// junos-yang folder of the validators.
type JunosFamily struct {
	// Name is the family in words.
	Name string
	// Dir and ExtDir are the folders of its conf models and of their
	// conf-with-extensions twins (CLI keyword hints).
	Dir, ExtDir string
	// Module is the prefix of the modules' names: <Module>-conf-root,
	// <Module>-conf-class-of-service, ...
	Module string
	// Gaps are statement paths the OS takes but the family's models lack;
	// a finding on exactly such a path (the word after the prefix named
	// no keyword) is marked Gap, not hidden.
	Gaps [][]string
}

var (
	// JunosQFX is classic Junos on the QFX5100/5110/5120/5200/5210.
	JunosQFX = JunosFamily{Name: "Junos (classic QFX)", Dir: "qfx", ExtDir: "qfx-ext", Module: "junos-qfx"}
	// JunosEVO is Junos OS Evolved (QFX5130/5220/5230/5240). Its 24.4R1
	// models lack `class-of-service shared-buffer ingress|egress`, which
	// the OS takes and Juniper's own validated designs for the QFX5240
	// write (JVD aiml_multitenancy_backend rdma-rocev2-lossless.conf): those
	// two paths, and nothing else, are gaps.
	JunosEVO = JunosFamily{Name: "Junos OS Evolved", Dir: "evo", ExtDir: "evo-ext", Module: "junos",
		Gaps: [][]string{{"class-of-service", "shared-buffer", "ingress"}, {"class-of-service", "shared-buffer", "egress"}}}
)

// JunosStanzas are the top-level hierarchies a JunosSchema loads: the ones
// fabricctl writes. Statements of other hierarchies are counted as
// unchecked.
var JunosStanzas = []string{"class-of-service", "interfaces"}

// JunosFinding is one error in a Junos configuration.
type JunosFinding struct {
	// Line is the statement's line in the text; Statement its text
	// (verb and words).
	Line      int
	Statement string
	// Message says what is wrong: a word that is no keyword where it
	// stands, or libyang's error on the value (with its schema path).
	Message string
	// Gap: the statement lies on one of the family's Gaps.
	Gap bool
}

func (f JunosFinding) String() string {
	if f.Line == 0 {
		return "whole configuration: " + f.Message
	}
	return fmt.Sprintf("line %d: %s: %s", f.Line, f.Statement, f.Message)
}

// JunosResult is what Check found in one configuration.
type JunosResult struct {
	// Checked counts the statements checked; Unchecked the lines of
	// statements outside JunosStanzas.
	Checked   int
	Unchecked []int
	Findings  []JunosFinding
}

// Errors are the findings that are not on a Gap.
func (r JunosResult) Errors() []JunosFinding {
	var out []JunosFinding
	for _, f := range r.Findings {
		if !f.Gap {
			out = append(out, f)
		}
	}
	return out
}

// JunosSchema is one family's configuration schema, loaded for checking.
// Its methods are safe for concurrent use.
type JunosSchema struct {
	Family  JunosFamily
	y       Yanglint
	dir     string
	modules []string
	rootNS  string
	// top is the configuration root with the stanzas as children.
	top *Node
	ext *junosExt
}

// LoadJunosSchema compiles the family's models under root (the
// validators' junos-yang folder) with y.
func LoadJunosSchema(ctx context.Context, y Yanglint, root string, f JunosFamily) (*JunosSchema, error) {
	dir := filepath.Join(root, f.Dir)
	rootFile, err := junosModuleFile(dir, f.Module+"-conf-root")
	if err != nil {
		return nil, err
	}
	rootNS, err := junosNamespace(rootFile)
	if err != nil {
		return nil, err
	}
	s := &JunosSchema{Family: f, y: y, dir: dir, modules: []string{rootFile}, rootNS: rootNS,
		top: &Node{Kind: "container", Name: "configuration", NS: rootNS},
		ext: &junosExt{groupings: map[string]*stmt{}, kids: map[*stmt]map[string]*stmt{}}}
	extTop := &stmt{}
	for _, st := range JunosStanzas {
		mod := f.Module + "-conf-" + st
		file, err := junosModuleFile(dir, mod)
		if err != nil {
			return nil, err
		}
		ns, err := junosNamespace(file)
		if err != nil {
			return nil, err
		}
		m, err := y.Compile(ctx, dir, "/"+f.Module+"-conf-root:configuration/"+mod+":"+st, rootFile, file)
		if err != nil {
			return nil, fmt.Errorf("loading %s: %w", f.Name, err)
		}
		if len(m.Top) != 1 || m.Top[0].Name != st {
			return nil, fmt.Errorf("loading %s: %s compiled to no %s container", f.Name, mod, st)
		}
		junosSetNS(m.Top[0], ns)
		s.top.Children = append(s.top.Children, m.Top[0])
		s.modules = append(s.modules, file)

		extFile, err := junosModuleFile(filepath.Join(root, f.ExtDir), mod)
		if err != nil {
			return nil, err
		}
		src, err := os.ReadFile(extFile)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", f.Name, err)
		}
		x, err := parseYANG(string(src))
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", extFile, err)
		}
		junosGroupings(x, s.ext.groupings, 0)
		for _, a := range x.subs {
			// augment /jc:configuration (not .../jc:groups): the stanza.
			if a.kw == "augment" && strings.HasSuffix(a.arg, ":configuration") {
				extTop.subs = append(extTop.subs, a)
			}
		}
	}
	s.ext.top = extTop
	return s, nil
}

func junosModuleFile(dir, name string) (string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return "", fmt.Errorf("finding module %s: %w", name, err)
	}
	for _, e := range ents {
		if n := e.Name(); n == name+".yang" || strings.HasPrefix(n, name+"@") {
			return filepath.Join(dir, n), nil
		}
	}
	return "", fmt.Errorf("finding module %s: none in %s", name, dir)
}

var junosNamespaceRE = regexp.MustCompile(`(?m)^\s*namespace\s+"([^"]+)"`)

func junosNamespace(file string) (string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("reading a module's namespace: %w", err)
	}
	m := junosNamespaceRE.FindSubmatch(b)
	if m == nil {
		return "", fmt.Errorf("reading a module's namespace: none in %s", file)
	}
	return string(m[1]), nil
}

// junosSetNS gives a stanza's nodes its module's namespace (a compiled subtree
// print names none; a stanza module augments only the root).
func junosSetNS(n *Node, ns string) {
	n.NS = ns
	for _, c := range n.Children {
		junosSetNS(c, ns)
	}
}

// junosExt reads the CLI hints of the conf-with-extensions models: their
// source statements, groupings resolved on demand.
type junosExt struct {
	top       *stmt
	groupings map[string]*stmt
	mu        sync.Mutex
	kids      map[*stmt]map[string]*stmt
}

func junosGroupings(s *stmt, into map[string]*stmt, depth int) {
	if depth > 64 {
		return
	}
	for _, c := range s.subs {
		if c.kw == "grouping" {
			if _, dup := into[c.arg]; !dup {
				into[c.arg] = c
			}
		}
		junosGroupings(c, into, depth+1)
	}
}

// child is the source statement of data node name below s (through uses,
// choice, case and augment), or nil; nil s has no children.
func (x *junosExt) child(s *stmt, name string) *stmt {
	if s == nil {
		return nil
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	k, ok := x.kids[s]
	if !ok {
		k = map[string]*stmt{}
		x.expand(s, k, 0)
		x.kids[s] = k
	}
	return k[name]
}

func (x *junosExt) expand(s *stmt, into map[string]*stmt, depth int) {
	if depth > 64 {
		return
	}
	for _, c := range s.subs {
		switch c.kw {
		case "container", "list", "leaf", "leaf-list":
			if _, dup := into[c.arg]; !dup {
				into[c.arg] = c
			}
		case "uses":
			name := c.arg
			if i := strings.LastIndexByte(name, ':'); i >= 0 {
				name = name[i+1:]
			}
			if g := x.groupings[name]; g != nil {
				x.expand(g, into, depth+1)
			}
		case "choice", "case", "augment":
			x.expand(c, into, depth+1)
		}
	}
}

// nokeyword says the CLI writes the leaf's value without its keyword.
func junosNokeyword(s *stmt) bool {
	if s == nil {
		return false
	}
	for _, c := range s.subs {
		if strings.HasSuffix(c.kw, ":cli-feature") && c.arg == "nokeyword" {
			return true
		}
	}
	return false
}

// junosStatement is one set or delete statement of a configuration.
type junosStatement struct {
	line  int
	verb  string
	words []string
}

func (s junosStatement) String() string {
	var b strings.Builder
	b.WriteString(s.verb)
	for _, w := range s.words {
		b.WriteByte(' ')
		if w == "" || strings.ContainsAny(w, " \t\"{};") {
			b.WriteString(strconv.Quote(w))
		} else {
			b.WriteString(w)
		}
	}
	return b.String()
}

// junosStatements reads configuration text: set and delete statements
// (`| display set`), else curly braces (`show configuration`), flattened
// the way `| display set` does. Comments (#, /* */) and the inactive: and
// protect: marks are skipped.
func junosStatements(text string) ([]junosStatement, error) {
	toks, err := junosTokens(text)
	if err != nil {
		return nil, err
	}
	setForm := false
	for i, t := range toks {
		if (t.text == "set" || t.text == "delete") && !t.quoted && (i == 0 || toks[i-1].line != t.line) {
			setForm = true
			break
		}
	}
	var out []junosStatement
	if setForm {
		for i := 0; i < len(toks); {
			j := i
			for j < len(toks) && toks[j].line == toks[i].line {
				j++
			}
			v := toks[i]
			if v.quoted || (v.text != "set" && v.text != "delete") || j == i+1 {
				// deactivate, insert, a bare set or a stray line: not
				// checked, so not passed over in silence either.
				return nil, fmt.Errorf("line %d: %q is no set or delete statement this checker reads", v.line, v.text)
			}
			st := junosStatement{line: v.line, verb: v.text}
			for _, t := range toks[i+1 : j] {
				st.words = append(st.words, t.text)
			}
			out = append(out, st)
			i = j
		}
		return out, nil
	}
	var stack [][]string
	var words []string
	line := 0
	for _, t := range toks {
		switch {
		case !t.quoted && t.text == "{":
			stack = append(stack, words)
			words = nil
		case !t.quoted && t.text == "}":
			if len(stack) == 0 {
				return nil, fmt.Errorf("line %d: unbalanced }", t.line)
			}
			if len(words) > 0 {
				return nil, fmt.Errorf("line %d: statement %q not ended by ;", line, strings.Join(words, " "))
			}
			stack = stack[:len(stack)-1]
			words = nil
		case !t.quoted && t.text == ";":
			var all []string
			for _, s := range stack {
				all = append(all, s...)
			}
			if len(words) > 0 {
				out = append(out, junosStatement{line: line, verb: "set", words: append(all, words...)})
			}
			words = nil
		default:
			if len(words) == 0 {
				line = t.line
				if !t.quoted && (t.text == "inactive:" || t.text == "protect:") {
					continue
				}
			}
			words = append(words, t.text)
		}
	}
	if len(stack) != 0 {
		return nil, errors.New("unclosed {")
	}
	if len(words) > 0 {
		return nil, fmt.Errorf("line %d: statement %q not ended by ;", line, strings.Join(words, " "))
	}
	return out, nil
}

type junosToken struct {
	text   string
	line   int
	quoted bool
}

// junosTokens splits text into words, quoted strings (unquoted), and {, }
// and ; (set statements carry none of them outside quotes).
func junosTokens(text string) ([]junosToken, error) {
	var out []junosToken
	line := 1
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '\n':
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '#':
			for i < len(text) && text[i] != '\n' {
				i++
			}
		case strings.HasPrefix(text[i:], "/*"):
			end := strings.Index(text[i+2:], "*/")
			if end < 0 {
				return nil, fmt.Errorf("line %d: unclosed /* comment", line)
			}
			line += strings.Count(text[i:i+2+end], "\n")
			i += end + 4
		case c == '"':
			var b strings.Builder
			start := line
			i++
			for ; i < len(text) && text[i] != '"'; i++ {
				if text[i] == '\\' && i+1 < len(text) {
					i++
				}
				if text[i] == '\n' {
					line++
				}
				b.WriteByte(text[i])
			}
			if i >= len(text) {
				return nil, fmt.Errorf("line %d: unclosed quote", start)
			}
			i++
			out = append(out, junosToken{text: b.String(), line: start, quoted: true})
		case c == '{' || c == '}' || c == ';':
			out = append(out, junosToken{text: string(c), line: line})
			i++
		default:
			j := i
			for j < len(text) && !strings.ContainsRune(" \t\r\n{};\"", rune(text[j])) {
				j++
			}
			out = append(out, junosToken{text: text[i:j], line: line})
			i = j
		}
	}
	return out, nil
}

// junosData is a node of the instance data being built: a container, list
// entry, leaf or leaf-list value, and the statement that made it.
type junosData struct {
	s     *Node
	keys  []string
	value string
	owner int
	kids  []*junosData
	index map[string]*junosData
}

func (d *junosData) get(s *Node, keys []string, owner int) *junosData {
	id := s.Name + "\x00" + strings.Join(keys, "\x00")
	if c := d.index[id]; c != nil {
		return c
	}
	c := &junosData{s: s, keys: keys, owner: owner}
	if d.index == nil {
		d.index = map[string]*junosData{}
	}
	d.index[id] = c
	d.kids = append(d.kids, c)
	return c
}

// junosWalkError is a statement whose word at index word names nothing.
type junosWalkError struct {
	word int
	msg  string
}

func (e *junosWalkError) Error() string { return e.msg }

// walk applies the statement's words below the configuration root,
// adding to data (nil: only resolve the path, as a delete does; a delete
// may stop before a key or value).
func (s *JunosSchema) walk(words []string, data *junosData, owner int) error {
	node, ext := s.top, s.ext.top
	cur := data
	del := data == nil
	var path []string
	for i := 0; i < len(words); {
		w := words[i]
		kids := node.Flat("container", "list", "leaf", "leaf-list")
		c := junosChild(kids, w)
		if c == nil && w != "" && w[0] >= '0' && w[0] <= '9' {
			c = junosChild(kids, "ieee-"+w) // YANG names start with a letter: 802.3ad is ieee-802.3ad
		}
		keyword := true
		if c == nil && i > 0 {
			var nk []*Node
			for _, k := range kids {
				if (k.Kind == "leaf" || k.Kind == "leaf-list") && !(node.Kind == "list" && contains(node.Keys, k.Name)) && junosNokeyword(s.ext.child(ext, k.Name)) {
					nk = append(nk, k)
				}
			}
			if len(nk) == 1 {
				c, keyword = nk[0], false
			}
		}
		if c == nil && node.Kind == "container" && i > 0 {
			var lists []*Node
			for _, k := range kids {
				if k.Kind == "list" && k.Name != "apply-macro" {
					lists = append(lists, k)
				}
			}
			if len(lists) > 1 {
				var named []*Node
				for _, l := range lists {
					if l.Name+"s" == node.Name {
						named = append(named, l)
					}
				}
				lists = named
			}
			if len(lists) == 1 && len(lists[0].Keys) == 1 {
				c, keyword = lists[0], false
			}
		}
		if c == nil {
			where := "the configuration root"
			if len(path) > 0 {
				where = strings.Join(path, " ")
			}
			return &junosWalkError{word: i, msg: fmt.Sprintf("%q is no keyword under %s", w, where)}
		}
		j := i
		if keyword {
			j++
		}
		ext = s.ext.child(ext, c.Name)
		switch c.Kind {
		case "container":
			if !del {
				cur = cur.get(c, nil, owner)
			}
			node, path, i = c, append(path, words[i:j]...), j
		case "list":
			var keys []string
			if len(c.Keys) == 1 {
				if j >= len(words) {
					if del {
						return nil
					}
					return &junosWalkError{word: j, msg: fmt.Sprintf("%s needs a %s", c.Name, c.Keys[0])}
				}
				keys = []string{words[j]}
				j++
			} else {
				for _, k := range c.Keys {
					if j+1 >= len(words) || words[j] != k {
						if del && j >= len(words) {
							return nil
						}
						return &junosWalkError{word: j, msg: fmt.Sprintf("%s needs \"%s <value>\" (keys: %s)", c.Name, k, strings.Join(c.Keys, " "))}
					}
					keys = append(keys, words[j+1])
					j += 2
				}
			}
			if !del {
				cur = cur.get(c, keys, owner)
			}
			node, path, i = c, append(path, words[i:j]...), j
		case "leaf":
			if c.Type == "empty" {
				if !del {
					cur.get(c, nil, owner).owner = owner
				}
				i = j
				continue
			}
			if j >= len(words) || words[j] == "[" || words[j] == "]" {
				if del && j >= len(words) {
					return nil
				}
				return &junosWalkError{word: j, msg: fmt.Sprintf("%s needs a value", strings.Join(append(path, c.Name), " "))}
			}
			if !del {
				l := cur.get(c, nil, owner)
				l.value, l.owner = words[j], owner
			}
			i = j + 1
		case "leaf-list":
			var vals []string
			switch {
			case j < len(words) && words[j] == "[":
				end := j + 1
				for end < len(words) && words[end] != "]" {
					end++
				}
				if end >= len(words) {
					return &junosWalkError{word: j, msg: "[ without ]"}
				}
				vals, i = words[j+1:end], end+1
			case j < len(words):
				vals, i = words[j:j+1], j+1
			default:
				if del {
					return nil
				}
				return &junosWalkError{word: j, msg: fmt.Sprintf("%s needs a value", strings.Join(append(path, c.Name), " "))}
			}
			if !del {
				for _, v := range vals {
					// Every value is kept, repeated ones too: the
					// schema decides (a leaf-list's values are unique).
					cur.kids = append(cur.kids, &junosData{s: c, value: v, owner: owner})
				}
			}
		default:
			return &junosWalkError{word: i, msg: fmt.Sprintf("%q is a %s, which no statement writes", w, c.Kind)}
		}
	}
	return nil
}

func junosChild(kids []*Node, name string) *Node {
	for _, k := range kids {
		if k.Name == name {
			return k
		}
	}
	return nil
}

// toXML writes the data tree as Junos XML configuration, and which
// statement (owner) made each line.
func (s *JunosSchema) toXML(root *junosData) ([]byte, []int) {
	var build func(d *junosData) *Elem
	build = func(d *junosData) *Elem {
		e := &Elem{Name: d.s.Name, NS: d.s.NS, Text: d.value}
		for i, k := range d.keys {
			e.Add(d.s.Keys[i], "", k)
		}
		for _, c := range d.kids {
			e.Children = append(e.Children, build(c))
		}
		return e
	}
	doc := build(root)
	// Elem.XML writes an element with children on an opening and a
	// closing line, one without on one line.
	owners := []int{-1} // line 0
	var lay func(d *junosData)
	lay = func(d *junosData) {
		owners = append(owners, d.owner)
		if len(d.keys)+len(d.kids) == 0 {
			return
		}
		for range d.keys {
			owners = append(owners, d.owner)
		}
		for _, c := range d.kids {
			lay(c)
		}
		owners = append(owners, d.owner)
	}
	lay(root)
	return doc.XML(), owners
}

var junosDiagLine = regexp.MustCompile(`,? ?line number (\d+)`)

// Check checks one configuration (set statements or curly text).
func (s *JunosSchema) Check(ctx context.Context, text string) (JunosResult, error) {
	r, err := s.CheckAll(ctx, []string{text})
	if err != nil {
		return JunosResult{}, err
	}
	return r[0], nil
}

// CheckAll checks configurations; more than one are validated together,
// each in a configuration group of its own (`groups cN class-of-service
// …`, the same schema as the root's), so yanglint runs once for all of
// them while none fails.
func (s *JunosSchema) CheckAll(ctx context.Context, texts []string) ([]JunosResult, error) {
	docs := make([][]junosStatement, len(texts))
	res := make([]JunosResult, len(texts))
	for i, t := range texts {
		st, err := junosStatements(t)
		if err != nil {
			return nil, fmt.Errorf("reading configuration %d: %w", i+1, err)
		}
		docs[i] = st
	}
	return res, s.check(ctx, docs, res)
}

// junosRef is a statement of one configuration.
type junosRef struct{ doc, st int }

func (s *JunosSchema) check(ctx context.Context, docs [][]junosStatement, res []JunosResult) error {
	var refs []junosRef
	excluded := map[int]bool{}
	stanza := map[string]bool{}
	for _, st := range JunosStanzas {
		stanza[st] = true
	}
	find := func(r junosRef, msg string, gap bool) {
		st := docs[r.doc][r.st]
		res[r.doc].Findings = append(res[r.doc].Findings, JunosFinding{Line: st.line, Statement: st.String(), Message: msg, Gap: gap})
	}
	for d, doc := range docs {
		for i, st := range doc {
			if !stanza[st.words[0]] {
				res[d].Unchecked = append(res[d].Unchecked, st.line)
				continue
			}
			res[d].Checked++
			r := junosRef{d, i}
			var data *junosData
			if st.verb == "set" {
				data = &junosData{s: s.top}
			}
			if err := s.walk(st.words, data, 0); err != nil {
				var we *junosWalkError
				gap := errors.As(err, &we) && s.isGap(st.words, we.word)
				find(r, err.Error(), gap)
				continue
			}
			if st.verb == "set" {
				refs = append(refs, r)
			}
		}
	}
	batch := len(docs) > 1
	alone := map[int]bool{} // configurations to check alone
	for iter := 0; iter <= len(refs); iter++ {
		root := &junosData{s: s.top, owner: -1}
		groups := &Node{Kind: "list", Name: "groups", NS: s.rootNS, Keys: []string{"name"}, Children: s.top.Children}
		for k, r := range refs {
			if excluded[k] || alone[r.doc] {
				continue
			}
			at := root
			if batch {
				at = root.get(groups, []string{junosGroupName(r.doc)}, -1)
			}
			if err := s.walk(docs[r.doc][r.st].words, at, k); err != nil {
				return fmt.Errorf("checking %s: walking a statement twice: %w", s.Family.Name, err)
			}
		}
		xml, owners := s.toXML(root)
		if n := bytes.Count(xml, []byte("\n")); n != len(owners)-1 {
			return fmt.Errorf("checking %s: %d XML lines, %d laid out", s.Family.Name, n, len(owners)-1)
		}
		diags, err := s.y.Validate(ctx, s.dir, s.modules, xml)
		if err != nil {
			return fmt.Errorf("checking %s: %w", s.Family.Name, err)
		}
		if len(diags) == 0 {
			break
		}
		progress := false
		for _, dg := range diags {
			msg := junosDiagLine.ReplaceAllString(dg.Message, "")
			if m := junosDiagLine.FindStringSubmatch(dg.Message); m != nil {
				if n, _ := strconv.Atoi(m[1]); n > 0 && n < len(owners) && owners[n] >= 0 && !excluded[owners[n]] {
					k := owners[n]
					find(refs[k], msg, false)
					excluded[k] = true
					progress = true
					continue
				}
			}
			if batch {
				if d, ok := junosGroupOf(dg.Path + " " + dg.Message); ok && d < len(docs) && !alone[d] {
					alone[d] = true
					progress = true
					continue
				}
			}
			// No line: find the statements that fail alone.
			if !batch {
				found, err := s.isolate(ctx, refs, excluded, docs, func(k int, m string) { find(refs[k], m, false) })
				if err != nil {
					return err
				}
				if !found {
					res[0].Findings = append(res[0].Findings, JunosFinding{Message: msg})
				}
				return nil
			}
			// Told of no configuration: check each alone.
			for d := range docs {
				alone[d] = true
			}
			progress = true
		}
		if !progress {
			break
		}
	}
	var docsAlone []int
	for d := range alone {
		docsAlone = append(docsAlone, d)
	}
	sort.Ints(docsAlone)
	for _, d := range docsAlone {
		one := []JunosResult{{}}
		if err := s.check(ctx, docs[d:d+1], one); err != nil {
			return err
		}
		res[d] = one[0]
	}
	for d := range res {
		sort.SliceStable(res[d].Findings, func(i, j int) bool { return res[d].Findings[i].Line < res[d].Findings[j].Line })
	}
	return nil
}

// isolate validates each statement not yet excluded alone and reports the
// errors of those that fail.
func (s *JunosSchema) isolate(ctx context.Context, refs []junosRef, excluded map[int]bool, docs [][]junosStatement, report func(k int, msg string)) (bool, error) {
	found := false
	for k, r := range refs {
		if excluded[k] {
			continue
		}
		root := &junosData{s: s.top, owner: -1}
		if err := s.walk(docs[r.doc][r.st].words, root, k); err != nil {
			return false, fmt.Errorf("checking %s: %w", s.Family.Name, err)
		}
		xml, _ := s.toXML(root)
		diags, err := s.y.Validate(ctx, s.dir, s.modules, xml)
		if err != nil {
			return false, fmt.Errorf("checking %s: %w", s.Family.Name, err)
		}
		for _, dg := range diags {
			report(k, junosDiagLine.ReplaceAllString(dg.Message, ""))
			found = true
		}
	}
	return found, nil
}

func junosGroupName(doc int) string { return "c" + strconv.Itoa(doc+1) }

var junosGroupRE = regexp.MustCompile(`groups\[name='c(\d+)'\]`)

func junosGroupOf(s string) (int, bool) {
	m := junosGroupRE.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n - 1, err == nil && n > 0
}

// isGap says the statement's word at index word (the one that named no
// keyword) is exactly the end of one of the family's Gaps.
func (s *JunosSchema) isGap(words []string, word int) bool {
	for _, g := range s.Family.Gaps {
		if word == len(g)-1 && len(words) >= len(g) && junosEqualWords(words[:len(g)], g) {
			return true
		}
	}
	return false
}

func junosEqualWords(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
