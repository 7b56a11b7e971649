package opensm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
)

// FuzzParse: Parse never panics; whatever it accepts and Render can write
// passes checkRoundTrip (reads back as exactly Desired, renders again
// identically, means the same).
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.conf")
	seeds = append(seeds, "testdata/lab.render.golden")
	for _, s := range seeds {
		b, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	for _, s := range []string{
		"0x8005 : 0x1=full ; x=0x0005 : 0x2=both ;",
		"p=0x5, ip, d=f : A, S=l, AL=b, 0x1=b ;",
		"A=0x1 :\n  mgid=ff12::1,sl=1,Q_Key=0xDEADBEEF,rate=3,mtu=2 # c\n ALL=full;",
		"p : 0x1 ; p : 0x2 ; : SELF ;",
		"A=0x1, mtu=4 : ALL; A=0x1, mtu=5 : SELF;",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		parts, err := Parse(text)
		if err != nil {
			return
		}
		if _, err := Render(fabric.SubnetManagerIntent{Name: "fuzz", Partitions: parts}, nil); err != nil {
			return // e.g. an anonymous pkey-less partition: nothing to write it as
		}
		checkRoundTrip(t, parts)
	})
}

// FuzzDiags: the infiniband-diags readers never panic, and what they
// accept is consistent: every port line read has a type, a GUID and a port
// number in range, every line is either read or reported; P_Key tables
// hold no empty entry.
func FuzzDiags(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/diags/*.txt")
	for _, s := range seeds {
		b, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add("CA 4 1 0x1 4x EDR - SW 3 1 0x2 ( 'a' - 'b' )\nSW 3 2 0x2 4x SDR 'b'\n")
	f.Add("   0: 0x8002 0x0002 0x8000\n64 pkeys capacity for this port\n")
	f.Fuzz(func(t *testing.T, text string) {
		ports, bad := ParseNetDiscoverPorts(text)
		data := 0
		for _, l := range strings.Split(text, "\n") {
			if s := strings.TrimSpace(l); s != "" && !strings.HasPrefix(s, "#") {
				data++
			}
		}
		if len(ports) > data || len(bad) > data {
			t.Fatalf("%d ports and %d unparsed from %d lines", len(ports), len(bad), data)
		}
		for _, p := range ports {
			if p.Type == "" || p.Num < 0 || p.Num > 255 || p.LID < 0 || p.LID > 0xffff {
				t.Fatalf("bad port %+v", p)
			}
		}
		if tab, err := ParsePKeys(text); err == nil {
			for _, e := range tab.Entries {
				if e&pkeyMask == 0 {
					t.Fatalf("empty entry 0x%04x kept", e)
				}
			}
			for k := range tab.Memberships() {
				if k&^pkeyMask != 0 {
					t.Fatalf("membership key 0x%04x has the full bit", k)
				}
			}
		}
		_, _ = ParseSMInfo(text)
	})
}
