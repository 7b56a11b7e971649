package output

import (
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
	f.Fuzz(func(t *testing.T, data []byte) {
		var v any
		if json.Unmarshal(data, &v) != nil {
			return
		}
		compact, _ := json.Marshal(v)
		out := IndentCompact(compact)
		var back any
		if err := json.Unmarshal(out, &back); err != nil || !reflect.DeepEqual(back, v) {
			t.Fatalf("%s → %s: %v", compact, out, err)
		}
	})
}
