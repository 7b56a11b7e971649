package vendorcheck

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// Node is one data node of a compiled YANG schema, as libyang resolves it
// (uses, groupings and typedefs expanded): what a translation into YANG
// instance data must know to walk the schema.
type Node struct {
	// Kind is container, list, leaf, leaf-list, choice, case, anydata or
	// anyxml.
	Kind string
	Name string
	// NS is the namespace of the module that defines the node.
	NS string
	// Keys are a list's key leaves, in key order.
	Keys []string
	// Type is a leaf's or leaf-list's base type name ("uint8", "string",
	// "empty", "union", a typedef's resolved base).
	Type string
	// HasDefault says the leaf or leaf-list has a default.
	HasDefault bool
	Children   []*Node
}

// Flat returns the children of the given kinds, looking through choice
// and case nodes as libyang's data iterator does.
func (n *Node) Flat(kinds ...string) []*Node {
	var out []*Node
	for _, c := range n.Children {
		switch {
		case c.Kind == "choice" || c.Kind == "case":
			out = append(out, c.Flat(kinds...)...)
		case len(kinds) == 0 || contains(kinds, c.Kind):
			out = append(out, c)
		}
	}
	return out
}

// Child returns the data child named name (through choice and case), or nil.
func (n *Node) Child(name string) *Node {
	for _, c := range n.Flat() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Module is a compiled module: its name, namespace and top-level data nodes.
type Module struct {
	Name string
	NS   string
	Top  []*Node
}

// stmt is one statement of YANG text.
type stmt struct {
	kw, arg string
	subs    []*stmt
}

func (s *stmt) first(kw string) *stmt {
	for _, c := range s.subs {
		if c.kw == kw {
			return c
		}
	}
	return nil
}

var yangToken = regexp.MustCompile(`^(?:\s+|//[^\n]*|(?s:/\*.*?\*/)|"((?:[^"\\]|\\.)*)"|'([^']*)'|([{};])|([^\s{};"']+))`)

// parseYANG reads YANG text (as libyang's compiled printer writes it) into
// a statement tree.
func parseYANG(text string) (*stmt, error) {
	type tok struct{ kind, text string }
	var toks []tok
	for pos := 0; pos < len(text); {
		m := yangToken.FindStringSubmatchIndex(text[pos:])
		if m == nil || m[1] == 0 {
			return nil, fmt.Errorf("reading compiled YANG at byte %d: %q", pos, clip(text[pos:], 40))
		}
		switch {
		case m[2] >= 0:
			toks = append(toks, tok{"s", unescapeYANG(text[pos+m[2] : pos+m[3]])})
		case m[4] >= 0:
			toks = append(toks, tok{"s", text[pos+m[4] : pos+m[5]]})
		case m[6] >= 0:
			toks = append(toks, tok{text[pos+m[6] : pos+m[7]], ""})
		case m[8] >= 0:
			toks = append(toks, tok{"s", text[pos+m[8] : pos+m[9]]})
		}
		pos += m[1]
	}
	i := 0
	var parse func(depth int) (*stmt, error)
	parse = func(depth int) (*stmt, error) {
		if i >= len(toks) || toks[i].kind != "s" {
			return nil, errors.New("reading compiled YANG: statement keyword expected")
		}
		if depth > 256 {
			return nil, errors.New("reading compiled YANG: nested too deep")
		}
		s := &stmt{kw: toks[i].text}
		i++
		var args []string
		for i < len(toks) && toks[i].kind == "s" {
			if toks[i].text != "+" {
				args = append(args, toks[i].text)
			}
			i++
		}
		s.arg = strings.Join(args, "")
		if i >= len(toks) {
			return nil, errors.New("reading compiled YANG: unexpected end")
		}
		switch toks[i].kind {
		case ";":
			i++
		case "{":
			i++
			for i < len(toks) && toks[i].kind != "}" {
				c, err := parse(depth + 1)
				if err != nil {
					return nil, err
				}
				s.subs = append(s.subs, c)
			}
			if i >= len(toks) {
				return nil, errors.New("reading compiled YANG: unclosed block")
			}
			i++
		default:
			return nil, fmt.Errorf("reading compiled YANG: unexpected %q after %s", toks[i].kind, s.kw)
		}
		return s, nil
	}
	return parse(0)
}

func unescapeYANG(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	r := strings.NewReplacer(`\n`, "\n", `\t`, "\t", `\"`, `"`, `\\`, `\`)
	return r.Replace(s)
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

var dataKinds = []string{"container", "list", "leaf", "leaf-list", "choice", "case", "anydata", "anyxml"}

// node builds the schema node of a data statement.
func node(s *stmt, ns string) (*Node, error) {
	n := &Node{Kind: s.kw, Name: s.arg, NS: ns}
	if s.kw == "list" {
		if k := s.first("key"); k != nil {
			// libyang 2.1's compiled printer may run key names together
			// ("portpg_num, name" printed without the space); compiled
			// lists hold their keys as their first leaves in key order,
			// so read them back from there.
			packed := strings.NewReplacer(",", "", " ", "", "\t", "", "\n", "").Replace(k.arg)
			for _, c := range s.subs {
				if packed == "" || !contains(dataKinds, c.kw) {
					if packed == "" {
						break
					}
					continue
				}
				if c.kw != "leaf" || !strings.HasPrefix(packed, c.arg) {
					break
				}
				n.Keys = append(n.Keys, c.arg)
				packed = packed[len(c.arg):]
			}
			if packed != "" {
				return nil, fmt.Errorf("reading the keys %q of list %s", k.arg, s.arg)
			}
		}
	}
	if s.kw == "leaf" || s.kw == "leaf-list" {
		n.Type = "string"
		if t := s.first("type"); t != nil {
			n.Type = t.arg
		}
		n.HasDefault = s.first("default") != nil
	}
	for _, c := range s.subs {
		if contains(dataKinds, c.kw) {
			cn, err := node(c, ns)
			if err != nil {
				return nil, err
			}
			n.Children = append(n.Children, cn)
		}
	}
	return n, nil
}

// Yanglint runs libyang's yanglint (Debian libyang2-tools).
type Yanglint struct {
	// Path is the executable ("" = yanglint from $PATH).
	Path string
}

func (y Yanglint) path() string {
	if y.Path != "" {
		return y.Path
	}
	return "yanglint"
}

// Available says whether yanglint can be run.
func (y Yanglint) Available() bool {
	_, err := exec.LookPath(y.path())
	return err == nil
}

// Compile compiles the modules (files) with search directory dir and
// returns the compiled view of the first: with schemaPath ("/mod:top/…")
// only the subtree there (its top node is the one at schemaPath).
func (y Yanglint) Compile(ctx context.Context, dir, schemaPath string, files ...string) (*Module, error) {
	args := []string{"-Q", "-Q", "-p", dir, "-f", "info"}
	if schemaPath != "" {
		args = append(args, "-P", schemaPath)
	}
	cmd := exec.CommandContext(ctx, y.path(), append(args, files...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || len(bytes.TrimSpace(out)) == 0 {
		return nil, fmt.Errorf("compiling %s with yanglint: %v: %s", strings.Join(files, " "), err, strings.TrimSpace(stderr.String()))
	}
	// libyang 2.1's compiled printer writes `unique "a, b;` without its
	// closing quote; unique statements matter to no translation here.
	text := regexp.MustCompile(`(?m)^[ \t]*unique [^\n]*\n`).ReplaceAllString(string(out), "")
	root, err := parseYANG(text)
	if err != nil {
		return nil, fmt.Errorf("compiling %s: %w", files[0], err)
	}
	m := &Module{Name: strings.TrimSuffix(filepath.Base(files[0]), ".yang")}
	if root.kw == "module" {
		m.Name = root.arg
	}
	if ns := root.first("namespace"); ns != nil {
		m.NS = ns.arg
	}
	for _, s := range root.subs {
		if contains(dataKinds, s.kw) {
			n, err := node(s, m.NS)
			if err != nil {
				return nil, fmt.Errorf("compiling %s: %w", files[0], err)
			}
			m.Top = append(m.Top, n)
		}
	}
	if root.kw != "module" && root.kw != "submodule" {
		// A -P subtree print is the node itself.
		n, err := node(root, m.NS)
		if err != nil {
			return nil, fmt.Errorf("compiling %s: %w", files[0], err)
		}
		m.Top = []*Node{n}
	}
	return m, nil
}

// Diag is one error libyang reported on instance data.
type Diag struct {
	// Message is libyang's message, continuation lines joined.
	Message string
	// Path is the data location (else the schema location) it names, "" when none.
	Path string
}

func (d Diag) String() string { return d.Message }

var diagPath = regexp.MustCompile(`\((?:Data|Schema) location "([^"]+)"`)

// Validate validates the XML instance data (a configuration datastore:
// yanglint -t config) against the modules, with dir as search path. It
// returns libyang's errors; err is for yanglint failing to run or failing
// without saying why.
func (y Yanglint) Validate(ctx context.Context, dir string, modules []string, data []byte) ([]Diag, error) {
	tmp, err := os.CreateTemp("", "vendorcheck-*.xml")
	if err != nil {
		return nil, fmt.Errorf("writing instance data: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return nil, fmt.Errorf("writing instance data: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return nil, fmt.Errorf("writing instance data: %w", err)
	}
	args := append([]string{"-Q", "-p", dir, "-t", "config", "-f", "xml", "-o", os.DevNull}, modules...)
	cmd := exec.CommandContext(ctx, y.path(), append(args, tmp.Name())...)
	out, runErr := cmd.CombinedOutput()
	var diags []Diag
	for _, l := range strings.Split(string(out), "\n") {
		switch {
		case strings.HasPrefix(l, "libyang err"):
			diags = append(diags, Diag{Message: strings.TrimSpace(strings.TrimPrefix(strings.SplitN(l, ":", 2)[len(strings.SplitN(l, ":", 2))-1], " "))})
		case len(diags) > 0 && strings.TrimSpace(l) != "" && !strings.HasPrefix(l, "YANGLINT") && !strings.HasPrefix(l, "libyang "):
			diags[len(diags)-1].Message += " " + strings.TrimSpace(l)
		}
	}
	for i := range diags {
		if m := diagPath.FindStringSubmatch(diags[i].Message); m != nil {
			diags[i].Path = m[1]
		}
	}
	if runErr != nil && len(diags) == 0 {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("validating with yanglint: %w", ctx.Err())
		}
		return nil, fmt.Errorf("validating with yanglint: %v: %s", runErr, strings.TrimSpace(string(out)))
	}
	return diags, nil
}

// Elem is an element of XML instance data.
type Elem struct {
	Name string
	// NS is written as xmlns where it differs from the parent's.
	NS       string
	Text     string
	Children []*Elem
}

// Add appends a child and returns it.
func (e *Elem) Add(name, ns, text string) *Elem {
	c := &Elem{Name: name, NS: ns, Text: text}
	e.Children = append(e.Children, c)
	return c
}

// XML writes the element tree, indented.
func (e *Elem) XML() []byte {
	var b bytes.Buffer
	e.write(&b, "", "")
	return b.Bytes()
}

func (e *Elem) write(b *bytes.Buffer, ind, parentNS string) {
	b.WriteString(ind + "<" + e.Name)
	if e.NS != "" && e.NS != parentNS {
		b.WriteString(` xmlns="`)
		_ = xml.EscapeText(b, []byte(e.NS))
		b.WriteString(`"`)
	}
	ns := parentNS
	if e.NS != "" {
		ns = e.NS
	}
	if len(e.Children) == 0 {
		b.WriteString(">")
		_ = xml.EscapeText(b, []byte(e.Text))
		b.WriteString("</" + e.Name + ">\n")
		return
	}
	b.WriteString(">\n")
	for _, c := range e.Children {
		c.write(b, ind+"  ", ns)
	}
	b.WriteString(ind + "</" + e.Name + ">\n")
}
