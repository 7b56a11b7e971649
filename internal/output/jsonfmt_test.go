package output

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

func TestIndentCompact(t *testing.T) {
	v := map[string]any{
		"host": "h1", "empty": []int{}, "obj": map[string]any{},
		"prioTc":  []int{0, 0, 0, 3, 0, 0, 6, 0},
		"dscpMap": []map[string]int{{"dscp": 0, "priority": 0}, {"dscp": 26, "priority": 3}},
		"note":    `quoted "[{,:}]" \ text`,
	}
	got, err := MarshalJSON(v)
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "dscpMap": [
    {"dscp": 0, "priority": 0},
    {"dscp": 26, "priority": 3}
  ],
  "empty": [],
  "host": "h1",
  "note": "quoted \"[{,:}]\" \\ text",
  "obj": {},
  "prioTc": [0, 0, 0, 3, 0, 0, 6, 0]
}
`
	if string(got) != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	var back map[string]any
	var orig map[string]any
	b, _ := json.Marshal(v)
	json.Unmarshal(b, &orig)
	if err := json.Unmarshal(got, &back); err != nil || !reflect.DeepEqual(back, orig) {
		t.Errorf("reformatted JSON does not decode to the same value: %v", err)
	}
}

func FuzzIndentCompact(f *testing.F) {
	f.Add([]byte(`{"a":[1,2,{"b":"c\"]"}],"d":{}}`))
	f.Add([]byte(`{"s":"\\\\\"x","n":[-1.5e+3,true,null,"a\\"]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		IndentCompact(data) // any bytes: must not panic
		var v any
		if json.Unmarshal(data, &v) != nil {
			return
		}
		compact, _ := json.Marshal(v)
		out := IndentCompact(compact)
		if ref := indentCompactReference(compact); string(out) != string(ref) {
			t.Fatalf("%s: got\n%s\nreference\n%s", compact, out, ref)
		}
		var back any
		if err := json.Unmarshal(out, &back); err != nil || !reflect.DeepEqual(back, v) {
			t.Fatalf("%s → %s: %v", compact, out, err)
		}
	})
}

// indentCompactReference is the first, simple implementation of IndentCompact,
// kept as the oracle for the fuzz target.
func indentCompactReference(src []byte) []byte {
	// match[i] is the index of the bracket closing the one opened at i, and
	// nested[i] says whether that container holds another container.
	// Indexed by byte offset; only bracket positions are set (match 0 = none).
	match := make([]int32, len(src))
	nested := make([]bool, len(src))
	var stack []int
	inStr := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		if inStr {
			if c == '\\' {
				i++
			} else if c == '"' {
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case '{', '[':
			if len(stack) > 0 {
				nested[stack[len(stack)-1]] = true
			}
			stack = append(stack, i)
		case '}', ']':
			if len(stack) > 0 {
				open := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				match[open] = int32(i)
			}
		}
	}
	var b bytes.Buffer
	b.Grow(len(src) + len(src)/2)
	depth := 0
	newline := func() {
		b.WriteByte('\n')
		for j := 0; j < depth; j++ {
			b.WriteString("  ")
		}
	}
	inline := 0 // > 0 while inside a container kept on one line
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch c {
		case '"':
			j := i + 1
			for ; j < len(src); j++ {
				if src[j] == '\\' {
					j++
				} else if src[j] == '"' {
					break
				}
			}
			b.Write(src[i : j+1])
			i = j
		case '{', '[':
			end, ok := int(match[i]), match[i] > 0
			if ok && end == i+1 { // empty
				b.WriteByte(c)
				b.WriteByte(src[end])
				i = end
				continue
			}
			b.WriteByte(c)
			if inline > 0 || (ok && !nested[i] && end-i <= inlineLimit) {
				inline++
				continue
			}
			depth++
			newline()
		case '}', ']':
			if inline > 0 {
				inline--
				b.WriteByte(c)
				continue
			}
			depth--
			newline()
			b.WriteByte(c)
		case ',':
			b.WriteByte(',')
			if inline > 0 {
				b.WriteByte(' ')
			} else {
				newline()
			}
		case ':':
			b.WriteString(": ")
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\n')
	return b.Bytes()
}

// benchDoc is shaped like a host's desired state: a 64-entry DSCP map per
// interface and short fixed-size lists.
func benchDoc() []byte {
	type entry struct{ DSCP, Priority int }
	type iface struct {
		Name   string
		PrioTC []int
		Map    []entry
	}
	var ifs []iface
	for i := 0; i < 2; i++ {
		f := iface{Name: "ens1f0np0", PrioTC: []int{0, 0, 0, 3, 0, 0, 6, 0}}
		for d := 0; d < 64; d++ {
			f.Map = append(f.Map, entry{d, d % 8})
		}
		ifs = append(ifs, f)
	}
	b, _ := json.Marshal(map[string]any{"host": "gpu-00001", "interfaces": ifs})
	return b
}

func BenchmarkIndentCompact(b *testing.B) {
	src := benchDoc()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		IndentCompact(src)
	}
}

func BenchmarkIndentCompactReference(b *testing.B) {
	src := benchDoc()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		indentCompactReference(src)
	}
}

func TestFastPathCoversPlainTypes(t *testing.T) {
	type leaf struct {
		A int    `json:"a"`
		B string `json:"b,omitempty"`
	}
	v := struct {
		L []leaf          `json:"l"`
		M map[string]bool `json:"m"`
		P *leaf           `json:"p"`
		X any             `json:"x"`
		A [8]uint8        `json:"prioTc"`
	}{L: []leaf{{1, "x"}}, M: map[string]bool{"k": true}, X: []any{1.5}}
	if _, err := marshalFast(v); err != nil {
		t.Fatalf("the fast path refused a plain value: %v", err)
	}
	if _, err := marshalFast(struct{ B []byte }{}); err != errFallback {
		t.Fatalf("[]byte should fall back to encoding/json, got %v", err)
	}
}
