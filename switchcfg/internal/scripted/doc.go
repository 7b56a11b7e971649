// Package scripted is a test double shared by the driver tests of
// switchcfg/eos, nxos and junos: a switchcfg.Session that answers each
// command from a script, rejects chosen commands the way a real session
// reports a refused line, and drops the connection on a chosen command.
//
//	f := &scripted.Session{
//		Replies: map[string]string{"show | compare": diff},
//		Rejects: map[string]string{badLine: "error: syntax error"},
//		Drops:   map[string]bool{"commit": true},
//	}
//	res, err := driver.Push(ctx, f, cfg, opts)
//	// f.Sent is every command the driver sent, in order.
//
// It is for tests only (the simulator in switchcfg/sim is the test double
// that speaks SSH). A Session is not safe for concurrent use.
package scripted
