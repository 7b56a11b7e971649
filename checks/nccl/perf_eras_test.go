package nccl

import (
	"strings"
	"testing"
)

// TestPerfEveryEra: nccl-tests tables of every era are read — 2.x's
// "error" column (a deviation, wrong only far above float rounding),
// all_gather's table without redop, headers and footers without "#" (users
// drop them) — and a deviation or the footer's count makes the result wrong.
func TestPerfEveryEra(t *testing.T) {
	for name, c := range map[string]struct {
		log      string
		rows     int
		oob      int
		wrongRes bool
	}{
		"2.x error column, rounding only": {`#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error
     1048576        262144   float     sum    307.5    3.41    6.39  5e-07    225.1    4.66    8.74  5e-07
# Out of bounds values : 0 OK
`, 1, 0, false},
		"all_gather without redop, footer without #": {`all_gather_perf -g 8 -b 4294967296 -e 4294967296 -n 100
       size         count    type     time   algbw   busbw  error     time   algbw   busbw  error
  4294967296     134217728   float    29122  129.05  129.05  1e+00    29169  128.84  128.84  1e+00
 Out of bounds values : 2 FAILED
 Avg bus bandwidth    : 128.942
`, 1, 2, true},
		"deviation without a footer": {`       size         count    type     time   algbw   busbw  error     time   algbw   busbw  error
  4294967296     134217728   float    29122  129.05  129.05  2e-02    29169  128.84  128.84  0e+00
`, 1, -1, true},
	} {
		a, err := Analyze(Options{}, Source{Name: "t.log", R: strings.NewReader(c.log)})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(a.Tests) != 1 || len(a.Tests[0].Rows) != c.rows || a.Tests[0].OutOfBounds != c.oob {
			t.Errorf("%s: tests %+v", name, a.Tests)
			continue
		}
		wrong := false
		for _, f := range a.Findings {
			wrong = wrong || f.Kind == WrongResults
		}
		if wrong != c.wrongRes {
			t.Errorf("%s: wrong results %v, want %v (%+v)", name, wrong, c.wrongRes, a.Findings)
		}
	}
}
