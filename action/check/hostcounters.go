package check

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/fabricctl/fabricctl/agent/agentclient"
	"github.com/fabricctl/fabricctl/checks/localize"
	"github.com/fabricctl/fabricctl/checks/rdma"
	"github.com/fabricctl/fabricctl/checks/topology"
	"github.com/fabricctl/fabricctl/fabric"
)

// hostKinds are the host port counters the localiser weighs, by the
// source they are read from (rdma.PortReading's Sources) and their name
// there, with the kind they are evidence of at the host's end of its
// access cable:
//   - PhyErrors: frames that arrived corrupted at the NIC, so the cable or
//     transceivers towards the host: mlx5's rx_crc_errors_phy,
//     rx_symbol_err_phy, rx_pcs_symbol_err_phy (ethtool -S; the kernel's
//     Documentation/networking/device_drivers/ethernet/mellanox/mlx5/counters.rst),
//     the netdev's rx_crc_errors and rx_frame_errors
//     (Documentation/ABI/testing/sysfs-class-net-statistics), an
//     InfiniBand port's symbol_error, port_rcv_errors, link_error_recovery,
//     local_link_integrity_errors (counters/, sysfs-class-infiniband).
//   - LinkDown: the link went down: mlx5's link_down_events_phy, the
//     netdev's carrier_down_count (sysfs-class-net; carrier_changes counts
//     ups too), an InfiniBand port's link_downed.
//   - PauseStorm: the NIC's PFC stall watchdog fired: mlx5's
//     tx_pause_storm_warning_events and tx_pause_storm_error_events (the
//     NIC sent pauses for longer than its timeout; counters.rst), what
//     checks/evaluate judges as its pause-storm kind.
//
// Where checks/evaluate's taxonomy knows a name too, the kinds agree
// (TestHostKindsAgreeWithEvaluate): evaluate judges a test's own
// counters, this table places a port's on the localiser's components.
//
// The ethtool PHY error names are rdma.PhyErrorCounters (mlx5's, Broadcom
// bnxt_en's, Intel ice's and i40e's), the same list by which
// rdma.CountsPhyErrors decides that a port is read at all; the link-down
// ones rdma.LinkDownCounters.
var hostKinds = map[string]map[string]localize.CounterKind{
	rdma.SourceEthtool: withKind(rdma.PhyErrorCounters, localize.PhyErrors, withKind(rdma.LinkDownCounters, localize.LinkDown, map[string]localize.CounterKind{
		"tx_pause_storm_warning_events": localize.PauseStorm,
		"tx_pause_storm_error_events":   localize.PauseStorm,
	})),
	rdma.SourceStatistics: {
		"rx_crc_errors":   localize.PhyErrors,
		"rx_frame_errors": localize.PhyErrors,
	},
	rdma.SourceCarrier: {
		"carrier_down_count": localize.LinkDown,
	},
	rdma.SourcePort: {
		"symbol_error":                localize.PhyErrors,
		"port_rcv_errors":             localize.PhyErrors,
		"link_error_recovery":         localize.PhyErrors,
		"local_link_integrity_errors": localize.PhyErrors,
		"link_downed":                 localize.LinkDown,
	},
}

// withKind is m with every name of names mapped to k.
func withKind(names []string, k localize.CounterKind, m map[string]localize.CounterKind) map[string]localize.CounterKind {
	for _, n := range names {
		m[n] = k
	}
	return m
}

// unweighed are host counters that bear on a fault but that the
// localiser has no kind for (checks/localize's CounterKind: phy-errors,
// discards, link-down, degraded): they are listed, never turned into
// evidence of another kind.
var unweighed = []struct {
	re  *regexp.Regexp
	why string
}{
	{regexp.MustCompile(`^(rx|tx)_(pause_ctrl_phy|prio\d_pause|prio\d_pause_duration|global_pause)$`),
		"pause frames: a lossless fabric pauses under any congestion, so their count blames no component; a NIC's pause storm is weighed by its watchdog (tx_pause_storm_*_events)"},
	{regexp.MustCompile(`^(packet_seq_err|out_of_sequence|out_of_buffer|local_ack_timeout_err|duplicate_request|implied_nak_seq_err|rnr_nak_retry_err|req_cqe_error|resp_cqe_error|retry_exceeded_err|retry_rnr_exceeded_err|rcvd_seq_err|rcvd_rnr_err|send_rnr_err)$`),
		"transport retransmits and sequence errors count a connection's loss end to end, not a port's: each test's own counter evidence already carries them"},
	{regexp.MustCompile(`^rx_discards_phy$`),
		"NIC discards: the host's receive buffers overflowed; the localiser weighs discards at switch ports only"},
}

// notCounting is why a port whose NIC counts no receive error is left
// out.
const notCounting = "its NIC names no PHY receive-error counter (ethtool -S has no rx_crc_errors_phy or alike; virtio, veth): its zeros are not evidence, so the port is unknown to the localiser, not clean"

// HostCounter is a host port counter that was read but not weighed, and
// why; with Name empty, a whole port left out.
type HostCounter struct {
	At   fabric.Endpoint `json:"at"`
	Name string          `json:"name"`
	Why  string          `json:"why"`
}

// HostReadings turns one host's port-counters reply into readings for
// localize.Deltas at the host's end of each tested NIC's access cable
// (HOST:NETDEV, as topo cables it); ports topo does not cable are left
// out. Unweighed lists the counters read that bear on a fault the
// localiser cannot weigh (pause, retransmits, NIC discards), once a name,
// and the cabled ports whose NIC counts no receive error at all
// (rdma.CountsPhyErrors; Name empty): those give no reading, so the localiser
// takes them for unknown rather than clean. The port-counters op reads no
// transceiver data (ethtool -m), so a module's receive power is not among
// them.
func HostReadings(host string, pc rdma.PortCounters, topo *topology.Topology) (readings []localize.Reading, unweighedRead []HostCounter) {
	seen := map[string]bool{}
	for _, p := range pc.Ports {
		if p.Netdev == "" || topo == nil {
			continue
		}
		at := fabric.Endpoint{Device: host, Port: p.Netdev}
		if len(topo.LinksAt(at)) == 0 {
			continue
		}
		if !rdma.CountsPhyErrors(p) {
			unweighedRead = append(unweighedRead, HostCounter{At: at, Why: notCounting})
			continue
		}
		for _, s := range p.Sources {
			kinds := hostKinds[s.Name]
			for _, name := range sortedNames(s.Counters) {
				if k, ok := kinds[name]; ok {
					readings = append(readings, localize.Reading{At: at, Kind: k, Name: name, Value: s.Counters[name]})
					continue
				}
				for _, u := range unweighed {
					if u.re.MatchString(name) && !seen[at.String()+" "+name] {
						seen[at.String()+" "+name] = true
						unweighedRead = append(unweighedRead, HostCounter{At: at, Name: name, Why: u.why})
					}
				}
			}
		}
	}
	return readings, unweighedRead
}

func sortedNames(m map[string]uint64) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// NotWeighedLines sums up what HostReadings read but left unweighed, one
// line per reason: the counters' names and the ports they were read at
// ("rx_prio3_pause, tx_pause_ctrl_phy at gpu-01:eth0, gpu-02:eth0: pause
// frames: …"), or the ports alone where a whole port was left out
// ("ports gpu-03:eth1: its NIC names no PHY receive-error counter …").
// Each list names at most maxListed, then how many more. Sorted.
func NotWeighedLines(hcs []HostCounter) []string {
	type group struct{ names, ports []string }
	byWhy := map[string]*group{}
	for _, hc := range hcs {
		g := byWhy[hc.Why]
		if g == nil {
			g = &group{}
			byWhy[hc.Why] = g
		}
		if hc.Name != "" {
			g.names = append(g.names, hc.Name)
		}
		g.ports = append(g.ports, hc.At.String())
	}
	var out []string
	for why, g := range byWhy {
		ports := "ports " + listed(g.ports)
		if len(g.names) > 0 {
			ports = listed(g.names) + " at " + listed(g.ports)
		}
		out = append(out, ports+": "+why)
	}
	slices.Sort(out)
	return out
}

// maxListed is how many names NotWeighedLines lists before "and N more".
const maxListed = 6

// listed is ss sorted and without repeats, comma-separated, cut after
// maxListed.
func listed(ss []string) string {
	ss = slices.Clone(ss)
	slices.Sort(ss)
	ss = slices.Compact(ss)
	if len(ss) <= maxListed {
		return strings.Join(ss, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(ss[:maxListed], ", "), len(ss)-maxListed)
}

// WithHostCounters is src with every host's port counters added (each
// host's agent answering rdma.OpCounters, HostReadings over topo): the
// hosts' ends of their access cables become counter evidence beside the
// switch ports, read before the sweep and after it as the switches are. A
// host that cannot be read is unread ("gpu-03: reading port counters:
// …"; "gpu-03: port eth0: its NIC names no PHY receive-error counter …"
// when none of its cabled ports counts receive errors), never a failure.
// What the read hosts' counters hold but the localiser does not weigh,
// and their ports that count no receive error, go into NotWeighed
// (NotWeighedLines). A nil src reads the hosts alone.
func WithHostCounters(src SwitchCounterSource, hosts []Host, topo *topology.Topology) SwitchCounterSource {
	return func(ctx context.Context) SwitchReading {
		var out SwitchReading
		if src != nil {
			out = src(ctx)
		}
		type got struct {
			rs  []localize.Reading
			unw []HostCounter
			err error
		}
		res := make([]got, len(hosts))
		var wg sync.WaitGroup
		for i, h := range hosts {
			wg.Go(func() {
				var pc rdma.PortCounters
				if err := agentclient.Call(ctx, h.Agent, rdma.OpCounters, nil, &pc); err != nil {
					res[i].err = fmt.Errorf("reading port counters: %w", err)
					return
				}
				res[i].rs, res[i].unw = HostReadings(h.Intent.Host, pc, topo)
				if len(res[i].rs) > 0 {
					return
				}
				for _, u := range res[i].unw {
					if u.Name == "" {
						res[i].err = fmt.Errorf("port %s: %s", u.At.Port, u.Why)
						return
					}
				}
			})
		}
		wg.Wait()
		var unw []HostCounter
		for i, h := range hosts {
			if res[i].err != nil {
				out.Unread = append(out.Unread, fmt.Sprintf("%s: %v", h.Intent.Host, res[i].err))
				continue
			}
			out.Readings = append(out.Readings, res[i].rs...)
			out.Read = append(out.Read, h.Intent.Host)
			unw = append(unw, res[i].unw...)
		}
		out.NotWeighed = append(out.NotWeighed, NotWeighedLines(unw)...)
		return out
	}
}
