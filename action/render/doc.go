// Package render is fabricctl's render pipeline: from a loaded fabric to
// the files `fabricctl render` prints or writes — each host's desired state
// as JSON, each switch's canonical intent (YAML) and native configuration
// (its driver's Render, named with Info.FileExt), each subnet manager's
// partitions (its driver's Render), and for a profiles-only file a preview
// of every profile.
//
//	arts, err := render.Artifacts(f, all.Registry(), "", nil)       // everything, in memory
//	arts, err = render.Artifacts(f, reg, "", func(a render.Artifact) error {
//		return tree.Add(a.Path, a.Bytes())                    // streamed as rendered
//	})
//
// Targets render independently on one worker per CPU; the result keeps the
// fabric's order (hosts, switches, subnet managers, then profiles). Every
// render error is reported, joined; the first error of the sink stops the
// work. Result.WriteText prints the artifacts for people, each under a header.
// Artifacts is safe for concurrent use.
package render
