package simtest

import (
	"testing"

	"github.com/fabricctl/fabricctl/switchcfg/all"
	"github.com/fabricctl/fabricctl/switchcfg/drivertest"
	"github.com/fabricctl/fabricctl/switchcfg/sim"
)

// Password is the login password Start gives a simulator when the options
// carry neither a password nor authorized keys.
const Password = drivertest.Password

// Switch is a running simulator plus what a session needs to reach it.
type Switch = drivertest.Simulator

// Start runs a simulator of opt.Platform on 127.0.0.1 for the rest of the
// test; sessions to it use the registered driver's session spec.
func Start(t testing.TB, opt sim.Options) *Switch {
	t.Helper()
	d, err := all.Registry().Driver(opt.Platform)
	if err != nil {
		t.Fatalf("starting simulator: %v", err)
	}
	return drivertest.StartSimulator(t, d, opt)
}
