package ufm

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/fabricctl/fabricctl/internal/testutil"
)

// TestDecodeGolden turns a hand-written GET .../pkeys?guids_data=true&qos_conf=true
// reply into partitions: pkeys sorted, GUIDs in fabricctl's spelling, mtu_limit
// 4 as 4096 bytes (code 5), rate_limit 200 as code 17, and a rate UFM
// accepts but IBTA has no code for (7) left unset.
func TestDecodeGolden(t *testing.T) {
	b, err := os.ReadFile("testdata/pkeys.json")
	if err != nil {
		t.Fatal(err)
	}
	parts, err := decodePKeys(b)
	if err != nil {
		t.Fatal(err)
	}
	out, err := json.MarshalIndent(parts, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, "pkeys.golden", append(out, '\n'))
}

func TestDecodeErrors(t *testing.T) {
	for _, in := range []string{
		`{"0xzz": {}}`,
		`{"0x2": {"guids": [{"guid": "not-hex"}]}}`,
		`[1, 2]`,
	} {
		if _, err := decodePKeys([]byte(in)); err == nil {
			t.Errorf("%s: no error", in)
		}
	}
}

// FuzzDecode: no reply from UFM makes decoding panic.
func FuzzDecode(f *testing.F) {
	b, err := os.ReadFile("testdata/pkeys.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte(`{"0x7fff": {"partition": "management", "guids": []}}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		parts, err := decodePKeys(data)
		if err != nil {
			return
		}
		for _, p := range parts {
			if p.PKey > 0x7fff {
				t.Fatalf("pkey 0x%x has the 0x8000 bit", p.PKey)
			}
		}
	})
}
