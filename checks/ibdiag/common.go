package ibdiag

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/checks/internal/textutil"
	"github.com/fabricctl/fabricctl/switchcfg/opensm"
)

// Unparsed is a line a parser did not understand, with its 1-based number;
// it is switchcfg/opensm's type, so both packages report alike.
type Unparsed = opensm.Unparsed

// ErrNoData: the input holds nothing the tool prints.
var ErrNoData = errors.New("no recognisable output")

// Accounting is what every result carries besides what it read: the
// lines the tool printed about its own failures, and those not understood.
type Accounting struct {
	// ToolErrors are the tool's own warnings and errors ("ibwarn: …",
	// "perfquery: iberror: failed: …", "src/query_smp.c:195; … timed out").
	ToolErrors []Unparsed `json:"toolErrors,omitempty"`
	// Unparsed are lines not understood.
	Unparsed []Unparsed `json:"unparsed,omitempty"`
	// Read is how many non-blank lines were read into the result.
	Read int `json:"-"`
}

// Lines returns how many non-blank lines the result accounts for.
func (a *Accounting) Lines() int { return a.Read + len(a.ToolErrors) + len(a.Unparsed) }

func (a *Accounting) unparsed(n int, s string) {
	a.Unparsed = append(a.Unparsed, Unparsed{Line: n, Text: s})
}

// toolErrorRe matches the messages of libibmad/libibumad and the tools
// themselves about a failure (not data).
var toolErrorRe = regexp.MustCompile(`^(?:\S+:\s+)?(?:ibwarn|iberror|ibpanic|ibdebug):|^(?:src|libibmad|ibdiags?)/\S+\.c:\d+;|^\S+\.c:\d+;|^sim_connect:|^umad_|^Couldn't |^Failed to |^\s*ibwarn`)

// line is one input line: its number and its text without terminal
// escapes, trailing blanks and a leading quote marker ("> "; see lines).
type line struct {
	n int
	s string
}

// lines splits text into non-blank lines. When every non-blank line
// starts with a quote marker (">", as a mail reply quotes a capture), the
// marker and one blank after it are removed, and a line that held only
// the marker is blank.
func lines(text string) []line {
	var out []line
	quoted := true
	for i, raw := range strings.Split(text, "\n") {
		s := strings.TrimRight(textutil.StripANSI(raw), " \t\r")
		if strings.TrimSpace(s) == "" {
			continue
		}
		quoted = quoted && strings.HasPrefix(s, ">")
		out = append(out, line{n: i + 1, s: s})
	}
	if !quoted || len(out) == 0 {
		return out
	}
	unq := out[:0]
	for _, l := range out {
		l.s = strings.TrimPrefix(l.s[1:], " ")
		if strings.TrimSpace(l.s) != "" {
			unq = append(unq, l)
		}
	}
	return unq
}

// toolError records l as a tool message when it is one.
func (a *Accounting) toolError(l line) bool {
	t := strings.TrimSpace(l.s)
	if toolErrorRe.MatchString(t) {
		a.ToolErrors = append(a.ToolErrors, Unparsed{Line: l.n, Text: t})
		return true
	}
	return false
}

// Width is a link width in lanes: 1X, 2X, 4X, 8X or 12X; 0 is unknown.
type Width int

// String returns "4X"; "" for an unknown width.
func (w Width) String() string {
	if w == 0 {
		return ""
	}
	return strconv.Itoa(int(w)) + "X"
}

// MarshalText writes the width as "4X".
func (w Width) MarshalText() ([]byte, error) { return []byte(w.String()), nil }

// ParseWidth reads "4X" or "4x"; ok is false for anything else.
func ParseWidth(s string) (Width, bool) {
	s = strings.TrimSpace(s)
	if len(s) < 2 || (s[len(s)-1] != 'X' && s[len(s)-1] != 'x') {
		return 0, false
	}
	switch n, err := strconv.Atoi(s[:len(s)-1]); {
	case err != nil:
		return 0, false
	case n == 1 || n == 2 || n == 4 || n == 8 || n == 12:
		return Width(n), true
	}
	return 0, false
}

// Speed is a lane speed generation. The zero Speed is unknown.
type Speed string

// The IBTA lane speeds.
const (
	SDR   Speed = "SDR"
	DDR   Speed = "DDR"
	QDR   Speed = "QDR"
	FDR10 Speed = "FDR10"
	FDR   Speed = "FDR"
	EDR   Speed = "EDR"
	HDR   Speed = "HDR"
	NDR   Speed = "NDR"
	XDR   Speed = "XDR"
)

// laneGbps is each speed's signalling rate per lane, as infiniband-diags
// prints it.
var laneGbps = map[Speed]float64{SDR: 2.5, DDR: 5, QDR: 10, FDR10: 10.3125, FDR: 14.0625, EDR: 25.78125, HDR: 53.125, NDR: 106.25, XDR: 212.5}

// LaneGbps returns the signalling rate of one lane; 0 when unknown.
func (s Speed) LaneGbps() float64 { return laneGbps[s] }

// Known reports whether s is one of the IBTA speeds.
func (s Speed) Known() bool { _, ok := laneGbps[s]; return ok }

// ParseSpeed reads a speed as the tools print it: "EDR", "25.78125 Gbps",
// "10.0 Gbps (FDR10)", "10.0 Gbps". ok is false for anything else ("???",
// "0 Gbps", "Extended speed").
func ParseSpeed(s string) (Speed, bool) {
	s = strings.TrimSpace(s)
	if strings.HasSuffix(s, "(FDR10)") {
		return FDR10, true
	}
	if sp := Speed(strings.ToUpper(s)); sp.Known() {
		return sp, true
	}
	num, ok := strings.CutSuffix(s, "Gbps")
	if !ok {
		return "", false
	}
	g, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil {
		return "", false
	}
	for sp, v := range laneGbps {
		if sp != FDR10 && v == g {
			return sp, true
		}
	}
	return "", false
}

// PortState is a port's logical state (PortInfo.PortState).
type PortState string

// The logical port states.
const (
	StateDown     PortState = "Down"
	StateInit     PortState = "Init"
	StateArmed    PortState = "Armed"
	StateActive   PortState = "Active"
	StateActDefer PortState = "ActDefer"
)

// ParsePortState reads a logical state as iblinkinfo, smpquery, ibstat and
// ibportstate print it ("Active", "Initialize", "INIT", "4: ACTIVE").
func ParsePortState(s string) (PortState, bool) {
	s = strings.TrimSpace(s)
	if _, v, ok := strings.Cut(s, ":"); ok {
		s = strings.TrimSpace(v)
	}
	switch strings.ToLower(s) {
	case "down":
		return StateDown, true
	case "init", "initialize", "initializing":
		return StateInit, true
	case "armed":
		return StateArmed, true
	case "active":
		return StateActive, true
	case "actdefer", "active_defer", "activedefer":
		return StateActDefer, true
	}
	return "", false
}

// PhysState is a port's physical state (PortInfo.PortPhysicalState).
type PhysState string

// The physical port states.
const (
	PhysSleep             PhysState = "Sleep"
	PhysPolling           PhysState = "Polling"
	PhysDisabled          PhysState = "Disabled"
	PhysTraining          PhysState = "PortConfigurationTraining"
	PhysLinkUp            PhysState = "LinkUp"
	PhysLinkErrorRecovery PhysState = "LinkErrorRecovery"
	PhysPhyTest           PhysState = "PhyTest"
)

// ParsePhysState reads a physical state ("LinkUp", "Polling", "5: LinkUp").
func ParsePhysState(s string) (PhysState, bool) {
	s = strings.TrimSpace(s)
	if _, v, ok := strings.Cut(s, ":"); ok {
		s = strings.TrimSpace(v)
	}
	switch strings.ToLower(strings.ReplaceAll(s, " ", "")) {
	case "sleep":
		return PhysSleep, true
	case "polling":
		return PhysPolling, true
	case "disabled":
		return PhysDisabled, true
	case "portconfigurationtraining":
		return PhysTraining, true
	case "linkup":
		return PhysLinkUp, true
	case "linkerrorrecovery":
		return PhysLinkErrorRecovery, true
	case "phytest":
		return PhysPhyTest, true
	}
	return "", false
}

// Counter is one performance counter as printed.
type Counter struct {
	Value uint64 `json:"value"`
	// Bits is the counter's field width (16 for PortRcvErrors in
	// PortCounters, 64 in PortCountersExtended); 0 when unknown.
	Bits int `json:"bits,omitempty"`
	// Saturated: Value is the largest the field holds; the counter has
	// stopped and the true count is unknown (at least Value).
	Saturated bool `json:"saturated,omitempty"`
}

// portCounterBits are the field widths of the PortCounters attribute
// (IBTA vol. 1, PortCounters; PortXmitWait and QP1Dropped as perfquery
// reads them).
var portCounterBits = map[string]int{
	"SymbolErrorCounter": 16, "LinkErrorRecoveryCounter": 8, "LinkDownedCounter": 8, "PortRcvErrors": 16,
	"PortRcvRemotePhysicalErrors": 16, "PortRcvSwitchRelayErrors": 16, "PortXmitDiscards": 16,
	"PortXmitConstraintErrors": 8, "PortRcvConstraintErrors": 8, "LocalLinkIntegrityErrors": 4,
	"ExcessiveBufferOverrunErrors": 4, "VL15Dropped": 16, "QP1Dropped": 16,
	"PortXmitData": 32, "PortRcvData": 32, "PortXmitPkts": 32, "PortRcvPkts": 32, "PortXmitWait": 32,
}

// ErrorCounters are the IBTA PortCounters that count errors, in
// perfquery's order.
var ErrorCounters = []string{
	"SymbolErrorCounter", "LinkErrorRecoveryCounter", "LinkDownedCounter", "PortRcvErrors",
	"PortRcvRemotePhysicalErrors", "PortRcvSwitchRelayErrors", "PortXmitDiscards",
	"PortXmitConstraintErrors", "PortRcvConstraintErrors", "LocalLinkIntegrityErrors",
	"ExcessiveBufferOverrunErrors", "VL15Dropped",
}

// newCounter reads value as a counter of the given width (0: unknown).
func newCounter(value string, bits int) (Counter, error) {
	v, err := strconv.ParseUint(value, 10, 64)
	if err != nil {
		return Counter{}, fmt.Errorf("counter %q is not a whole number from 0 to 2^64-1", value)
	}
	c := Counter{Value: v, Bits: bits}
	switch {
	case bits == 64:
		c.Saturated = v == math.MaxUint64
	case bits > 0 && v > 1<<bits-1:
		c.Bits = 0 // wider than the field: a sum or an extended counter
	case bits > 0:
		c.Saturated = v == 1<<bits-1
	}
	return c, nil
}

// parseGUID reads "0x0002c90300001000" or "0002c90300001000".
func parseGUID(s string) (uint64, bool) {
	s = strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(s), "0x"), "0X")
	if s == "" || len(s) > 16 {
		return 0, false
	}
	v, err := strconv.ParseUint(s, 16, 64)
	return v, err == nil
}

// parseLID reads a LID in decimal or 0x hex, at most 0xffff.
func parseLID(s string) (int, bool) {
	v, err := strconv.ParseUint(strings.TrimSpace(s), 0, 16)
	if err != nil {
		return 0, false
	}
	return int(v), true
}

// parsePort reads a port number, 0..255.
func parsePort(s string) (int, bool) {
	v, err := strconv.ParseUint(strings.TrimSpace(s), 10, 8)
	if err != nil {
		return 0, false
	}
	return int(v), true
}

// NodeType is CA, Switch or Router.
type NodeType string

// The node types.
const (
	CA     NodeType = "CA"
	Switch NodeType = "Switch"
	Router NodeType = "Router"
)

// parseNodeType reads "ca", "Ca", "CA", "Channel Adapter", "switch", "SW",
// "Rt", "router".
func parseNodeType(s string) (NodeType, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "ca", "hca", "channel adapter":
		return CA, true
	case "switch", "sw":
		return Switch, true
	case "router", "rt":
		return Router, true
	}
	return "", false
}
