package output

import (
	"strings"
	"testing"
)

// TestWriteYAMLFitToDiff (issue 26): YAML keeps the JSON's field order (the
// struct's, as render writes it), integers stay integers however large,
// empty lists are [], and strings that look like other types stay strings.
func TestWriteYAMLFitToDiff(t *testing.T) {
	type inner struct {
		Zeta  int64    `json:"zeta"`
		Alpha []int    `json:"alpha"`
		Hex   string   `json:"hex"`
		Rate  float64  `json:"rate"`
		None  []string `json:"none"`
	}
	var b strings.Builder
	if err := Write(&b, YAML, struct {
		Name  string `json:"name"`
		Bytes int64  `json:"bytes"`
		In    inner  `json:"in"`
	}{"x", 2097152, inner{Zeta: 1 << 40, Alpha: []int{}, Hex: "0x0002", Rate: 2.5}}, nil); err != nil {
		t.Fatal(err)
	}
	want := "name: x\nbytes: 2097152\nin:\n  zeta: 1099511627776\n  alpha: []\n  hex: \"0x0002\"\n  rate: 2.5\n  none: null\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
