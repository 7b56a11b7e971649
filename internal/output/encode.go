package output

import (
	"encoding"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// This file writes MarshalJSON's layout straight from Go values, for the
// types that make up fabricctl's documents (structs, slices, string-keyed
// maps, strings, numbers, booleans, pointers). It produces exactly what
// json.Marshal followed by IndentCompact produces, about twice as fast
// (BenchmarkMarshalJSONHost); a property test and a fuzz target hold it to
// that; anything else (json.Marshaler or encoding.TextMarshaler types,
// embedded structs, ",string" or ",omitzero" options, []byte, NaN) takes that
// slower path instead.

// errFallback says the value needs the json.Marshal path.
var errFallback = errors.New("output: value needs encoding/json")

// encoder carries what is not the output buffer. The buffer itself is
// passed and returned by value: kept in a heap struct, every append would
// be a pointer store behind a GC write barrier.
type encoder struct {
	depth int // pointer and interface nesting, for the cycle guard
}

// encFn appends v, at indentation depth, to b.
type encFn func(e *encoder, b []byte, v reflect.Value, depth int) ([]byte, error)

// typeEnc is what the fast path knows of a type, computed once.
type typeEnc struct {
	enc encFn // nil: the type needs encoding/json
	// mayNest says a value may hold a container; when false every value
	// is a leaf, so a container of this type never needs the check.
	mayNest bool
	kind    reflect.Kind
	fields  []fieldEnc // structs
	elem    *typeEnc   // slices, arrays and maps
}

type fieldEnc struct {
	key       string // `"name": ` as written
	index     int
	omitEmpty bool
	t         *typeEnc
}

var (
	typeEncs          sync.Map // reflect.Type → *typeEnc
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// encOf returns t's encoder description; recursive types fall back.
func encOf(t reflect.Type) *typeEnc {
	if te, ok := typeEncs.Load(t); ok {
		return te.(*typeEnc)
	}
	te := build(t, map[reflect.Type]bool{})
	actual, _ := typeEncs.LoadOrStore(t, te)
	return actual.(*typeEnc)
}

func appendNull(b []byte) []byte { return append(b, "null"...) }

func build(t reflect.Type, visiting map[reflect.Type]bool) *typeEnc {
	if te, ok := typeEncs.Load(t); ok {
		return te.(*typeEnc)
	}
	no := &typeEnc{kind: t.Kind()}
	if visiting[t] { // a recursive type: leave it to encoding/json
		return no
	}
	visiting[t] = true
	defer delete(visiting, t)
	if t.Implements(marshalerType) || t.Implements(textMarshalerType) ||
		reflect.PointerTo(t).Implements(marshalerType) || reflect.PointerTo(t).Implements(textMarshalerType) {
		return no
	}
	te := &typeEnc{kind: t.Kind()}
	switch t.Kind() {
	case reflect.Bool:
		te.enc = func(_ *encoder, b []byte, v reflect.Value, _ int) ([]byte, error) {
			return strconv.AppendBool(b, v.Bool()), nil
		}
	case reflect.String:
		te.enc = func(_ *encoder, b []byte, v reflect.Value, _ int) ([]byte, error) {
			return appendString(b, v.String()), nil
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		te.enc = func(_ *encoder, b []byte, v reflect.Value, _ int) ([]byte, error) {
			return strconv.AppendInt(b, v.Int(), 10), nil
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		te.enc = func(_ *encoder, b []byte, v reflect.Value, _ int) ([]byte, error) {
			return strconv.AppendUint(b, v.Uint(), 10), nil
		}
	case reflect.Float32, reflect.Float64:
		bits := t.Bits()
		te.enc = func(_ *encoder, b []byte, v reflect.Value, _ int) ([]byte, error) {
			f := v.Float()
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return b, errFallback // for json.Marshal's error
			}
			return appendFloat(b, f, bits), nil
		}
	case reflect.Interface:
		te.mayNest = true
		te.enc = func(e *encoder, b []byte, v reflect.Value, depth int) ([]byte, error) {
			if v.IsNil() {
				return appendNull(b), nil
			}
			el := v.Elem()
			et := encOf(el.Type())
			if et.enc == nil {
				return b, errFallback
			}
			return e.nested(b, et, el, depth)
		}
	case reflect.Pointer:
		elem := build(t.Elem(), visiting)
		if elem.enc == nil {
			return no
		}
		te.mayNest = elem.mayNest || isContainerKind(elem.kind)
		te.enc = func(e *encoder, b []byte, v reflect.Value, depth int) ([]byte, error) {
			if v.IsNil() {
				return appendNull(b), nil
			}
			return e.nested(b, elem, v.Elem(), depth)
		}
	case reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
			return no // base64 ([N]byte arrays are plain number arrays)
		}
		elem := build(t.Elem(), visiting)
		if elem.enc == nil {
			return no
		}
		te.mayNest = elem.mayNest || isContainerKind(elem.kind)
		isSlice := t.Kind() == reflect.Slice
		te.elem = elem
		te.enc = func(e *encoder, b []byte, v reflect.Value, depth int) ([]byte, error) {
			if isSlice && v.IsNil() {
				return appendNull(b), nil
			}
			return e.container(b, te, v, depth, nil)
		}
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return no
		}
		elem := build(t.Elem(), visiting)
		if elem.enc == nil {
			return no
		}
		te.mayNest = elem.mayNest || isContainerKind(elem.kind)
		te.elem = elem
		te.enc = func(e *encoder, b []byte, v reflect.Value, depth int) ([]byte, error) {
			if v.IsNil() {
				return appendNull(b), nil
			}
			keys := v.MapKeys()
			slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
			return e.container(b, te, v, depth, keys)
		}
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if f.Anonymous {
				return no
			}
			if !f.IsExported() {
				continue
			}
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			opts = "," + opts + ","
			if strings.Contains(opts, ",string,") || strings.Contains(opts, ",omitzero,") {
				return no
			}
			if !validTagName(name) {
				name = f.Name
			}
			ft := build(f.Type, visiting)
			if ft.enc == nil {
				return no
			}
			te.mayNest = te.mayNest || ft.mayNest || isContainerKind(ft.kind)
			te.fields = append(te.fields, fieldEnc{key: string(appendString(nil, name)) + ": ", index: i,
				omitEmpty: strings.Contains(opts, ",omitempty,"), t: ft})
		}
		te.enc = func(e *encoder, b []byte, v reflect.Value, depth int) ([]byte, error) {
			return e.container(b, te, v, depth, nil)
		}
	default:
		return no
	}
	return te
}

func isContainerKind(k reflect.Kind) bool {
	switch k {
	case reflect.Struct, reflect.Array, reflect.Slice, reflect.Map:
		return true
	}
	return false
}

// nested encodes through a pointer or interface, guarding against cycles.
func (e *encoder) nested(b []byte, te *typeEnc, v reflect.Value, depth int) ([]byte, error) {
	if e.depth++; e.depth > 1000 {
		return b, errFallback // a cycle: json.Marshal reports it
	}
	b, err := te.enc(e, b, v, depth)
	e.depth--
	return b, err
}

// validTagName mirrors encoding/json's rule for usable tag names.
func validTagName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

// marshalFast encodes v in MarshalJSON's layout or returns errFallback.
func marshalFast(v any) ([]byte, error) {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return []byte("null\n"), nil
	}
	te := encOf(rv.Type())
	if te.enc == nil {
		return nil, errFallback
	}
	bp := bufPool.Get().(*[]byte)
	b, err := te.enc(&encoder{}, (*bp)[:0], rv, 0)
	out := append(make([]byte, 0, len(b)+1), b...)
	if cap(b) <= 1<<20 {
		*bp = b
		bufPool.Put(bp)
	}
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// isContainer reports whether v encodes as an array or object (not null).
func isContainer(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Struct, reflect.Array:
		return true
	case reflect.Slice, reflect.Map:
		return !v.IsNil()
	case reflect.Pointer, reflect.Interface:
		return !v.IsNil() && isContainer(v.Elem())
	}
	return false
}

// leaf reports whether the container v (of type te) holds no container:
// such a container stays on one line when short.
func leaf(te *typeEnc, v reflect.Value) bool {
	if !te.mayNest {
		return true
	}
	switch v.Kind() {
	case reflect.Struct:
		for i := range te.fields {
			f := &te.fields[i]
			fv := v.Field(f.index)
			if !(f.omitEmpty && empty(fv)) && isContainer(fv) {
				return false
			}
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			if isContainer(v.Index(i)) {
				return false
			}
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			if isContainer(it.Value()) {
				return false
			}
		}
	}
	return true
}

func empty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	}
	return false
}

func newline(b []byte, depth int) []byte {
	b = append(b, '\n')
	for n := 2 * depth; n > 0; n -= len(spaces) {
		b = append(b, spaces[:min(n, len(spaces))]...)
	}
	return b
}

// container appends an array or object (keys: a map's, sorted): on one line
// when it holds no container and is at most inlineLimit+1 bytes compact,
// else one member a line.
func (e *encoder) container(b []byte, te *typeEnc, v reflect.Value, depth int, keys []reflect.Value) ([]byte, error) {
	if leaf(te, v) {
		start := len(b)
		b, members, err := e.members(b, te, v, depth, keys, true)
		if err != nil {
			return b, err
		}
		// The inline form adds a space after each ',' between members and
		// after each ':' of an object.
		seps := max(members-1, 0)
		if te.kind == reflect.Struct || te.kind == reflect.Map {
			seps += members
		}
		if len(b)-start-seps-1 <= inlineLimit {
			return b, nil
		}
		b = b[:start] // too long: lay it out again over lines
		b, _, err = e.members(b, te, v, depth, keys, false)
		return b, err
	}
	b, _, err := e.members(b, te, v, depth, keys, false)
	return b, err
}

// members appends the container and says how many members it has.
func (e *encoder) members(b []byte, te *typeEnc, v reflect.Value, depth int, keys []reflect.Value, inline bool) ([]byte, int, error) {
	open, close := byte('['), byte(']')
	if te.kind == reflect.Struct || te.kind == reflect.Map {
		open, close = '{', '}'
	}
	b = append(b, open)
	n := 0
	var err error
	switch te.kind {
	case reflect.Struct:
		for i := range te.fields {
			f := &te.fields[i]
			fv := v.Field(f.index)
			if f.omitEmpty && empty(fv) {
				continue
			}
			b = sep(b, n, depth, inline)
			n++
			b = append(b, f.key...)
			if b, err = f.t.enc(e, b, fv, depth+1); err != nil {
				return b, 0, err
			}
		}
	case reflect.Map:
		for _, k := range keys {
			b = sep(b, n, depth, inline)
			n++
			b = appendString(b, k.String())
			b = append(b, ':', ' ')
			if b, err = te.elem.enc(e, b, v.MapIndex(k), depth+1); err != nil {
				return b, 0, err
			}
		}
	default:
		for i := 0; i < v.Len(); i++ {
			b = sep(b, n, depth, inline)
			n++
			if b, err = te.elem.enc(e, b, v.Index(i), depth+1); err != nil {
				return b, 0, err
			}
		}
	}
	if n > 0 && !inline {
		b = newline(b, depth)
	}
	return append(b, close), n, nil
}

// sep starts member n of a container at depth.
func sep(b []byte, n, depth int, inline bool) []byte {
	switch {
	case inline && n > 0:
		return append(b, ',', ' ')
	case inline:
		return b
	case n > 0:
		b = append(b, ',')
	}
	return newline(b, depth+1)
}

// appendFloat formats like encoding/json.
func appendFloat(b []byte, f float64, bits int) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21)) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, bits)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

const hexDigits = "0123456789abcdef"

// AppendJSONString appends s quoted exactly as encoding/json quotes it.
func AppendJSONString(b []byte, s string) []byte { return appendString(b, s) }

// appendString quotes s like encoding/json: HTML-safe, invalid UTF-8 as
// U+FFFD, U+2028 and U+2029 escaped.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
