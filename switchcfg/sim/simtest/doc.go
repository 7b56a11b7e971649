// Package simtest starts switch simulators (package sim) for tests by
// platform name and opens fabricctl sessions (package session) to them over
// real SSH on 127.0.0.1, with the registered driver's session spec.
//
//	sw := simtest.Start(t, sim.Options{Platform: "junos"})
//	c := sw.Dial(t)               // a *session.Conn, closed at the end of the test
//	out, err := c.Send(ctx, "show configuration class-of-service")
//	sw.Running()                  // the simulator's read-back, from the test side
//
// It imports every driver (switchcfg/all), so a driver package's own tests
// use switchcfg/drivertest instead. Start picks a free port, writes the
// simulator's host key to a known_hosts file in t.TempDir() and closes
// everything in t.Cleanup. Every function is safe for concurrent use; each
// Switch is independent.
package simtest
