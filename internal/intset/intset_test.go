package intset

import (
	"slices"
	"testing"
)

func TestFormat(t *testing.T) {
	for _, c := range []struct {
		in   []int
		want string
	}{
		{nil, ""},
		{[]int{3}, "3"},
		{[]int{26, 0, 1, 2, 3}, "0-3,26"},
		{[]int{0, 1, 2, 5}, "0-2,5"},
		{[]int{3, 3, 4, 4}, "3-4"},
		{[]int{-2, -1, 0, 7, 9}, "-2-0,7,9"},
		{[]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47}, "0-25,27-47"},
	} {
		in := slices.Clone(c.in)
		if got := Format(c.in); got != c.want {
			t.Errorf("Format(%v) = %q, want %q", c.in, got, c.want)
		}
		if !slices.Equal(in, c.in) {
			t.Errorf("Format changed its input: %v, was %v", c.in, in)
		}
	}
}

func TestPad(t *testing.T) {
	var got []string
	for _, r := range Runs([]int{4, 1, 2, 3, 10}) {
		got = append(got, r.Pad(3))
	}
	if want := []string{"001-004", "010"}; !slices.Equal(got, want) {
		t.Errorf("Pad(3) = %q, want %q", got, want)
	}
}

// FuzzRuns checks that the runs cover exactly the input's values, in order,
// with gaps between them.
func FuzzRuns(f *testing.F) {
	f.Add([]byte{0, 1, 2, 5, 26})
	f.Fuzz(func(t *testing.T, b []byte) {
		v := make([]int, len(b))
		for i, x := range b {
			v[i] = int(int8(x))
		}
		var back []int
		for i, r := range Runs(v) {
			if r.First > r.Last {
				t.Fatalf("run %v is empty", r)
			}
			for x := r.First; x <= r.Last; x++ {
				back = append(back, x)
			}
			if i > 0 && back[len(back)-(r.Last-r.First+1)-1]+1 >= r.First {
				t.Fatalf("runs touch or overlap at %v", r)
			}
		}
		if want := slices.Compact(slices.Sorted(slices.Values(v))); !slices.Equal(back, want) {
			t.Fatalf("runs cover %v, want %v", back, want)
		}
	})
}
