package pcitopo

import "testing"

// FuzzClassify: arbitrary sysfs paths never panic, and the class is symmetric.
func FuzzClassify(f *testing.F) {
	for _, a := range all {
		f.Add(a.SysfsPath, gpu1.SysfsPath, a.NUMANode, 0)
	}
	f.Fuzz(func(t *testing.T, pa, pb string, na, nb int) {
		a, b := Device{"a", pa, na}, Device{"b", pb, nb}
		ab, err1 := Classify(a, b)
		ba, err2 := Classify(b, a)
		if (err1 == nil) != (err2 == nil) || ab != ba {
			t.Fatalf("asymmetric: %s/%v vs %s/%v", ab, err1, ba, err2)
		}
	})
}
