package opensm

import (
	"os"
	"path/filepath"
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
