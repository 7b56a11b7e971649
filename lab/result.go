package lab

import (
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// Result is what a scenario writes (StateDir/results/NAME.json) and prints: machine-readable,
// stable field names, decoded by DecodeResult.
type Result struct {
	APIVersion string     `json:"apiVersion"`
	Scenario   string     `json:"scenario"`
	Passed     bool       `json:"passed"`
	StartedAt  time.Time  `json:"startedAt"`
	DurationMS int64      `json:"durationMs"`
	Hosts      []HostInfo `json:"hosts,omitempty"`     // smoke: what every VM-host reports
	Perftests  []Perftest `json:"perftests,omitempty"` // perftest, lossy
	Netem      []Netem    `json:"netem,omitempty"`     // lossy: the faults injected
	Checks     []Check    `json:"checks"`              // every assertion the scenario made, passed or not
}

// Check is one assertion of a scenario.
type Check struct {
	Name   string `json:"name"`
	Passed bool   `json:"passed"`
	Detail string `json:"detail,omitempty"`
}

// HostInfo is lab-info's report of one VM-host.
type HostInfo struct {
	Host    string       `json:"host"`
	Kernel  string       `json:"kernel"`
	Devices []RDMADevice `json:"devices"`
}

// RDMADevice is one /sys/class/infiniband/<dev>.
type RDMADevice struct {
	Name     string     `json:"name"`
	Netdev   string     `json:"netdev"`    // /sys/class/infiniband/<dev>/parent
	NodeGUID string     `json:"node_guid"` // /sys/class/infiniband/<dev>/node_guid
	Ports    []RDMAPort `json:"ports"`
}

// RDMAPort is /sys/class/infiniband/<dev>/ports/<n>.
type RDMAPort struct {
	Port      int       `json:"port"`
	State     string    `json:"state"`      // ports/<n>/state, "4: ACTIVE"
	PhysState string    `json:"phys_state"` // ports/<n>/phys_state, "5: LinkUp"
	LinkLayer string    `json:"link_layer"` // ports/<n>/link_layer
	Rate      string    `json:"rate"`       // ports/<n>/rate
	ActiveMTU string    `json:"active_mtu"` // ibv_devinfo active_mtu
	GIDs      []RDMAGID `json:"gids"`
}

// RDMAGID is one non-empty ports/<n>/gids/<i> with gid_attrs/types/<i> and gid_attrs/ndevs/<i>.
type RDMAGID struct {
	Index  int    `json:"index"`
	GID    string `json:"gid"`
	Type   string `json:"type"`
	Netdev string `json:"netdev"`
}

// Perftest is one perftest run: a client and a server side (the same host for loopback).
type Perftest struct {
	Name       string        `json:"name"`
	Tool       string        `json:"tool"`
	Client     string        `json:"client"` // host names
	Server     string        `json:"server"`
	Loopback   bool          `json:"loopback,omitempty"`
	Fault      string        `json:"fault,omitempty"` // netem in effect, if any
	ClientSide *PerftestSide `json:"clientSide,omitempty"`
	ServerSide *PerftestSide `json:"serverSide,omitempty"`
}

// PerftestSide is the JSON lab-pt prints for one side of a perftest.
type PerftestSide struct {
	Name     string           `json:"name"`
	Role     string           `json:"role"` // server, client, loop
	Tool     string           `json:"tool"`
	Args     string           `json:"args"`
	Device   string           `json:"device"`
	Local    string           `json:"local"`
	Peer     string           `json:"peer"`
	RC       int              `json:"rc"`
	TimedOut bool             `json:"timed_out"`
	Attempts int              `json:"attempts"`
	WallMS   int64            `json:"wall_ms"`
	Result   *PerftestSummary `json:"result"`
	// Counters are deltas of ports/1/hw_counters/* across the run.
	Counters map[string]int64 `json:"counters"`
	Error    string           `json:"error"`
}

// PerftestSummary is perftest's summary row. Bandwidth tests fill BW*, latency tests T*.
type PerftestSummary struct {
	Bytes       int64   `json:"bytes"`
	Iterations  int64   `json:"iterations"`
	BWPeak      float64 `json:"bw_peak,omitempty"`
	BWAvg       float64 `json:"bw_avg,omitempty"`
	MsgRateMpps float64 `json:"msg_rate_mpps,omitempty"`
	BWUnit      string  `json:"bw_unit,omitempty"` // "Gb/s" (--report_gbits) or "MB/s"
	TMinUS      float64 `json:"t_min_us,omitempty"`
	TMaxUS      float64 `json:"t_max_us,omitempty"`
	TTypicalUS  float64 `json:"t_typical_us,omitempty"`
	TAvgUS      float64 `json:"t_avg_us,omitempty"`
	TStdevUS    float64 `json:"t_stdev_us,omitempty"`
	TP99US      float64 `json:"t_p99_us,omitempty"`
	TP999US     float64 `json:"t_p999_us,omitempty"`
}

// Netem is a fault that was in effect on a host's RoCE traffic.
type Netem struct {
	Host     string `json:"host"`
	Dev      string `json:"dev"`
	Spec     string `json:"spec"`
	SentPkts int64  `json:"sent_pkts"` // of the netem band, after the test
	Dropped  int64  `json:"dropped"`
}

// OK reports whether a side finished cleanly.
func (p *PerftestSide) OK() bool { return p != nil && p.RC == 0 && !p.TimedOut && p.Result != nil }

// DecodeResult reads a scenario result, strictly (unknown fields are errors).
func DecodeResult(r io.Reader) (*Result, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var res Result
	if err := dec.Decode(&res); err != nil {
		return nil, fmt.Errorf("decoding scenario result: %w", err)
	}
	if res.APIVersion != APIVersion {
		return nil, fmt.Errorf("decoding scenario result: apiVersion %q, want %q", res.APIVersion, APIVersion)
	}
	if res.Scenario == "" {
		return nil, fmt.Errorf("decoding scenario result: no scenario name")
	}
	return &res, nil
}

// decodeSide parses one line of lab-pt output.
func decodeSide(b []byte) (*PerftestSide, error) {
	var p PerftestSide
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("decoding lab-pt output %q: %w", truncate(string(b), 200), err)
	}
	return &p, nil
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
