package main

import (
	"path/filepath"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/fabricgen"
)

// BenchmarkRenderLarge renders every artifact of a 2,000-host, 200-switch,
// 64-partition fabric in memory (bench/validate.sh times the whole command).
func BenchmarkRenderLarge(b *testing.B) {
	dir := b.TempDir()
	if err := fabricgen.Write(dir, 2000, 200, 64); err != nil {
		b.Fatal(err)
	}
	f, err := fabric.Load(filepath.Join(dir, "fabric.yaml"), fabric.Options{Platforms: platforms()})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		arts, err := renderArtifacts(f, "")
		if err != nil {
			b.Fatal(err)
		}
		if len(arts) < 2400 {
			b.Fatalf("%d artifacts", len(arts))
		}
	}
}
