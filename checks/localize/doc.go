// Package localize turns pairwise test results into the components to
// blame: a host NIC, an access cable, a leaf port, a leaf, a leaf's uplink
// group, one uplink or a spine, each with its evidence and the
// alternatives the evidence cannot tell it from. It is pure: tests run
// through a Tester the caller supplies.
//
//	m, _ := localize.NewModel(topo, localize.Options{})            // topo from checks/topology
//	rounds, _ := schedule.Topology(m.ScheduleHosts(), schedule.LeafLabel, schedule.DefaultTopologyRounds)
//	s, err := localize.Run(ctx, m, tester, rounds, localize.Options{}) // 4 rounds + re-tests
//	for _, sus := range s.Suspects {
//		fmt.Println(sus.Rank, sus.Kind, sus.Name, sus.Alternatives) // 1 cable cable gpu-17:ens1f0np0 <-> leaf-02:swp1 []
//	}
//
// # The model
//
// Every test crosses, for sure, the two NICs, access cables and leaf ports
// of its ends and their leaves (and, between leaves, both leaves' uplink
// groups); between leaves it also crosses one of the equal-cost paths
// through the spines, chosen by ECMP out of the localiser's sight: the
// model knows every path and its probability, never which one a test took.
// A test turns out good, slow (below the floor without loss) or lossy.
// A fault need not spoil every test that crosses it: each fault in a fault
// set carries a strike rate (1, 0.55, 0.25 or 0.1: hard, gray,
// intermittent, flapping), the probability that it spoils a given test on
// its way. A test crossing several faults is spoilt by each independently
// (a noisy-OR) and shows the worst effect that struck: a faulty NIC slows
// without loss (a lossless fabric pauses rather than drops), a faulty
// cable, port or switch loses packets, a cable may corrupt one way only
// (its data direction loses, its acknowledgements suffer less). A test no
// fault struck reads as a healthy one: slow or lossy at the background
// rates measured in the session, per class — within a leaf, across leaves
// over hidden ECMP paths, and across leaves on known routes by how many
// tests of its round shared its busiest link (so a link the re-tests
// crowded is not taken for a slow one); the loss rate of tests within
// leaves is every test's, since a lossless fabric loses nothing for
// distance. A test between leaves mixes the predictions of its paths, so
// a faulty uplink explains about one in eight of its leaf's tests when the
// leaf has eight. A weak fault (strike rate below 1) must be several
// times likelier than not to be named: noise on a large fabric makes a few
// hosts look like one.
//
// Counters weigh in too: receive errors (CRC, FCS, symbol errors) at the
// end a cable corrupts towards, discards at a switch port, a link-down at
// a link's ends, a NIC's pause-storm watchdog (the NIC, and the slowness
// of its leaf, which is reported with it), a port's trained speed. Where
// counters were read and did not move, that is evidence as well.
//
// # Known routes (InfiniBand)
//
// Where the fabric's forwarding is known, NewRoutedModel takes Routes:
// per switch, the port it forwards each destination out of, as
// InfiniBand's linear forwarding tables say (IBRoutes builds them from
// checks/ibdiag's parsed ibroute or dump_fts and ibnetdiscover, or from
// ibtracert's hop lists). A test then crosses, for sure, the cables and
// switches of its route, and its acknowledgements those of the route back
// (which in IB may run through another spine): no mixture of equal-cost
// paths, so an uplink is named as a cable is. A cable or uplink may also
// run slow without loss (a link trained at a lower width or speed), and a
// leaf port's fault is one that drops what it sends (PortXmitDiscards).
// IB reads every port's PMA counters from any host, both ends of every
// link: IBReadings and IBCounterKind map the IBTA counters to kinds
// (SymbolErrorCounter, PortRcvErrors … to PhyErrors, LinkDownedCounter
// to LinkDown, PortXmitDiscards to Discards), and Degraded carries the
// ports' trained width. The rest of the machinery is the same.
//
// # The search
//
// The localiser looks for the most probable fault set (NetBouncer's and
// 007's tomography, as a likelihood with priors per component kind): lazy
// greedy additions, then removals, mode changes and swaps, with the
// background rates re-estimated from the tests the suspects do not touch.
// Each suspect's alternatives are the components that, swapped in,
// explain the data within a factor Options.Ambiguity (20): the uplinks of
// one leaf are interchangeable to tests (ECMP), a cable and its leaf port
// are until the switch counters are read. A fault that no single
// component makes likelier than not but a set of interchangeable ones
// does (a silent fault on one of a leaf's eight uplinks) is named through
// the set: the strongest member, with the others as alternatives. When
// bad tests are left unexplained, Result.Possible lists the likeliest
// components for them anyway, with their confidence (beside the suspects,
// if any; Refine keeps re-testing while there are some).
//
// # Re-tests
//
// NextRound proposes the tests whose outcomes best split the competing
// explanations (expected information gain over a tempered posterior, so a
// fault the schedule barely showed still earns a test): a suspect host
// against hosts that tested clean on its leaf and on others, clean hosts of
// a suspect leaf against clean hosts elsewhere. It returns nothing once no
// test can tell the explanations apart. Run adds the hosts no re-test
// uses, paired within their leaves and across leaves in turn (a fault that
// strikes some tests or rounds only needs more of them), and goes on to
// Options.MaxAdaptiveRounds (8) rounds.
//
// A caller that ran its own sweep (fabricctl check) records it with Add
// and calls Refine: it re-tests only while some bad test leaves an
// ambiguity (Result.Ambiguities: a suspect with alternatives, or bad tests
// no suspect explains, when no suspect was named or they point at a
// possible further fault), stops as soon as the suspects are exact or no
// test can split what is left, and reports each round with the
// ambiguities it was chosen to split and the component each re-test
// (Probe) bears on. With Options.Screen its rounds also pair the hosts no
// re-test uses, as Run's do. Nothing failed: no re-test.
//
// A Model is safe for concurrent use once built; a Localizer is not.
package localize
