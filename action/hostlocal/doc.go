// Package hostlocal is `fabricctl host apply` on the host it runs on: roll back an apply that
// was interrupted, plan, refuse a plan that interrupts traffic unless told yes, apply it through
// the journal (hostcfg/journal: every setting's pre-image kept before it is written, every
// interface rolled back on failure) and report what happened (view.ApplyReport) in the
// command's output format, with the trouble on the log writer.
//
//	err := hostlocal.Run(ctx, h, desired, hostlocal.Options{StateDir: dir, Format: "table",
//		Stdout: os.Stdout, Stderr: os.Stderr})
//	if errors.Is(err, hostlocal.ErrReported) { os.Exit(1) } // already said on Stdout/Stderr
//
// WarnInterrupted is the warning `host plan` gives when an interrupted apply is pending.
//
// Run changes the host; two Runs on one host and state directory wait for each other through the
// journal's lock. Nothing here keeps state between calls.
package hostlocal
