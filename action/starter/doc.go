// Package starter writes the starter fabric of `fabricctl init`: a small
// Fabric a user edits into their own — two hosts (by default) cabled to one
// leaf of a chosen platform, the standard lossless RoCE v2 profile, and the
// checks that prove it — with comments that say what to edit and in which
// order to bring it up (validate, render, plan, apply a canary, check).
//
//	files, err := starter.Files(all.Registry(), "my-fabric", starter.Options{Platform: "sonic"})
//	if err == nil {
//		err = starter.Write(files, false) // refuses to overwrite
//	}
//
// Files builds the documents in memory and loads them with fabric.Load and
// the registry before returning them, so whatever it returns passes
// `fabricctl validate` (and renders: validation renders every switch). An
// out path that ends in .yaml or .yml, or "-" (stdout), gets one file with
// the profile inline; any other is a directory that gets fabric.yaml and
// roce-lossless.yaml, the fabric including the profile.
//
// Everything here is safe for concurrent use; Write touches only the paths
// of the files it is given.
package starter
