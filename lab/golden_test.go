package lab

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/internal/testutil"
)

// lab-pt and lab-info JSON as the scenarios decode it.
func TestGuestJSONGolden(t *testing.T) {
	var b strings.Builder
	for _, f := range []string{"testdata/lab-pt-client.json", "testdata/lab-pt-timeout.json"} {
		raw, _ := os.ReadFile(f)
		p, err := decodeSide(raw)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := json.MarshalIndent(p, "", "  ")
		b.Write(out)
		b.WriteString("\n")
	}
	testutil.Golden(t, "lab-pt.golden", []byte(b.String()))
	raw, _ := os.ReadFile("testdata/lab-info.json")
	var h HostInfo
	if err := json.Unmarshal(raw, &h); err != nil {
		t.Fatal(err)
	}
	out, _ := json.MarshalIndent(h, "", "  ")
	testutil.Golden(t, "lab-info.golden", append(out, '\n'))
}

func FuzzDecodeResult(f *testing.F) {
	f.Add([]byte(`{"apiVersion":"fabricctl.io/v1alpha1","scenario":"smoke","passed":true,"checks":[{"name":"x","passed":true}]}`))
	f.Add([]byte(`{"apiVersion":"fabricctl.io/v1alpha1","scenario":"perftest","perftests":[{"name":"w","clientSide":{"rc":0,"result":{"bw_avg":0.1}}}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := DecodeResult(strings.NewReader(string(b)))
		if err == nil && (r.APIVersion != APIVersion || r.Scenario == "") {
			t.Fatalf("accepted %+v", r)
		}
	})
}

func FuzzDecodeSide(f *testing.F) {
	for _, n := range []string{"testdata/lab-pt-client.json", "testdata/lab-pt-timeout.json"} {
		b, _ := os.ReadFile(n)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := decodeSide(b)
		if err == nil && p.OK() && p.Result == nil {
			t.Fatal("OK without a result")
		}
	})
}
