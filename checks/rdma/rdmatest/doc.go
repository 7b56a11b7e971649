// Package rdmatest provides a fake perftest for tests of code that runs
// perftest through the agent: the test binary itself, linked into a PATH
// directory as ib_write_bw (and friends), behaves like a perftest pair.
//
//	func TestMain(m *testing.M) {
//		if rdmatest.IsFake() {
//			os.Exit(rdmatest.Main(os.Args[1:]))
//		}
//		os.Exit(m.Run())
//	}
//
//	t.Setenv("PATH", rdmatest.Path(t, "")+":"+os.Getenv("PATH"))
//
// The server listens on -p and answers one client; the client connects to
// its peer and fails at once when nobody listens ("Couldn't connect to …"),
// as perftest does. Both print a bandwidth table of 0.25 Gb/s (FAKE_GBPS),
// a fifth of that when either side's device is named slow*. A device named
// hang* (or FAKE_PERFTEST=hang) never finishes; FAKE_LISTEN_DELAY delays
// the server's listen; FAKE_RUN keeps a side running after its output;
// FAKE_CALIB_FAILS=N (with FAKE_STATE=DIR) makes the first N clients fail
// their CPU clock calibration, printing zeros in the rate columns as
// perftest -F does. A server whose port is taken says "Couldn't listen to
// port N" and exits 1, as perftest does.
//
// The agent refuses a device its host does not have: Sys makes a sysfs
// tree with the devices a test names (slow*, hang*…) for its Agent.
//
// Safe for concurrent use: every fake is its own process.
package rdmatest
