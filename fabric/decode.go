package fabric

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

// decoder turns yaml.Node trees into Go values strictly, collecting located
// errors instead of stopping at the first. Validation finds positions later
// through positions, which walks the same node trees.
type decoder struct {
	file    string
	errs    *Errors
	visits  *visits // shared by every document of a load
	aborted bool
	// doc names the positions document being decoded ("fabric",
	// "profile:FILE#N"); lossy records the paths whose values did not
	// decode, so that validation says nothing more about them.
	doc    string
	lossy  *lossyPaths
	failed int // values that did not decode so far
}

// visits counts the nodes decoding visits (an alias's target each time) and
// the alias uses, across the documents of one load.
type visits struct{ nodes, aliases int }

// errAt reports that the value at path did not decode: it stays zero,
// and validation keeps quiet about path, what lies under it and above it.
func (d *decoder) errAt(n *yaml.Node, path, format string, args ...any) {
	d.report(n, path, "", format, args...)
	d.lossy.add(d.doc, path)
	d.failed++
}

// noteAt reports a problem that leaves the decoded value whole (an
// unknown field is skipped, a duplicate key's first value is kept).
func (d *decoder) noteAt(n *yaml.Node, path, code, format string, args ...any) {
	d.report(n, path, code, format, args...)
}

func (d *decoder) report(n *yaml.Node, path, code, format string, args ...any) {
	e := newError(d.nodePos(n), path, format, args...)
	e.Code = code
	if !d.errs.add(e) {
		d.aborted = true
	}
}

func (d *decoder) nodePos(n *yaml.Node) Pos {
	if n == nil {
		return Pos{File: d.file}
	}
	return Pos{File: d.file, Line: n.Line, Col: n.Column}
}

// nodeDecoder is implemented by types with their own YAML forms (units, "rest", "off").
type nodeDecoder interface {
	decodeNode(d *decoder, n *yaml.Node, path string)
}

var nodeDecoderType = reflect.TypeOf((*nodeDecoder)(nil)).Elem()

// resolve follows aliases and enforces the budgets. It returns nil when the
// document must not be walked further.
func (d *decoder) resolve(n *yaml.Node, path string, depth int) *yaml.Node {
	if d.aborted {
		return nil
	}
	d.visits.nodes++
	if depth > maxDepth {
		d.errAt(n, path, "nesting deeper than %d levels", maxDepth)
		d.aborted = true
		return nil
	}
	for n.Kind == yaml.AliasNode {
		d.visits.aliases++
		if d.visits.aliases > maxAliasUses || d.visits.nodes > maxNodes {
			d.errAt(n, path, "document expands to too many nodes through aliases (limit %d alias uses); refusing it", maxAliasUses)
			d.aborted = true
			return nil
		}
		n = n.Alias
	}
	if d.visits.nodes > maxNodes {
		d.errAt(n, path, "document has more than %d nodes; refusing it", maxNodes)
		d.aborted = true
		return nil
	}
	return n
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			return "null"
		case "!!bool":
			return "a boolean"
		case "!!int":
			return "an integer"
		case "!!float":
			return "a number"
		}
		return fmt.Sprintf("the string %q", clip(n.Value))
	}
	return "something else"
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// decode fills v (addressable) from n.
func (d *decoder) decode(n *yaml.Node, v reflect.Value, path string, depth int) {
	n = d.resolve(n, path, depth)
	if n == nil {
		return
	}
	if v.CanAddr() && v.Addr().Type().Implements(nodeDecoderType) {
		v.Addr().Interface().(nodeDecoder).decodeNode(d, n, path)
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
			return
		}
		ptr := reflect.New(v.Type().Elem())
		before := d.failed
		d.decode(n, ptr.Elem(), path, depth)
		// A scalar that did not decode stays unset (nil), not a zero
		// that validation would take for what was written; a mapping is
		// kept with what of it decoded.
		if d.failed == before || ptr.Elem().Kind() == reflect.Struct {
			v.Set(ptr)
		}
	case reflect.Struct:
		d.decodeStruct(n, v, path, depth)
	case reflect.Slice:
		if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
			return
		}
		if n.Kind != yaml.SequenceNode {
			d.errAt(n, path, "expected a list, got %s", kindName(n))
			return
		}
		s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, c := range n.Content {
			d.decode(c, s.Index(i), path+"["+strconv.Itoa(i)+"]", depth+1)
		}
		v.Set(s)
	case reflect.Map:
		d.decodeMap(n, v, path, depth)
	case reflect.String:
		if n.Kind != yaml.ScalarNode || n.Tag == "!!null" || n.Tag == "!!bool" {
			d.errAt(n, path, "expected a string, got %s", kindName(n))
			return
		}
		v.SetString(n.Value)
	case reflect.Bool:
		if n.Kind == yaml.ScalarNode && n.Tag == "!!str" {
			if b, ok := yamlBoolWords[strings.ToLower(n.Value)]; ok {
				d.errAt(n, path, "expected true or false, got the string %q; write %s", n.Value, b)
				return
			}
		}
		if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
			d.errAt(n, path, "expected true or false, got %s", kindName(n))
			return
		}
		b, _ := strconv.ParseBool(strings.ToLower(n.Value))
		v.SetBool(b)
	case reflect.Int, reflect.Int64:
		i, ok := d.intValue(n, path)
		if ok {
			v.SetInt(i)
		}
	case reflect.Float64:
		if n.Kind != yaml.ScalarNode || (n.Tag != "!!int" && n.Tag != "!!float") {
			d.errAt(n, path, "expected a number, got %s", kindName(n))
			return
		}
		f, err := strconv.ParseFloat(n.Value, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			d.errAt(n, path, "expected a number, got %q", n.Value)
			return
		}
		v.SetFloat(f)
	default:
		d.errAt(n, path, "internal: cannot decode into %s", v.Type())
	}
}

func (d *decoder) intValue(n *yaml.Node, path string) (int64, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
		d.errAt(n, path, "expected an integer, got %s", kindName(n))
		return 0, false
	}
	s := strings.ReplaceAll(n.Value, "_", "")
	i, err := strconv.ParseInt(s, 0, 64)
	if err != nil {
		d.errAt(n, path, "integer %s out of range", n.Value)
		return 0, false
	}
	return i, true
}

// mappingPairs checks n is a mapping with unique string keys and calls fn per pair.
func (d *decoder) mappingPairs(n *yaml.Node, path string, fn func(k, val *yaml.Node)) {
	if n.Kind != yaml.MappingNode {
		d.errAt(n, path, "expected a mapping, got %s", kindName(n))
		return
	}
	// Most mappings are small: look duplicates up among the earlier keys,
	// and index them only for big ones.
	var seen map[string]*yaml.Node
	if len(n.Content) > 32 {
		seen = make(map[string]*yaml.Node, len(n.Content)/2)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			d.errAt(k, path, "mapping keys must be strings, got %s", kindName(k))
			continue
		}
		if k.Tag == "!!merge" {
			d.errAt(k, path, "merge keys (<<) are not supported; write the fields out")
			continue
		}
		if first := earlierKey(n.Content[:i], seen, k.Value); first != nil {
			d.noteAt(k, joinPath(path, k.Value), CodeDuplicateKey, "duplicate key (first defined at line %d)", first.Line)
			continue
		}
		if seen != nil {
			seen[k.Value] = k
		}
		fn(k, val)
	}
}

// earlierKey returns the key node among the pairs of earlier (keys at even
// positions) whose value is key, using seen when the mapping is indexed.
func earlierKey(earlier []*yaml.Node, seen map[string]*yaml.Node, key string) *yaml.Node {
	if seen != nil {
		return seen[key]
	}
	for i := 0; i < len(earlier); i += 2 {
		if k := earlier[i]; k.Kind == yaml.ScalarNode && k.Tag != "!!merge" && k.Value == key {
			return k
		}
	}
	return nil
}

// structInfo is what decoding needs of a struct type's yaml tags.
type structInfo struct {
	fields map[string]int   // YAML name → field index
	names  []string         // sorted YAML names, for messages
	enums  map[int][]string // field index → allowed values
}

var structInfos sync.Map // reflect.Type → *structInfo

func structInfoOf(t reflect.Type) *structInfo {
	if si, ok := structInfos.Load(t); ok {
		return si.(*structInfo)
	}
	si := &structInfo{fields: map[string]int{}, enums: map[int][]string{}}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "" || name == "-" {
			continue
		}
		si.fields[name] = i
		si.names = append(si.names, name)
		if enum := f.Tag.Get("enum"); enum != "" && f.Type.Kind() == reflect.String {
			si.enums[i] = strings.Split(enum, ",")
		}
	}
	sort.Strings(si.names)
	structInfos.Store(t, si)
	return si
}

func (d *decoder) decodeStruct(n *yaml.Node, v reflect.Value, path string, depth int) {
	si := structInfoOf(v.Type())
	d.mappingPairs(n, path, func(k, val *yaml.Node) {
		i, ok := si.fields[k.Value]
		if !ok {
			hint, meant := unknownFieldHint(v.Type(), k.Value, si.names)
			d.noteAt(k, joinPath(path, k.Value), CodeUnknownField, "unknown field%s; valid fields: %s", unclipped(hint), unclipped(strings.Join(si.names, ", ")))
			if meant != "" {
				// The field it misspells is most likely missing, not forgotten.
				d.lossy.add(d.doc, joinPath(path, meant))
			}
			return
		}
		fp := joinPath(path, k.Value)
		if h := valueHints[v.Type()][k.Value]; h != nil {
			if msg := h(val); msg != "" {
				d.errAt(val, fp, "%s", unclipped(msg))
				return
			}
		}
		d.decode(val, v.Field(i), fp, depth+1)
		if enum, ok := si.enums[i]; ok {
			d.checkEnum(val, fp, v.Field(i).String(), enum)
		}
	})
}

func (d *decoder) checkEnum(n *yaml.Node, path, got string, valid []string) {
	if got == "" && n.Kind == yaml.ScalarNode && n.Value == "" {
		return
	}
	for _, s := range valid {
		if s == got {
			return
		}
	}
	if got == "" {
		return // type error already reported
	}
	d.errAt(n, path, "%q is not one of %s%s", got, strings.Join(valid, ", "), suggest(got, valid))
}

func (d *decoder) decodeMap(n *yaml.Node, v reflect.Value, path string, depth int) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return
	}
	m := reflect.MakeMap(v.Type())
	d.mappingPairs(n, path, func(k, val *yaml.Node) {
		elem := reflect.New(v.Type().Elem()).Elem()
		d.decode(val, elem, joinPath(path, k.Value), depth+1)
		m.SetMapIndex(reflect.ValueOf(k.Value), elem)
	})
	v.Set(m)
}
