// Package intset writes sets of integers as ranges of consecutive values, the
// way switch CLIs, Slurm host lists and humans write them: [26 0 1 2 3] is
// "0-3,26".
//
//	intset.Format([]int{5, 0, 1, 2}) // "0-2,5"
//	for _, r := range intset.Runs(ids) {
//		fmt.Println(r.Pad(3)) // "001-004", "010"
//	}
//
// Every function is pure and safe for concurrent use.
package intset
