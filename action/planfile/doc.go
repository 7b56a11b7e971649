// Package planfile is the saved plan of `fabricctl plan --out FILE`, which
// `fabricctl apply FILE` applies — Terraform's model: a saved plan applies
// without asking only when nothing changed since it was saved.
//
// A File records the fabric file it was planned from (absolute path and
// SHA-256 of its bytes), the targets selected, every target's changes, when
// it was made and by which fabricctl:
//
//	pf := planfile.New(abs, data, targets, plan, build, time.Now())
//	err := planfile.Write(path, pf)          // atomically (internal/atomicfile)
//	pf, err = planfile.Read(path)            // strict: unknown fields, other kinds refused
//	err = pf.CheckFabric(fileFlag, data)     // ErrOtherFabric, ErrFabricChanged
//	if d := planfile.Drift(pf.Plan, fresh); len(d) > 0 { … } // ErrDrifted: refuse
//
// Drift compares the saved plan with one made now, target by target and
// change by change, exactly: any difference — a setting that changed on the
// device, a change gone or new, a target observed or not — refuses the
// apply. Everything here is pure but Read and Write; all of it is safe for
// concurrent use.
package planfile
