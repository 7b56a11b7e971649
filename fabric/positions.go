package fabric

import (
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// positions locates paths ("spec.hosts[3].labels.rack") inside the decoded
// documents. Only error messages need a position, so instead of recording
// one per node while decoding, it keeps each document's node tree and walks
// it when asked.
type positions struct {
	docs map[string]posDoc
}

type posDoc struct {
	file string
	root *yaml.Node
}

func newPositions() *positions { return &positions{docs: map[string]posDoc{}} }

// add registers the tree of document doc ("fabric" or "profile:FILE#N"),
// read from file.
func (p *positions) add(doc, file string, root *yaml.Node) {
	p.docs[doc] = posDoc{file: file, root: root}
}

// find returns the position of path in doc and whether the whole path was
// found; when it was not, the position is that of the deepest node on the
// way (the document itself at worst), or zero for an unknown document.
func (p *positions) find(doc, path string) (Pos, bool) {
	d, ok := p.docs[doc]
	if !ok {
		return Pos{}, false
	}
	n := deref(d.root)
	at := func(n *yaml.Node) Pos { return Pos{File: d.file, Line: n.Line, Col: n.Column} }
	for rest := path; rest != ""; {
		var next *yaml.Node
		if rest[0] == '[' {
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return at(n), false
			}
			i, err := strconv.Atoi(rest[1:end])
			if err != nil || n.Kind != yaml.SequenceNode || i < 0 || i >= len(n.Content) {
				return at(n), false
			}
			next, rest = n.Content[i], rest[end+1:]
		} else {
			rest = strings.TrimPrefix(rest, ".")
			if n.Kind != yaml.MappingNode {
				return at(n), false
			}
			// Keys may hold dots (label keys such as example.com/role):
			// take the longest key that ends where a path segment does.
			best := -1
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i].Value
				if strings.HasPrefix(rest, k) && (len(rest) == len(k) || rest[len(k)] == '.' || rest[len(k)] == '[') &&
					(best < 0 || len(k) > len(n.Content[best].Value)) {
					best = i
				}
			}
			if best < 0 {
				return at(n), false
			}
			next, rest = n.Content[best+1], rest[len(n.Content[best].Value):]
		}
		n = deref(next)
	}
	return at(n), true
}

// deref follows aliases; yaml.v3 refuses alias cycles, the bound is a guard.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < maxDepth; i++ {
		n = n.Alias
	}
	return n
}

// profileRef remembers, per profile, where its positions are recorded.
type profileRef struct {
	doc    string // positions document
	prefix string // path prefix inside that document
}
