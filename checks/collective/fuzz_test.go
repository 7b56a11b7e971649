package collective

import (
	"strings"
	"testing"
)

// FuzzParseScript: the script's lines are read from any output without a
// panic, and every event it keeps came from a line with the prefix.
func FuzzParseScript(f *testing.F) {
	f.Add(scriptOutput(2, 64, 1))
	f.Add("FABRICCTL-NCCL {\"event\": \"error\", \"rank\": 1, \"message\": \"x\"}\n[default0]:FABRICCTL-NCCL {\"event\": \"done\", \"rank\": 0}\n")
	f.Add("FABRICCTL-NCCL {\"event\": \"size\", \"bytes\": 1e400}\nFABRICCTL-NCCL {")
	f.Fuzz(func(t *testing.T, text string) {
		var sc ScriptRun
		ParseScript("f", text, &sc)
		n := len(sc.Inits) + len(sc.Sizes) + len(sc.Errors) + len(sc.Done)
		if n > strings.Count(text, ScriptPrefix) {
			t.Fatalf("%d events from %d prefixed lines", n, strings.Count(text, ScriptPrefix))
		}
		sc.MaxBusBW()
		sc.World()
	})
}

// FuzzParseHCA: any NCCL_IB_HCA value parses, and a device it names exactly
// with "=" is taken.
func FuzzParseHCA(f *testing.F) {
	for _, s := range []string{"mlx5_0", "^mlx5_2,mlx5_3:1", "=mlx5_1", "", ",,:", "^=mlx5_bond_0:1"} {
		f.Add(s, "mlx5_0")
	}
	f.Fuzz(func(t *testing.T, v, dev string) {
		h := parseHCA(v)
		h.matches(dev)
		if dev != "" && !strings.ContainsAny(dev, ",: ^=\t\n\r\v\f") {
			if ok, _ := parseHCA("=" + dev).matches(dev); !ok {
				t.Fatalf("=%s does not take %s", dev, dev)
			}
		}
	})
}
