package perftest

import (
	"net/netip"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/checks"
)

// Report is everything one perftest process printed, on either side.
type Report struct {
	Title         string `json:"title,omitempty"` // "RDMA_Write BW Test"
	Test          Test   `json:"test,omitzero"`   // derived from Title; zero when unknown
	Bidirectional bool   `json:"bidirectional,omitempty"`
	PostList      bool   `json:"postList,omitempty"`
	// ServerBanner is set when the "Waiting for client to connect" banner was
	// printed: the output is the server side's.
	ServerBanner bool   `json:"serverBanner,omitempty"`
	Header       Header `json:"header,omitzero"`
	// Local and Remote hold one entry per QP ("local address: LID … QPN …").
	Local  []Endpoint `json:"local,omitempty"`
	Remote []Endpoint `json:"remote,omitempty"`
	// BWUnit is the unit of the BW columns: Gb/s with --report_gbits, MB/s
	// (2^20 bytes; "MiB/sec" since perftest 24.07) without. For JSON it is
	// derived from MsgRate × MsgSize; empty when nothing tells.
	BWUnit checks.Unit `json:"bwUnit,omitempty"`
	// LatUnit is the unit of the latency columns: us, or cycles with -C.
	LatUnit checks.Unit `json:"latUnit,omitempty"`
	BW      []BWRow     `json:"bw,omitempty"`
	Lat     []LatRow    `json:"lat,omitempty"`
	// Bare holds the lone numbers printed by --output=bandwidth|message_rate|latency.
	Bare     []float64 `json:"bare,omitempty"`
	Warnings []string  `json:"warnings,omitempty"`
	// NotNumbers lists the result rows left out because a figure was no
	// measurement (NaN, an infinity, a negative value, one past float64, a
	// message size or iteration count that is not a whole number an int64
	// holds, a JSON result field that is no number), each located.
	NotNumbers []string `json:"notNumbers,omitempty"`
	// ToolWarnings are the warnings perftest itself printed about this run
	// ("Conflicting CPU frequency values detected", "Requested SQ size
	// might be too big"); libibverbs' notes and the parser's are not.
	ToolWarnings []string  `json:"toolWarnings,omitempty"`
	Failures     []Failure `json:"failures,omitempty"`
	// Truncated is set when a result row or column header ended early: the
	// output was cut off, so the numbers present are not the whole run.
	Truncated bool `json:"truncated,omitempty"`
	// Lenient is set when JSON had to be read leniently (perftest before the
	// fix for issue #216 wrote unquoted keys and values).
	Lenient bool `json:"lenient,omitempty"`
	// ColumnMismatch is set when a result row held more numbers than its
	// column header names: the row is left out (its values would land in the
	// wrong columns) and a warning names its line.
	ColumnMismatch bool `json:"columnMismatch,omitempty"`
}

// Header holds the banner block perftest prints before the results. Fields
// absent from the output keep their zero value; GIDIndex is nil when perftest
// chose the GID itself (no -x).
type Header struct {
	Device         string            `json:"device,omitempty"`         // "Device"
	DualPort       string            `json:"dualPort,omitempty"`       // "Dual-port"
	QPs            int               `json:"qps,omitempty"`            // "Number of qps"
	Transport      string            `json:"transport,omitempty"`      // "Transport type"
	Connection     string            `json:"connection,omitempty"`     // "Connection type": RC, UC, UD, XRC, DC
	SRQ            string            `json:"srq,omitempty"`            // "Using SRQ"
	PCIeRelaxOrder string            `json:"pcieRelaxOrder,omitempty"` // "PCIe relax order"
	WrAPI          string            `json:"wrAPI,omitempty"`          // "ibv_wr* API"
	TXDepth        int               `json:"txDepth,omitempty"`        // "TX depth"
	RXDepth        int               `json:"rxDepth,omitempty"`        // "RX depth"
	PostList       int               `json:"postList,omitempty"`       // "Post List"
	CQModeration   int               `json:"cqModeration,omitempty"`   // "CQ Moderation"
	MTU            int               `json:"mtu,omitempty"`            // "Mtu", bytes
	LinkType       string            `json:"linkType,omitempty"`       // "Link type": Ethernet (RoCE) or IB
	GIDIndex       *int              `json:"gidIndex,omitempty"`       // "GID index"
	MaxInline      int               `json:"maxInline,omitempty"`      // "Max inline data", bytes
	OutstandReads  int               `json:"outstandReads,omitempty"`  // "Outstand reads"
	RdmaCMQPs      string            `json:"rdmaCMQPs,omitempty"`      // "rdma_cm QPs"
	DataExMethod   string            `json:"dataExMethod,omitempty"`   // "Data ex. method": Ethernet (TCP) or rdma_cm
	Extra          map[string]string `json:"extra,omitempty"`          // any other "key : value"
}

// Endpoint is one "local address:" or "remote address:" line with its GID line.
type Endpoint struct {
	LID   string `json:"lid,omitempty"`
	QPN   string `json:"qpn,omitempty"`
	PSN   string `json:"psn,omitempty"`
	RKey  string `json:"rkey,omitempty"`
	VAddr string `json:"vaddr,omitempty"`
	// GID in IPv6 notation ("::ffff:192.168.2.226"); perftest prints the 16
	// bytes in decimal ("00:00:…:255:255:192:168:02:226").
	GID string `json:"gid,omitempty"`
}

// ZeroGID reports whether the endpoint printed an all-zero GID: the GID table
// entry at the chosen index is empty.
func (e Endpoint) ZeroGID() bool { return e.GID == "::" }

// BWRow is one row of a bandwidth table.
type BWRow struct {
	Bytes      int64              `json:"bytes"`
	Iterations int64              `json:"iterations"`
	BWPeak     float64            `json:"bwPeak"`
	BWAverage  float64            `json:"bwAverage"`
	MsgRate    float64            `json:"msgRateMpps"`
	Extra      map[string]float64 `json:"extra,omitempty"` // "#sl", "CPU_Util[%]", per-port columns
}

// LatRow is one row of a latency table. Duration-mode runs (-D) print only
// t_avg and "tps average"; the other fields stay zero.
type LatRow struct {
	Bytes      int64   `json:"bytes"`
	Iterations int64   `json:"iterations"`
	TMin       float64 `json:"tMin,omitempty"`
	TMax       float64 `json:"tMax,omitempty"`
	TTypical   float64 `json:"tTypical,omitempty"`
	TAvg       float64 `json:"tAvg,omitempty"`
	TStdev     float64 `json:"tStdev,omitempty"`
	P99        float64 `json:"p99,omitempty"`
	P999       float64 `json:"p999,omitempty"`
	TPS        float64 `json:"tpsAverage,omitempty"`
}

// Failure is one error line perftest printed, with its cause.
type Failure struct {
	Class  checks.FailureClass `json:"class"`
	Line   int                 `json:"line"` // 1-based line of the input (0 for JSON)
	Text   string              `json:"text"`
	Detail string              `json:"detail,omitempty"` // "RTR", "192.168.125.211:18515", "status 12 RETRY_EXC_ERR"
}

// Final returns the bandwidth row with the largest message size: with -a the
// plateau, otherwise the only row.
func (r *Report) Final() (BWRow, bool) {
	var best BWRow
	found := false
	for _, row := range r.BW {
		if !found || row.Bytes >= best.Bytes {
			best, found = row, true
		}
	}
	return best, found
}

// ToGbps converts a bandwidth value printed in unit u to Gb/s. perftest's MB/sec
// (MiB/sec since perftest 24.07) is 2^20 bytes per second. A value whose unit
// is unknown is returned as is: use GbpsOf where the unit may be unknown.
func ToGbps(v float64, u checks.Unit) float64 {
	g, _ := GbpsOf(v, u)
	if u == "" {
		return v
	}
	return g
}

// GbpsOf converts a bandwidth value in unit u to Gb/s; ok is false when u is
// not a bandwidth unit (empty: an --out_json file that does not say).
func GbpsOf(v float64, u checks.Unit) (gbps float64, ok bool) {
	switch u {
	case checks.UnitMBps:
		return v * 1048576 * 8 / 1e9, true
	case checks.UnitGbps:
		return v, true
	}
	return 0, false
}

// unitFromRate decides the unit of a bandwidth row from its message rate:
// perftest computes both from one measurement, so BW average equals
// MsgRate × size in exactly one of Gb/s and MiB/s (the two differ by a factor
// of 8.4). ok is false when the row cannot tell (no rate, tiny values).
func unitFromRate(r BWRow) (checks.Unit, bool) {
	if r.MsgRate <= 0 || r.Bytes <= 0 || r.BWAverage <= 0 {
		return "", false
	}
	bytesPerSec := r.MsgRate * 1e6 * float64(r.Bytes)
	for _, c := range []struct {
		u checks.Unit
		v float64
	}{{checks.UnitGbps, bytesPerSec * 8 / 1e9}, {checks.UnitMBps, bytesPerSec / 1048576}} {
		if ratio := r.BWAverage / c.v; ratio > 0.8 && ratio < 1.25 {
			return c.u, true
		}
	}
	return "", false
}

// headerKey folds a banner or JSON key to its comparable form: "Number of qps"
// and "Number_of_qps" both become "numberofqps".
func headerKey(k string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(k) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// set stores one banner field; key is the raw key, used for Extra.
func (h *Header) set(key, value string) {
	value = strings.TrimSpace(value)
	// num reads the leading digits: "4096[B]" → 4096 (and a cut-off "4096[B" too);
	// digits no int holds are left out (0), never read as the largest int.
	num := func() int {
		end := 0
		for end < len(value) && value[end] >= '0' && value[end] <= '9' {
			end++
		}
		n, err := strconv.Atoi(value[:end])
		if err != nil {
			return 0
		}
		return n
	}
	switch headerKey(key) {
	case "device":
		h.Device = strings.Trim(value, `"`)
	case "dualport":
		h.DualPort = value
	case "numberofqps":
		h.QPs = num()
	case "transporttype":
		h.Transport = value
	case "connectiontype":
		h.Connection = value
	case "usingsrq":
		h.SRQ = value
	case "pcierelaxorder":
		h.PCIeRelaxOrder = value
	case "ibvwrapi":
		h.WrAPI = value
	case "txdepth":
		h.TXDepth = num()
	case "rxdepth":
		h.RXDepth = num()
	case "postlist":
		h.PostList = num()
	case "cqmoderation":
		h.CQModeration = num()
	case "mtu":
		h.MTU = num()
	case "linktype":
		h.LinkType = value
	case "gidindex":
		if n, err := strconv.Atoi(value); err == nil {
			h.GIDIndex = &n
		}
	case "maxinlinedata":
		h.MaxInline = num()
	case "outstandreads":
		h.OutstandReads = num()
	case "rdmacmqps":
		h.RdmaCMQPs = value
	case "dataexmethod":
		h.DataExMethod = value
	default:
		if h.Extra == nil {
			h.Extra = map[string]string{}
		}
		h.Extra[strings.TrimSpace(key)] = value
	}
}

// gidFromDecimal turns perftest's "00:00:…:255:255:10:255:255:05" (16 decimal
// bytes) into an IPv6 string; ok is false for anything else.
func gidFromDecimal(s string) (string, bool) {
	parts := strings.Split(strings.TrimSpace(s), ":")
	if len(parts) != 16 {
		return "", false
	}
	var b [16]byte
	for i, p := range parts {
		n, err := strconv.ParseUint(p, 10, 8)
		if err != nil {
			return "", false
		}
		b[i] = byte(n)
	}
	return netip.AddrFrom16(b).String(), true
}

// setValue stores one result value, named by its text column or JSON key
// folded with headerKey ("#bytes" and "MsgSize", "99% percentile" and
// "percentile_99"), into bw or lat; either may be nil. isLat reports a latency
// value, known whether the name is a result field at all.
func setValue(bw *BWRow, lat *LatRow, key string, v float64) (isLat, known bool) {
	if bw == nil {
		bw = &BWRow{}
	}
	if lat == nil {
		lat = &LatRow{}
	}
	switch key {
	case "bytes", "msgsize":
		bw.Bytes, lat.Bytes = int64(v), int64(v)
	case "iterations", "niterations":
		bw.Iterations, lat.Iterations = int64(v), int64(v)
	case "bwpeak":
		bw.BWPeak = v
	case "bwaverage", "bwavg":
		bw.BWAverage = v
	case "msgrate", "msgrateavg":
		bw.MsgRate = v
	case "tmin":
		lat.TMin = v
		return true, true
	case "tmax":
		lat.TMax = v
		return true, true
	case "ttypical":
		lat.TTypical = v
		return true, true
	case "tavg":
		lat.TAvg = v
		return true, true
	case "tstdev":
		lat.TStdev = v
		return true, true
	case "99percentile", "percentile99":
		lat.P99 = v
		return true, true
	case "999percentile", "percentile999":
		lat.P999 = v
		return true, true
	case "tpsaverage", "tps":
		lat.TPS = v
		return true, true
	default:
		return false, false
	}
	return false, true
}
