package opensm

import (
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/google/go-cmp/cmp"
)

func TestCompareNoDiffAfterRender(t *testing.T) {
	sm, guids := labIntent()
	want, err := Desired(sm.Partitions, guids)
	if err != nil {
		t.Fatal(err)
	}
	text, err := Render(sm, guids)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	if d := Compare(want, got); len(d) != 0 {
		t.Errorf("want no diff, got %v", d)
	}
}

// TestCompareFields edits one thing at a time in a hand-edited live file and
// checks that exactly that field is reported.
func TestCompareFields(t *testing.T) {
	want, err := Parse(`
Default=0x7fff, ipoib : ALL=full ;
storage=0x0002, ipoib, mtu=5, rate=17, sl=0 : 0x0002c903000e0b72=full, 0x0002c903000e0b73=limited ;
`)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, live string
		want       []Diff
	}{
		{"equivalent spelling, order, defaults and 0x8000 bit", `
Default=0x7fff, ipoib, mtu=4, rate=3 : ALL=full ;  # OpenSM's defaults written out
storage=0x8002,ip,mtu=5,rate=17 : 0x2c903000e0b73, 0x0002C903000E0B72=f ;
`, nil},
		{"missing and extra partitions", `
Default=0x7fff, ipoib : ALL=full ;
lab=0x0010 : SELF=full ;
`, []Diff{
			{PKey: 2, Partition: "storage", Field: "partition", Want: "present", Got: "absent"},
			{PKey: 0x10, Partition: "lab", Field: "partition", Want: "absent", Got: "present"},
		}},
		{"every field", `
Default=0x7fff, ipoib : ALL=full ;
store=0x0002, mtu=4, rate=16, sl=1 : 0x0002c903000e0b72=both, 0x0002c903000e0b74=full ;
`, []Diff{
			{PKey: 2, Partition: "storage", Field: "name", Want: `"storage"`, Got: `"store"`},
			{PKey: 2, Partition: "storage", Field: "ipoib", Want: "true", Got: "false"},
			{PKey: 2, Partition: "storage", Field: "mtu", Want: "5 (4096 bytes)", Got: "4 (2048 bytes)"},
			{PKey: 2, Partition: "storage", Field: "rate", Want: "17 (200 Gb/s)", Got: "16 (100 Gb/s)"},
			{PKey: 2, Partition: "storage", Field: "sl", Want: "0", Got: "1"},
			{PKey: 2, Partition: "storage", Field: "member 0x0002c903000e0b72", Want: "full", Got: "both"},
			{PKey: 2, Partition: "storage", Field: "member 0x0002c903000e0b73", Want: "limited", Got: "absent"},
			{PKey: 2, Partition: "storage", Field: "member 0x0002c903000e0b74", Want: "absent", Got: "full"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse(tc.live)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, Compare(want, got)); diff != "" {
				t.Errorf("Compare mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCompareDefaultsMatter(t *testing.T) {
	w := []fabric.PartitionIntent{{Name: "p", PKey: 5, ServiceLevel: -1}}
	g := []fabric.PartitionIntent{{Name: "p", PKey: 5, ServiceLevel: -1, RateCode: 2, MTUCode: 4}}
	if d := Compare(w, g); len(d) != 1 || d[0].Field != "rate" {
		t.Errorf("under OpenSM defaults only the rate differs, got %v", d)
	}
	if d := CompareWith(w, g, Defaults{MTUCode: 4, RateCode: 2, Membership: "full"}); len(d) != 0 {
		t.Errorf("under matching defaults nothing differs, got %v", d)
	}
}

func TestDiffString(t *testing.T) {
	d := Diff{PKey: 2, Partition: "storage", Field: "member 0x0002c903000e0b72", Want: "full", Got: "both"}
	if got, want := d.String(), "partition 0x0002: member 0x0002c903000e0b72: want full, got both"; got != want {
		t.Errorf("got %q want %q", got, want)
	}
	d = Diff{Partition: "NewPartition", Field: "ipoib", Want: "true", Got: "false"}
	if got, want := d.String(), `partition "NewPartition": ipoib: want true, got false`; got != want {
		t.Errorf("got %q want %q", got, want)
	}
}
