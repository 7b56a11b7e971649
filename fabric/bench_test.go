package fabric_test

import (
	"path/filepath"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/testkit/fabricgen"
)

// BenchmarkLoadResolveLarge: load + validate + resolve a 2,000-host,
// 200-switch, 64-partition fabric (target ≤ 300 ms, ≤ 200 MB peak; bench/validate.sh
// measures the whole command including render and peak RSS).
func BenchmarkLoadResolveLarge(b *testing.B) {
	dir := b.TempDir()
	if err := fabricgen.Write(dir, 2000, 200, 64); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		f, err := fabric.Load(filepath.Join(dir, "fabric.yaml"))
		if err != nil {
			b.Fatal(err)
		}
		r := f.Resolve()
		if len(r.Hosts) != 2000 || len(r.Switches) != 200 {
			b.Fatalf("resolved %d hosts, %d switches", len(r.Hosts), len(r.Switches))
		}
	}
}
