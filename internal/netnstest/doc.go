// Package netnstest builds small test networks on this machine: a Linux
// bridge in the initial namespace (the "switch", with the controller's
// address on it) and one network namespace per host, joined to the bridge by
// a veth pair whose namespace end is called eth0.
//
//	n := netnstest.New(t, 3)        // 10.77.<k>.1 on the bridge; hosts .11, .12, .13
//	srv := sshdtest.Start(t, sshdtest.Options{Netns: n.Hosts[0].Netns, Addr: n.Hosts[0].Addr, Port: 22})
//
// Every address is in 10.77.0.0/16 and lives only on these namespaces; nothing
// is routed off the machine. Needs root and iproute2; skips loudly otherwise.
// Everything is removed when the test ends. Networks from parallel tests get
// distinct subnets and names.
package netnstest
