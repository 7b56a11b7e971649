// Package validate is what `fabricctl validate` does: load a fabric or
// profile file with its includes, decode it strictly, check every rule,
// render every subnet manager's partitions (as OpenSM would read them), and
// report every finding — errors and warnings alike — in one Result, the
// document `validate -o json` prints (like terraform validate -json):
//
//	res := validate.Run("fabric.yaml", validate.Options{Registry: all.Registry()})
//	if !res.Valid { … res.Diagnostics … }   // each FILE:LINE:COL, path, severity, code
//
// Run never fails: a file that cannot be read is a Result with one error.
// Warnings (fabric.Warning) never make a file invalid. Run is safe for
// concurrent use.
package validate
