package fabric

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"gopkg.in/yaml.v3"
)

// Limits that keep hostile input from exhausting memory.
const (
	maxInput     = 4 << 20 // bytes of every file of one load together (a 2,000-host fabric is 0.4 MB)
	maxDocs      = 1000    // documents per file
	maxNodes     = 500000  // YAML nodes of one load: estimated before parsing, visited (aliases each time) while decoding
	maxDepth     = 64      // nesting depth
	maxAliasUses = 10000   // alias dereferences per load
	maxErrors    = 200     // errors reported per load; more are summarised
)

// decoder turns yaml.Node trees into Go values strictly, collecting located
// errors instead of stopping at the first. Validation finds positions later
// through positions, which walks the same node trees.
type decoder struct {
	file    string
	errs    *Errors
	visits  *visits // shared by every document of a load
	aborted bool
}

// visits counts the nodes decoding visits (an alias's target each time) and
// the alias uses, across the documents of one load.
type visits struct{ nodes, aliases int }

func (d *decoder) errAt(n *yaml.Node, path, format string, args ...any) {
	if !d.errs.add(newError(d.nodePos(n), path, format, args...)) {
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
		d.decode(n, ptr.Elem(), path, depth)
		v.Set(ptr)
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
			d.errAt(k, joinPath(path, k.Value), "duplicate key (first defined at line %d)", first.Line)
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
			d.errAt(k, joinPath(path, k.Value), "unknown field%s; valid fields: %s", suggest(k.Value, si.names), strings.Join(si.names, ", "))
			return
		}
		fp := joinPath(path, k.Value)
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

// Units.

var byteUnits = map[string]int64{
	"": 1, "B": 1, "KB": 1000, "KiB": 1024, "MB": 1000 * 1000, "MiB": 1 << 20,
	"GB": 1000 * 1000 * 1000, "GiB": 1 << 30,
}

func splitNumberUnit(s string) (num, unit string) {
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	return s[:i], strings.TrimSpace(s[i:])
}

// ParseBytes parses "150KB", "1.5MiB", "4096" into bytes.
func ParseBytes(s string) (Bytes, error) {
	num, unit := splitNumberUnit(s)
	mult, ok := byteUnits[unit]
	if !ok || num == "" {
		return 0, fmt.Errorf("%q is not a size; use a number with B, KB, KiB, MB, MiB, GB or GiB", s)
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f*float64(mult) > math.MaxInt64/2 {
		return 0, fmt.Errorf("%q is not a size", s)
	}
	b := f * float64(mult)
	if b != math.Trunc(b) {
		return 0, fmt.Errorf("%q is not a whole number of bytes", s)
	}
	return Bytes(b), nil
}

func (b *Bytes) decodeNode(d *decoder, n *yaml.Node, path string) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" || n.Tag == "!!bool" {
		d.errAt(n, path, "expected a size such as 150KB, got %s", kindName(n))
		return
	}
	v, err := ParseBytes(n.Value)
	if err != nil {
		d.errAt(n, path, "%v", err)
		return
	}
	*b = v
}

// String prints the size in the largest exact unit (150KB, 64KiB, 9000B).
func (b Bytes) String() string {
	for _, u := range []struct {
		name string
		mult int64
	}{{"GiB", 1 << 30}, {"GB", 1e9}, {"MiB", 1 << 20}, {"MB", 1e6}, {"KiB", 1024}, {"KB", 1000}} {
		if b != 0 && int64(b)%u.mult == 0 {
			return fmt.Sprintf("%d%s", int64(b)/u.mult, u.name)
		}
	}
	return fmt.Sprintf("%dB", int64(b))
}

func (b Bytes) MarshalYAML() (any, error) { return b.String(), nil }

var durationUnits = map[string]time.Duration{
	"ns": time.Nanosecond, "us": time.Microsecond, "µs": time.Microsecond, "ms": time.Millisecond,
	"s": time.Second, "m": time.Minute, "h": time.Hour,
}

// ParseDuration parses "100ms", "5us", "5s".
func ParseDuration(s string) (Duration, error) {
	num, unit := splitNumberUnit(s)
	mult, ok := durationUnits[unit]
	if !ok || num == "" {
		return 0, fmt.Errorf("%q is not a duration; use a number with us, ms or s (e.g. 100ms)", s)
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f*float64(mult) > math.MaxInt64/2 {
		return 0, fmt.Errorf("%q is not a duration", s)
	}
	return Duration(f * float64(mult)), nil
}

func (t *Duration) decodeNode(d *decoder, n *yaml.Node, path string) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" || n.Tag == "!!bool" {
		d.errAt(n, path, "expected a duration such as 100ms, got %s", kindName(n))
		return
	}
	if n.Tag == "!!int" || n.Tag == "!!float" {
		d.errAt(n, path, "duration %s has no unit; write e.g. %sms or %ss", n.Value, n.Value, n.Value)
		return
	}
	v, err := ParseDuration(n.Value)
	if err != nil {
		d.errAt(n, path, "%v", err)
		return
	}
	*t = v
}

func (t Duration) String() string { return time.Duration(t).String() }

func (t Duration) MarshalYAML() (any, error) { return t.String(), nil }

func (m *Meters) decodeNode(d *decoder, n *yaml.Node, path string) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" || n.Tag == "!!bool" {
		d.errAt(n, path, "expected a length such as 5m, got %s", kindName(n))
		return
	}
	num, unit := splitNumberUnit(n.Value)
	mult := map[string]int{"": 1, "m": 1, "km": 1000}[unit]
	i, err := strconv.Atoi(num)
	if mult == 0 || err != nil || i > 1_000_000 {
		d.errAt(n, path, "%q is not a length; use whole metres such as 5m", n.Value)
		return
	}
	*m = Meters(i * mult)
}

func (m Meters) MarshalYAML() (any, error) { return fmt.Sprintf("%dm", int(m)), nil }

func (m *SwitchMTU) decodeNode(d *decoder, n *yaml.Node, path string) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" && n.Value == "max" {
		*m = SwitchMTUMax
		return
	}
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
		d.errAt(n, path, "expected an MTU in bytes or \"max\", got %s", kindName(n))
		return
	}
	if v, ok := d.intValue(n, path); ok {
		if v <= 0 || v > 1<<20 {
			d.errAt(n, path, "%s is not an MTU; write bytes (e.g. 9216) or \"max\"", n.Value)
			return
		}
		*m = SwitchMTU(v)
	}
}

// MarshalYAML writes "max" or the number.
func (m SwitchMTU) MarshalYAML() (any, error) {
	if m == SwitchMTUMax {
		return "max", nil
	}
	return int(m), nil
}

// MarshalJSON writes "max" or the number.
func (m SwitchMTU) MarshalJSON() ([]byte, error) {
	if m == SwitchMTUMax {
		return []byte(`"max"`), nil
	}
	return []byte(strconv.Itoa(int(m))), nil
}

func (p *PKey) decodeNode(d *decoder, n *yaml.Node, path string) {
	if n.Kind != yaml.ScalarNode || (n.Tag != "!!int" && n.Tag != "!!str") {
		d.errAt(n, path, "expected a partition key such as 0x0002, got %s", kindName(n))
		return
	}
	i, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64)
	if err != nil || i < 0 || i > 0xffff {
		d.errAt(n, path, "%q is not a 16-bit partition key", n.Value)
		return
	}
	*p = PKey(i)
}

func (p PKey) MarshalYAML() (any, error) { return fmt.Sprintf("0x%04x", uint16(p)), nil }

func (s *DSCPSet) decodeNode(d *decoder, n *yaml.Node, path string) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" {
		if n.Value == "rest" {
			s.Rest = true
			return
		}
		d.errAt(n, path, "expected a list of DSCP values or \"rest\", got %q", n.Value)
		return
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!int" {
		d.errAt(n, path, "expected a list of DSCP values; write [%s]", n.Value)
		return
	}
	if n.Kind != yaml.SequenceNode {
		d.errAt(n, path, "expected a list of DSCP values or \"rest\", got %s", kindName(n))
		return
	}
	for i, c := range n.Content {
		ip := path + "[" + strconv.Itoa(i) + "]"
		c = d.resolve(c, ip, 0)
		if c == nil {
			return
		}
		if v, ok := d.intValue(c, ip); ok {
			s.Values = append(s.Values, int(v))
		}
	}
}

func (s DSCPSet) MarshalYAML() (any, error) {
	if s.Rest {
		return "rest", nil
	}
	return s.Values, nil
}

func (e *ECN) decodeNode(d *decoder, n *yaml.Node, path string) {
	if n.Kind == yaml.ScalarNode && (n.Value == "off" || (n.Tag == "!!bool" && strings.EqualFold(n.Value, "false"))) {
		e.Off = true
		return
	}
	if n.Kind != yaml.MappingNode {
		d.errAt(n, path, "expected ECN thresholds or \"off\", got %s", kindName(n))
		return
	}
	type plain ECN // no decodeNode method
	var p plain
	d.decodeStruct(n, reflect.ValueOf(&p).Elem(), path, 0)
	*e = ECN(p)
}

func (e ECN) MarshalYAML() (any, error) {
	if e.Off {
		return "off", nil
	}
	type plain ECN
	return plain(e), nil
}
