package congestion

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/checks/evaluate"
)

// Family is a NIC driver or a switch OS: the namespace its counters are
// named in.
type Family string

// The families whose counters the table names.
const (
	MLX5    Family = "mlx5"    // NVIDIA ConnectX: ethtool -S of mlx5_core and mlx5_ib hw_counters
	RXE     Family = "rxe"     // soft-RoCE: rdma_rxe hw_counters
	BNXTRE  Family = "bnxt_re" // Broadcom NetXtreme-E RoCE: bnxt_re hw_counters
	IRDMA   Family = "irdma"   // Intel E810: irdma hw_counters and ice ethtool -S
	SONiC   Family = "sonic"   // show pfc counters, show queue counters, show queue wredcounters
	Cumulus Family = "cumulus" // nv show interface X counters qos -o json
	EOS     Family = "eos"     // show priority-flow-control counters detail, show … queue … | json
	Junos   Family = "junos"   // show interfaces extensive (PFC section), show interfaces queue
	NXOS    Family = "nxos"    // show queuing interface
)

// Signal is what a counter measures, normalised across families.
type Signal string

// The signals. Per-priority signals carry the priority in Name.Priority.
const (
	PauseRx         Signal = "pause-rx"          // PFC pause frames received (the peer paused this port)
	PauseTx         Signal = "pause-tx"          // PFC pause frames sent (this port paused its peer)
	PauseDurationRx Signal = "pause-duration-rx" // time this port was paused
	PauseDurationTx Signal = "pause-duration-tx" // time this port asked its peer to pause
	GlobalPause     Signal = "global-pause"      // 802.3x link pause: every priority stops
	PauseStormWarn  Signal = "pause-storm-warn"  // the NIC's stall detector passed its warning mark
	PauseStormError Signal = "pause-storm-error" // the NIC's stall detector passed its critical mark and stopped pausing
	Drop            Signal = "drop"              // packets dropped for lack of buffer
	ECNMarked       Signal = "ecn-marked"        // packets that arrived (NIC) or left (switch) with CE set
	CNPSent         Signal = "cnp-sent"          // CNPs the notification point sent for CE packets
	CNPHandled      Signal = "cnp-handled"       // CNPs the reaction point acted on (rate cut)
	CNPIgnored      Signal = "cnp-ignored"       // CNPs the reaction point received and ignored
	OutOfSequence   Signal = "out-of-sequence"   // packets arrived with a PSN gap: loss upstream
	SeqError        Signal = "sequence-error"    // NAKs for sequence errors, implied NAKs
	Retransmit      Signal = "retransmit"        // timeouts, duplicates, retries
	Traffic         Signal = "traffic"           // packets that crossed the port (or priority)
)

// kinds maps a signal to the evaluate.Kind of the same evidence, so that
// this table and evaluate.KindOf tell one story.
var kinds = map[Signal]evaluate.Kind{
	PauseRx: evaluate.Pause, PauseTx: evaluate.Pause, GlobalPause: evaluate.Pause,
	PauseStormWarn: evaluate.PauseStorm, PauseStormError: evaluate.PauseStorm,
	Drop: evaluate.Drop, ECNMarked: evaluate.ECNMark,
	CNPSent: evaluate.CNP, CNPHandled: evaluate.CNP, CNPIgnored: evaluate.CNP,
	OutOfSequence: evaluate.OutOfSequence, SeqError: evaluate.SeqError, Retransmit: evaluate.Retransmit,
}

// Kind returns the evaluate.Kind of the signal, "" for durations and traffic.
func (s Signal) Kind() evaluate.Kind { return kinds[s] }

// Counter is one counter a family documents: its name, "{p}" standing for
// the priority (or traffic class) in per-priority counters.
type Counter struct {
	Family  Family
	Pattern string // "rx_prio{p}_pause", "np_cnp_sent", "Rx PFC{p}"
	Signal  Signal
	// Where is where the counter is read: "ethtool -S <if>",
	// "hw_counters" (/sys/class/infiniband/<dev>/ports/<n>/hw_counters/),
	// or the switch command.
	Where string
	// Unit of a duration counter: microseconds ("us") or pause quanta
	// ("quanta", 512 bit times); "" otherwise.
	Unit string
	// Doc is the page that documents the counter.
	Doc string
	// Note says what a reader must know (an older name, a caveat).
	Note string
}

// PerPriority reports whether the counter is counted per priority.
func (c Counter) PerPriority() bool { return strings.Contains(c.Pattern, "{p}") }

// The documents the table cites.
const (
	docMLX5Ethtool = "https://docs.kernel.org/networking/device_drivers/ethernet/mellanox/mlx5/counters.html"
	docMLX5HW      = "https://enterprise-support.nvidia.com/s/article/understanding-mlx5-linux-counters-and-status-parameters"
	docRXE         = "https://github.com/torvalds/linux/blob/master/drivers/infiniband/sw/rxe/rxe_hw_counters.c"
	docBNXTRE      = "https://github.com/torvalds/linux/blob/master/drivers/infiniband/hw/bnxt_re/hw_counters.c"
	docIRDMA       = "https://github.com/torvalds/linux/blob/master/drivers/infiniband/hw/irdma/verbs.c"
	docICE         = "https://edc.intel.com/content/www/us/en/design/products/ethernet/800-series-linux-flow-control-configuration-guide-for-rdma-use-c/"
	docSONiC       = "https://github.com/sonic-net/sonic-utilities/blob/master/doc/Command-Reference.md"
	docCumulus     = "https://docs.nvidia.com/networking-ethernet-software/cumulus-linux/Layer-1-and-Switch-Ports/Quality-of-Service/"
	docEOS         = "https://www.arista.com/en/um-eos/eos-data-center-bridging-and-ecn"
	docJunos       = "https://www.juniper.net/documentation/us/en/software/junos/cli-reference/topics/ref/command/show-interfaces-extensive.html"
	docJunosQueue  = "https://www.juniper.net/documentation/us/en/software/junos/cos/topics/ref/command/show-interfaces-queue.html"
	docNXOS        = "https://www.cisco.com/c/en/us/td/docs/switches/datacenter/nexus9000/sw/93x/qos/configuration/guide/b-cisco-nexus-9000-nx-os-quality-of-service-configuration-guide-93x/m-configuring-priority-flow-control.html"
)

const (
	ethtool = "ethtool -S <if>"
	hwc     = "hw_counters"
	nvQoS   = "nv show interface <if> counters qos -o json"
)

// Table lists every counter the congestion verdict reads, per family, with
// the document that names it. A family absent from a signal's rows does not
// have that counter: its verdict is "not observable", never a pass.
var Table = []Counter{
	// mlx5: ethtool -S (mlx5_core)
	{MLX5, "rx_prio{p}_pause", PauseRx, ethtool, "", docMLX5Ethtool, ""},
	{MLX5, "tx_prio{p}_pause", PauseTx, ethtool, "", docMLX5Ethtool, ""},
	{MLX5, "rx_prio{p}_pause_duration", PauseDurationRx, ethtool, "us", docMLX5Ethtool, ""},
	{MLX5, "tx_prio{p}_pause_duration", PauseDurationTx, ethtool, "us", docMLX5Ethtool, ""},
	{MLX5, "rx_prio{p}_packets", Traffic, ethtool, "", docMLX5Ethtool, ""},
	{MLX5, "tx_prio{p}_packets", Traffic, ethtool, "", docMLX5Ethtool, "sent on the priority; traffic seen by the receive side is rx_prio{p}_packets"},
	{MLX5, "rx_prio{p}_discards", Drop, ethtool, "", docMLX5Ethtool, "buffer drops on the priority; not on every firmware"},
	{MLX5, "rx_discards_phy", Drop, ethtool, "", docMLX5Ethtool, "every priority"},
	{MLX5, "rx_out_of_buffer", Drop, ethtool, "", docMLX5Ethtool, "no receive WQE on a netdev ring"},
	{MLX5, "rx_global_pause", GlobalPause, ethtool, "", docMLX5Ethtool, "counted only when 802.3x global pause is on"},
	{MLX5, "tx_global_pause", GlobalPause, ethtool, "", docMLX5Ethtool, "counted only when 802.3x global pause is on"},
	{MLX5, "tx_pause_storm_warning_events", PauseStormWarn, ethtool, "", docMLX5Ethtool, ""},
	{MLX5, "tx_pause_storm_error_events", PauseStormError, ethtool, "", docMLX5Ethtool, ""},
	// mlx5: hw_counters (mlx5_ib)
	{MLX5, "np_ecn_marked_roce_packets", ECNMarked, hwc, "", docMLX5HW, ""},
	{MLX5, "np_cnp_sent", CNPSent, hwc, "", docMLX5HW, ""},
	{MLX5, "rp_cnp_handled", CNPHandled, hwc, "", docMLX5HW, ""},
	{MLX5, "rp_cnp_ignored", CNPIgnored, hwc, "", docMLX5HW, ""},
	{MLX5, "out_of_sequence", OutOfSequence, hwc, "", docMLX5HW, ""},
	{MLX5, "packet_seq_err", SeqError, hwc, "", docMLX5HW, ""},
	{MLX5, "implied_nak_seq_err", SeqError, hwc, "", docMLX5HW, ""},
	{MLX5, "local_ack_timeout_err", Retransmit, hwc, "", docMLX5HW, ""},
	{MLX5, "duplicate_request", Retransmit, hwc, "", docMLX5HW, ""},
	{MLX5, "rnr_nak_retry_err", Retransmit, hwc, "", docMLX5HW, "receiver not ready, not loss; counted because it retransmits"},
	{MLX5, "roce_adp_retrans", Retransmit, hwc, "", docMLX5HW, ""},
	{MLX5, "roce_adp_retrans_to", Retransmit, hwc, "", docMLX5HW, ""},
	{MLX5, "out_of_buffer", Drop, hwc, "", docMLX5HW, "no receive WQE on an RDMA receive queue"},
	{MLX5, "rx_write_requests", Traffic, hwc, "", docMLX5HW, ""},
	{MLX5, "rx_read_requests", Traffic, hwc, "", docMLX5HW, ""},
	// rxe: hw_counters only; no pause, ECN or CNP counter exists.
	{RXE, "out_of_seq_request", OutOfSequence, hwc, "", docRXE, ""},
	{RXE, "rcvd_seq_err", SeqError, hwc, "", docRXE, ""},
	{RXE, "duplicate_request", Retransmit, hwc, "", docRXE, ""},
	{RXE, "completer_retry_err", Retransmit, hwc, "", docRXE, ""},
	{RXE, "retry_exceeded_err", Retransmit, hwc, "", docRXE, ""},
	{RXE, "retry_rnr_exceeded_err", Retransmit, hwc, "", docRXE, ""},
	{RXE, "rcvd_rnr_err", Retransmit, hwc, "", docRXE, "RNR NAKs received: receiver not ready"},
	{RXE, "send_rnr_err", Retransmit, hwc, "", docRXE, "RNR NAKs sent"},
	{RXE, "rcvd_pkts", Traffic, hwc, "", docRXE, ""},
	// bnxt_re: hw_counters; newer kernels use mlx5's names for the same counters.
	{BNXTRE, "packet_seq_err", SeqError, hwc, "", docBNXTRE, "seq_err_naks_rcvd before Linux 6.9"},
	{BNXTRE, "seq_err_naks_rcvd", SeqError, hwc, "", docBNXTRE, "older name of packet_seq_err"},
	{BNXTRE, "implied_nak_seq_err", SeqError, hwc, "", docBNXTRE, "missing_resp before Linux 6.9"},
	{BNXTRE, "missing_resp", SeqError, hwc, "", docBNXTRE, "older name of implied_nak_seq_err"},
	{BNXTRE, "local_ack_timeout_err", Retransmit, hwc, "", docBNXTRE, "to_retransmits before Linux 6.9"},
	{BNXTRE, "to_retransmits", Retransmit, hwc, "", docBNXTRE, "older name of local_ack_timeout_err"},
	{BNXTRE, "duplicate_request", Retransmit, hwc, "", docBNXTRE, "dup_req before Linux 6.9"},
	{BNXTRE, "dup_req", Retransmit, hwc, "", docBNXTRE, "older name of duplicate_request"},
	{BNXTRE, "max_retry_exceeded", Retransmit, hwc, "", docBNXTRE, ""},
	{BNXTRE, "rx_roce_discards", Drop, hwc, "", docBNXTRE, ""},
	{BNXTRE, "rx_pkts", Traffic, hwc, "", docBNXTRE, ""},
	// irdma (E810 RoCE): hw_counters; ice: ethtool -S per-priority XOFF.
	{IRDMA, "RxECNMrkd", ECNMarked, hwc, "", docIRDMA, "gen2 (E810) only"},
	{IRDMA, "cnpSent", CNPSent, hwc, "", docIRDMA, "gen2 (E810) only"},
	{IRDMA, "cnpHandled", CNPHandled, hwc, "", docIRDMA, "gen2 (E810) only"},
	{IRDMA, "cnpIgnored", CNPIgnored, hwc, "", docIRDMA, "gen2 (E810) only"},
	{IRDMA, "ip4InDiscards", Drop, hwc, "", docIRDMA, ""},
	{IRDMA, "ip6InDiscards", Drop, hwc, "", docIRDMA, ""},
	{IRDMA, "rx_priority_{p}_xoff.nic", PauseRx, ethtool, "", docICE, "every priority of a traffic class counts together"},
	{IRDMA, "tx_priority_{p}_xoff.nic", PauseTx, ethtool, "", docICE, "every priority of a traffic class counts together"},
	// SONiC: the columns of show pfc counters (pfcstat), show queue counters
	// and show queue wredcounters, unicast queue N carrying traffic class N.
	{SONiC, "Rx PFC{p}", PauseRx, "show pfc counters", "", docSONiC, "table \"Port Rx\", column PFC{p}"},
	{SONiC, "Tx PFC{p}", PauseTx, "show pfc counters", "", docSONiC, "table \"Port Tx\", column PFC{p}"},
	{SONiC, "UC{p} Drop/pkts", Drop, "show queue counters", "", docSONiC, "egress queue = traffic class"},
	{SONiC, "UC{p} Counter/pkts", Traffic, "show queue counters", "", docSONiC, "egress queue = traffic class"},
	{SONiC, "UC{p} WredDrp/pkts", Drop, "show queue wredcounters", "", docSONiC, "egress queue = traffic class"},
	{SONiC, "UC{p} EcnMarked/pkts", ECNMarked, "show queue wredcounters", "", docSONiC, "egress queue = traffic class"},
	// Cumulus Linux (NVUE 5.5 and later): the JSON of the port's QoS counters,
	// per switch priority (pfc-stats) and per traffic class (egress-queue-stats).
	{Cumulus, "pfc-stats {p} rx-pause-frames", PauseRx, nvQoS, "", docCumulus, ""},
	{Cumulus, "pfc-stats {p} tx-pause-frames", PauseTx, nvQoS, "", docCumulus, ""},
	{Cumulus, "pfc-stats {p} rx-pause-duration", PauseDurationRx, nvQoS, "us", docCumulus, ""},
	{Cumulus, "pfc-stats {p} tx-pause-duration", PauseDurationTx, nvQoS, "us", docCumulus, ""},
	{Cumulus, "egress-queue-stats {p} ecn-marked-frames", ECNMarked, nvQoS, "", docCumulus, "per traffic class; Spectrum-1 and -2 count ECN marks per port only (port-stats), where this is absent"},
	{Cumulus, "egress-queue-stats {p} tx-uc-buffer-discards", Drop, nvQoS, "", docCumulus, "per traffic class; a frame count (the table view prints it as bytes)"},
	{Cumulus, "egress-queue-stats {p} wred-discards", Drop, nvQoS, "", docCumulus, "per traffic class"},
	// Arista EOS: eAPI JSON.
	{EOS, "Priority {p} RxPfc", PauseRx, "show priority-flow-control counters detail | json", "", docEOS, ""},
	{EOS, "Priority {p} TxPfc", PauseTx, "show priority-flow-control counters detail | json", "", docEOS, ""},
	{EOS, "RxPfc", PauseRx, "show priority-flow-control counters detail | json", "", docEOS, "all priorities together"},
	{EOS, "TxPfc", PauseTx, "show priority-flow-control counters detail | json", "", docEOS, "all priorities together"},
	{EOS, "TxQ{p} DropPkts", Drop, "show interfaces counters queue detail | json", "", docEOS, "unicast queue of traffic class {p}, drop precedences summed"},
	{EOS, "TxQ{p} EcnMarked", ECNMarked, "show qos interfaces ecn counters queue | json", "", docEOS, "egress queue = traffic class; counted only with random-detect ecn count"},
	// Junos (QFX): show interfaces extensive and show interfaces queue.
	{Junos, "PFC priority {p} Received", PauseRx, "show interfaces extensive | display json", "", docJunos, "ethernet-mac-pfc-statistics (MAC Priority Flow Control Statistics)"},
	{Junos, "PFC priority {p} Transmitted", PauseTx, "show interfaces extensive | display json", "", docJunos, "ethernet-mac-pfc-statistics (MAC Priority Flow Control Statistics)"},
	{Junos, "Queue counters {p} Dropped packets", Drop, "show interfaces extensive | display json", "", docJunos, "egress queue number, which is the forwarding class's queue, not necessarily the priority"},
	{Junos, "Queue {p} Tail-dropped packets", Drop, "show interfaces queue", "", docJunosQueue, "egress queue number, which is the forwarding class's queue, not necessarily the priority"},
	{Junos, "Queue {p} RED-dropped packets", Drop, "show interfaces queue", "", docJunosQueue, "egress queue number; printed where the platform counts WRED drops"},
	{Junos, "Queue {p} Total-dropped packets", Drop, "show interfaces queue", "", docJunosQueue, "egress queue number; tail, RED and rate-limit drops together"},
	{Junos, "Queue {p} ECN-CE packets", ECNMarked, "show interfaces queue", "", docJunosQueue, "egress queue number; printed where the platform counts ECN marks"},
	// NX-OS (Nexus 9000): show queuing interface. No per-queue ECN counter
	// was found in its output: ECN is not observable on NX-OS.
	{NXOS, "PFC COS {p} RxCount", PauseRx, "show queuing interface", "", docNXOS, "PFC Statistics table"},
	{NXOS, "PFC COS {p} TxCount", PauseTx, "show queuing interface", "", docNXOS, "PFC Statistics table"},
	{NXOS, "RxPPP", PauseRx, "show queuing interface", "", docNXOS, "all priorities together"},
	{NXOS, "TxPPP", PauseTx, "show queuing interface", "", docNXOS, "all priorities together"},
	{NXOS, "QOS GROUP {p} WRED/AFD & Tail Drop Pkts", Drop, "show queuing interface", "", docNXOS, "unicast, per qos-group (= traffic class under the RoCE maps)"},
	{NXOS, "QOS GROUP {p} WD & Tail Drop Pkts", Drop, "show queuing interface", "", docNXOS, "unicast, per qos-group; drops of the PFC watchdog included"},
	{NXOS, "Ingress Overflow Drop Pkts", Drop, "show queuing interface", "", docNXOS, "every priority (Per Port Ingress Statistics)"},
	{NXOS, "Ingress MMU Drop Pkts", Drop, "show queuing interface", "", docNXOS, "every priority (Port Ingress Statistics, where printed)"},
}

// Name is a counter name read against the table.
type Name struct {
	Counter
	// Key is the name as the reading has it ("ethtool/rx_prio3_pause").
	Key string
	// Priority is the priority of a per-priority counter, -1 otherwise.
	Priority int
}

type matcher struct {
	c  Counter
	re *regexp.Regexp // nil for a plain name
}

var matchers = func() map[Family][]matcher {
	out := map[Family][]matcher{}
	for _, c := range Table {
		m := matcher{c: c}
		if c.PerPriority() {
			m.re = regexp.MustCompile("^" + strings.ReplaceAll(regexp.QuoteMeta(c.Pattern), `\{p\}`, "([0-7])") + "$")
		}
		out[c.Family] = append(out[c.Family], m)
	}
	return out
}()

// bare is the counter name of a key: the part after the source
// ("ethtool/rx_prio3_pause" → "rx_prio3_pause"), the key itself without one.
// Switch names may hold "/" ("UC3 Drop/pkts"), so only a known host source
// prefix is cut.
func bare(key string) string {
	for _, src := range []string{"ethtool/", "hw_counters/", "counters/", "statistics/", "carrier/"} {
		if rest, ok := strings.CutPrefix(key, src); ok {
			return rest
		}
	}
	return key
}

// Lookup reads a counter key of a family against the table.
func Lookup(f Family, key string) (Name, bool) {
	name := bare(key)
	for _, m := range matchers[f] {
		if m.re == nil {
			if m.c.Pattern == name {
				return Name{Counter: m.c, Key: key, Priority: -1}, true
			}
			continue
		}
		if sm := m.re.FindStringSubmatch(name); sm != nil {
			p, _ := strconv.Atoi(sm[1])
			return Name{Counter: m.c, Key: key, Priority: p}, true
		}
	}
	return Name{}, false
}

// Documents reports whether the family has a counter of the signal at all.
func Documents(f Family, s Signal) bool {
	return slices.ContainsFunc(matchers[f], func(m matcher) bool { return m.c.Signal == s })
}

// Families lists the families of the table, NICs first, in table order.
func Families() []Family {
	var out []Family
	for _, c := range Table {
		if !slices.Contains(out, c.Family) {
			out = append(out, c.Family)
		}
	}
	return out
}

// Switch reports whether the family is a switch OS.
func (f Family) Switch() bool {
	switch f {
	case SONiC, Cumulus, EOS, Junos, NXOS:
		return true
	}
	return false
}

// Detect guesses a host port's family from the names of its counters:
// rxe and mlx5 have names no other family has. "" when it cannot tell.
func Detect(keys []string) Family {
	has := map[string]bool{}
	for _, k := range keys {
		has[bare(k)] = true
	}
	switch {
	case has["rcvd_seq_err"] || has["out_of_seq_request"] || has["completer_retry_err"]:
		return RXE
	case has["np_cnp_sent"] || has["out_of_sequence"] || has["rx_discards_phy"] || has["rx_prio0_pause"]:
		return MLX5
	case has["cnpHandled"] || has["ip4InDiscards"] || has["rx_priority_0_xoff.nic"]:
		return IRDMA
	case has["seq_err_naks_rcvd"] || has["rx_roce_discards"] || has["to_retransmits"]:
		return BNXTRE
	}
	return ""
}
