package task

import (
	"bufio"
	"compress/gzip"
	"encoding"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// MaxJSON bounds the decompressed JSON of a spec or a result; it is counted while inflating and
// nothing past it is kept. A preflight step of 10,000 one-NIC hosts is 22 MB (every host
// carries its desired state: about 2 KB per RoCE netdev, so about 29,000 such hosts or 3,700
// of eight NICs fit); an NCCL run step of 10,000 nodes 4 MB; a node's NCCL result keeps at most
// 4 MiB of each rank's log.
const MaxJSON = 64 << 20

// MaxDecoded bounds the memory a decoded spec or result may hold, estimated before anything is
// decoded: each JSON object becomes a Go value, and `{}` (2 bytes) in a list of jobs costs
// over 250 bytes of heap. The 22 MB preflight spec of 10,000 hosts is estimated at 17 MB (it
// holds 13 MB decoded); JSON under MaxJSON of the shapes fabricctl writes stays well within.
const MaxDecoded = 128 << 20

// ErrTooLarge: a spec or result whose JSON is over MaxJSON, or would take more than MaxDecoded
// bytes of memory once decoded.
var ErrTooLarge = errors.New("too large")

// tooLarge is an ErrTooLarge that says what was too large.
type tooLarge string

func (e tooLarge) Error() string      { return string(e) }
func (tooLarge) Is(target error) bool { return target == ErrTooLarge }

var (
	errJSONSize    = layerError{tooLarge(fmt.Sprintf("decompressed size exceeds %d bytes", MaxJSON))}
	errDecodedSize = tooLarge(fmt.Sprintf("decoding would take more than %d bytes of memory", MaxDecoded))
)

// capped reads at most MaxJSON bytes from r and fails with ErrTooLarge as soon as there are
// more: nothing past the limit is kept.
type capped struct {
	r    io.Reader
	left int64
}

func (c *capped) Read(p []byte) (int, error) {
	if int64(len(p)) > c.left+1 {
		p = p[:c.left+1]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	if c.left < 0 {
		return 0, errJSONSize
	}
	return n, err
}

// layerError is an error of a layer below the JSON (base64, gzip, the cap), already worded.
type layerError struct{ error }

func (e layerError) Unwrap() error { return e.error }

// labelled words the errors of one layer.
type labelled struct {
	r     io.Reader
	label string
}

func (l labelled) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	if err != nil && err != io.EOF {
		err = l.word(err)
	}
	return n, err
}

// word labels err unless a layer below has.
func (l labelled) word(err error) error {
	if errors.As(err, new(layerError)) {
		return err
	}
	return layerError{fmt.Errorf("%s: %w", l.label, err)}
}

// open reads the JSON of pack's output, cut into parts: base64, then gzip (zr, reset), then a
// cap of MaxJSON bytes.
func open(zr *gzip.Reader, parts []string) (io.Reader, error) {
	rs := make([]io.Reader, len(parts))
	for i, p := range parts {
		rs[i] = strings.NewReader(strings.TrimSpace(p))
	}
	if err := zr.Reset(labelled{base64.NewDecoder(base64.RawURLEncoding, io.MultiReader(rs...)), "decoding base64"}); err != nil {
		return nil, decodeError(labelled{label: "decompressing"}.word(err))
	}
	return &capped{r: labelled{zr, "decompressing"}, left: MaxJSON}, nil
}

// unpack reverses pack into v (a pointer), parts concatenated, within MaxJSON and MaxDecoded:
// a first pass inflates the JSON without keeping it, estimating what decoding it would take;
// only then does encoding/json decode it, strictly (unknown fields are errors).
func unpack(parts []string, v any) error {
	zr, _ := readers.Get().(*gzip.Reader)
	if zr == nil {
		zr = new(gzip.Reader)
	}
	defer readers.Put(zr)
	r, err := open(zr, parts)
	if err != nil {
		return err
	}
	if _, err := estimate(r, reflect.TypeOf(v).Elem()); err != nil {
		return err
	}
	if _, err := io.Copy(io.Discard, r); errors.Is(err, ErrTooLarge) {
		return err
	}
	if r, err = open(zr, parts); err != nil {
		return err
	}
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return decodeError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		if err != nil && !errors.As(err, new(*json.SyntaxError)) {
			return decodeError(err)
		}
		return errors.New("decoding JSON: data after the value")
	}
	return nil
}

// decodeError says which layer failed: one below the JSON says so itself.
func decodeError(err error) error {
	var le layerError
	if errors.As(err, &le) {
		return le.error
	}
	return fmt.Errorf("decoding JSON: %w", err)
}

// sizer walks JSON as encoding/json would decode it into a value of a Go type and adds up the
// heap the decoded value would hold: strings' bytes, every slice element (twice: a growing
// slice holds its old and new array at once), pointers' targets, map entries. It stops with
// ErrTooLarge once the sum is over MaxDecoded. It is no validator: on JSON it cannot read it
// stops quietly and leaves the error to encoding/json, which reads a whole value before it
// decodes any of it.
type sizer struct {
	r     *bufio.Reader
	cost  int64
	depth int
	bad   bool // not JSON: stop walking
	err   error
	key   []byte // the field name being read
}

// maxDepth is encoding/json's own nesting limit.
const maxDepth = 10000

// Costs besides the values' own sizes: a map, a map entry (slots are kept 7/8 full, in groups
// with a control word), a string's rounding up to its allocation size class, a container
// decoded into an interface value (map[string]any, []any) and each of its elements.
const (
	mapBase   = 48
	mapEntry  = 16
	mapFactor = 2
	strExtra  = 8
	generic   = 64
)

// shape is what the sizer needs to know of a Go type, worked out once per type.
type shape struct {
	kind reflect.Kind
	size int64
	// ownJSON: encoding/json hands the value to its UnmarshalJSON; ownText: a JSON string to
	// its UnmarshalText. Only the bytes count.
	ownJSON, ownText bool
	elem             *shape // of a pointer, slice, array or map
	entry            int64  // a map entry
	fields           map[string]*shape
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
	shapesMu        sync.Mutex
	shapes          = map[reflect.Type]*shape{}
)

// shapeOf returns t's shape, building it (and its parts') on first use.
func shapeOf(t reflect.Type) *shape {
	shapesMu.Lock()
	defer shapesMu.Unlock()
	return buildShape(t)
}

func buildShape(t reflect.Type) *shape {
	if sh, ok := shapes[t]; ok {
		return sh
	}
	p := reflect.PointerTo(t)
	sh := &shape{kind: t.Kind(), size: int64(t.Size()), ownJSON: p.Implements(jsonUnmarshaler)}
	sh.ownText = sh.ownJSON || p.Implements(textUnmarshaler)
	shapes[t] = sh // before its parts: a type may contain itself
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		sh.elem = buildShape(t.Elem())
	case reflect.Map:
		sh.elem = buildShape(t.Elem())
		sh.entry = mapFactor * (mapEntry + int64(t.Key().Size()+t.Elem().Size()))
	case reflect.Struct:
		sh.fields = map[string]*shape{}
		addFields(sh.fields, t, 0)
	}
	return sh
}

// addFields maps the JSON names of t's fields, folded (foldKey), to their shapes; embedded
// structs' fields are promoted.
func addFields(m map[string]*shape, t reflect.Type, depth int) {
	if depth > 8 {
		return
	}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		ft := f.Type
		if f.Anonymous && name == "" {
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				addFields(m, ft, depth+1)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		k := string(foldKey([]byte(name)))
		if _, ok := m[k]; !ok || depth == 0 {
			m[k] = buildShape(ft)
		}
	}
}

var bufs = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 16<<10) }}

// estimate walks the first JSON value of r for a value of type t and returns its cost.
func estimate(r io.Reader, t reflect.Type) (int64, error) {
	s := walk(r, t)
	return s.cost, s.err
}

func walk(r io.Reader, t reflect.Type) *sizer {
	br := bufs.Get().(*bufio.Reader)
	br.Reset(r)
	defer func() { br.Reset(nil); bufs.Put(br) }()
	s := &sizer{r: br, key: make([]byte, 0, 64)}
	s.value(shapeOf(t))
	return s
}

func (s *sizer) add(n int64) {
	if s.err != nil {
		return
	}
	s.cost += n
	if s.cost > MaxDecoded {
		s.err = errDecodedSize
	}
}

func (s *sizer) stop() bool { return s.bad || s.err != nil }

// next returns the next byte that is not white space.
func (s *sizer) next() byte {
	for {
		c, err := s.r.ReadByte()
		if err != nil {
			s.fail(err)
			return 0
		}
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c
	}
}

// fail records a read error of the cap (ErrTooLarge) or the layers below, and stops.
func (s *sizer) fail(err error) {
	if errors.Is(err, ErrTooLarge) && s.err == nil {
		s.err = decodeError(err)
	}
	s.bad = true
}

// value walks one value for sh (nil: a field encoding/json does not decode, or one decoded by
// its own method: only its bytes count).
func (s *sizer) value(sh *shape) {
	c := s.next()
	if s.stop() {
		return
	}
	s.valueAt(c, sh)
}

func (s *sizer) valueAt(c byte, sh *shape) {
	if c == 'n' { // null leaves the value as it is
		s.literal("ull")
		return
	}
	for sh != nil && sh.kind == reflect.Pointer {
		s.add(sh.elem.size)
		sh = sh.elem
	}
	if sh != nil && (sh.ownJSON || (c == '"' && sh.ownText)) {
		sh = nil
	}
	switch {
	case c == '{':
		s.object(sh)
	case c == '[':
		s.array(sh)
	case c == '"':
		n := s.str(nil)
		if n > 0 && (sh == nil || sh.kind == reflect.String || sh.kind == reflect.Slice || sh.kind == reflect.Interface) {
			s.add(n + strExtra)
		}
	case c == 't':
		s.literal("rue")
	case c == 'f':
		s.literal("alse")
	case c == '-' || (c >= '0' && c <= '9'):
		s.number()
	default:
		s.bad = true
	}
}

func (s *sizer) literal(rest string) {
	for i := range len(rest) {
		c, err := s.r.ReadByte()
		if err != nil {
			s.fail(err)
			return
		}
		if c != rest[i] {
			s.bad = true
			return
		}
	}
}

func (s *sizer) number() {
	for {
		c, err := s.r.ReadByte()
		if err != nil {
			if err != io.EOF {
				s.fail(err)
			}
			return
		}
		if !(c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
			_ = s.r.UnreadByte()
			return
		}
	}
}

// str reads a string after its opening quote and returns its length as written; key, when not
// nil, receives up to maxKey of its bytes as written, escapes included (a field name).
func (s *sizer) str(key *[]byte) int64 {
	var n int64
	for {
		c, err := s.r.ReadByte()
		if err != nil {
			s.fail(err)
			return n
		}
		switch {
		case c == '"':
			return n
		case c == '\\':
			e, err := s.r.ReadByte()
			if err != nil {
				s.fail(err)
				return n
			}
			if key != nil && len(*key) < maxKey {
				*key = append(*key, c)
			}
			c = e
		case c < 0x20:
			s.bad = true
			return n
		}
		n++
		if key != nil && len(*key) < maxKey {
			*key = append(*key, c)
		}
	}
}

func (s *sizer) enter() bool {
	s.depth++
	if s.depth > maxDepth {
		s.bad = true
	}
	return !s.stop()
}

func (s *sizer) object(sh *shape) {
	defer func() { s.depth-- }()
	if !s.enter() {
		return
	}
	var fields map[string]*shape
	var elem *shape
	entry := int64(0)
	switch {
	case sh == nil:
	case sh.kind == reflect.Struct:
		fields = sh.fields
	case sh.kind == reflect.Map:
		elem, entry = sh.elem, sh.entry
		s.add(mapBase)
	case sh.kind == reflect.Interface:
		elem, entry = sh, generic
		s.add(generic)
	}
	for first := true; ; first = false {
		c := s.next()
		if s.stop() {
			return
		}
		if c == '}' && first {
			return
		}
		if c != '"' {
			s.bad = true
			return
		}
		s.key = s.key[:0]
		n := s.str(&s.key)
		if c = s.next(); c != ':' {
			s.bad = true
			return
		}
		var vs *shape
		switch {
		case fields != nil:
			if len(s.key) < maxKey {
				vs = fields[string(foldKey(s.key))]
			}
		case elem != nil:
			s.add(entry + n + strExtra)
			vs = elem
		}
		s.value(vs)
		if s.stop() {
			return
		}
		switch c = s.next(); c {
		case ',':
		case '}':
			return
		default:
			s.bad = true
			return
		}
	}
}

func (s *sizer) array(sh *shape) {
	defer func() { s.depth-- }()
	if !s.enter() {
		return
	}
	var elem *shape
	each := int64(0)
	switch {
	case sh == nil:
	case sh.kind == reflect.Slice:
		elem, each = sh.elem, 2*sh.elem.size
	case sh.kind == reflect.Array:
		elem = sh.elem // the elements are the array's own: only what they point to counts
	case sh.kind == reflect.Interface:
		elem, each = sh, generic/4
		s.add(generic)
	}
	for first := true; ; first = false {
		c := s.next()
		if s.stop() {
			return
		}
		if c == ']' && first {
			return
		}
		s.add(each)
		s.valueAt(c, elem)
		if s.stop() {
			return
		}
		switch c = s.next(); c {
		case ',':
		case ']':
			return
		default:
			s.bad = true
			return
		}
	}
}

// maxKey bounds the field names looked up: longer ones match no field of ours, escaped or not.
const maxKey = 1024

// foldKey folds a field name as written (escapes and all) so that two names encoding/json
// would match (it unescapes them and compares them as bytes.EqualFold does, "jobſ" and
// "JOBS" being "jobs") fold alike: every rune becomes the smallest of its case-folding orbit.
// ASCII names are folded in place.
func foldKey(b []byte) []byte {
	ascii := true
	for _, c := range b {
		if c >= utf8.RuneSelf || c == '\\' {
			ascii = false
			break
		}
	}
	if !ascii {
		var s string
		if json.Unmarshal(append(append([]byte{'"'}, b...), '"'), &s) != nil {
			return b
		}
		var out []byte
		for _, r := range s {
			out = utf8.AppendRune(out, foldRune(r))
		}
		return out
	}
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return b
}

func foldRune(r rune) rune {
	m := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		m = min(m, f)
	}
	return m
}
