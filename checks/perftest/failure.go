package perftest

import (
	"cmp"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/checks"
)

// failurePattern maps one perftest error line to its cause. detail, when set,
// turns the submatches into Failure.Detail.
type failurePattern struct {
	re     *regexp.Regexp
	class  checks.FailureClass
	detail func(m []string) string
}

func group(i int) func([]string) string { return func(m []string) string { return m[i] } }

// failurePatterns lists every error shape perftest prints that fabricctl
// recognises. Order matters only within one line (the first match wins).
var failurePatterns = []failurePattern{
	// Out-of-band exchange (TCP port 18515 or rdma_cm).
	{regexp.MustCompile(`Couldn't connect to (\S+)`), checks.OOBConnect, group(1)},
	{regexp.MustCompile(`Unable to init the socket connection`), checks.OOBConnect, nil},
	{regexp.MustCompile(`Unable to open file descriptor for socket connection`), checks.OOBConnect, nil},
	{regexp.MustCompile(`Couldn't read remote address`), checks.OOBConnect, nil},
	{regexp.MustCompile(`Unable to read (?:to|from) socket/rdma_cm`), checks.OOBConnect, nil},
	{regexp.MustCompile(`Failed to exchange data between server and clients`), checks.OOBConnect, nil},
	{regexp.MustCompile(`RDMA CM event error|Unable to perform rdma_client function|rdma_(?:resolve_addr|resolve_route|connect|accept|listen|bind_addr)\b.*(?:fail|error)|Failed to (?:handle|connect|disconnect) RDMA CM|RDMA_CM_EVENT_(?:REJECTED|UNREACHABLE|ADDR_ERROR|ROUTE_ERROR|CONNECT_ERROR)`), checks.OOBConnect, nil},
	// QP state transitions (RoCE: GID index, MTU, GRH, pkey).
	{regexp.MustCompile(`Failed to modify QP (?:\d+ )?to (INIT|RTR|RTS)`), checks.QPBringUp, group(1)},
	{regexp.MustCompile(`Unable to Connect the HCA's through the link`), checks.QPBringUp, nil},
	// Work completions with an error status.
	{regexp.MustCompile(`Completion with error at (client|server)`), checks.CompletionError, group(1)},
	{regexp.MustCompile(`Failed status (\d+): wr_id \d+ synd\w* (0x[0-9a-fA-F]+)`), checks.CompletionError, func(m []string) string {
		n, err := strconv.Atoi(m[1])
		if err != nil {
			return fmt.Sprintf("status %.20s (out of range), vendor syndrome %s", m[1], m[2])
		}
		return fmt.Sprintf("status %d %s, vendor syndrome %s", n, checks.WCStatusName(n), m[2])
	}},
	{regexp.MustCompile(`Completion with error`), checks.CompletionError, nil},
	// Command-line rejections.
	{regexp.MustCompile(`Parser function exited with Error`), checks.ArgumentError, nil},
	{regexp.MustCompile(`is only available in \w+ test`), checks.ArgumentError, nil},
	{regexp.MustCompile(`please check that DURATION > 2\*MARGIN`), checks.ArgumentError, nil},
	{regexp.MustCompile(`(\S.*?) should be between (-?\d+) and (-?\d+)`), checks.ArgumentError, group(1)},
	{regexp.MustCompile(`(?:unrecognized|invalid) option\b(.*)`), checks.ArgumentError, func(m []string) string { return strings.Trim(m[1], " -'") }},
	// CPU clock calibration (get_clock.c) and the report it then cannot produce.
	{regexp.MustCompile(`Correlation coefficient r\^?2?:?\s*([0-9.eE+-]*)`), checks.ClockCalibration, func(m []string) string {
		if m[1] == "" {
			return ""
		}
		return "r^2 " + m[1]
	}},
	{regexp.MustCompile(`Can't produce a report`), checks.ClockCalibration, nil},
	// Device and port.
	{regexp.MustCompile(`IB device (\S+) not found`), checks.NoDevice, group(1)},
	{regexp.MustCompile(`No IB devices found|Unable to find the Infiniband/RoCE device|Couldn't get context for (?:the device|\S+)`), checks.NoDevice, nil},
	{regexp.MustCompile(`Port number (\d+) state is (\w+)`), checks.PortDown, func(m []string) string { return "port " + m[1] + " " + m[2] }},
	{regexp.MustCompile(`Couldn't set the link layer`), checks.PortDown, nil},
	{regexp.MustCompile(`Did not detect devices|Couldn't get device attributes|Couldn't query (?:the )?(?:device|port)`), checks.NoDevice, nil},
	// The binary itself is missing.
	{regexp.MustCompile(`\b(ib_(?:write|read|send|atomic)_(?:bw|lat))(?:: command not found|: not found|: No such file or directory|"?: executable file not found)`), checks.MissingTool, group(1)},
}

// openerRe is how perftest starts every error it prints to stderr
// (perftest's src/*.c: about 1,050 fprintf(stderr, …) calls, 9 in 10
// opening with these words). A line no pattern above knows that opens so
// is still a failure, classed by what it names.
var openerRe = regexp.MustCompile(`^(?:Failed to|failed to|Unable to|Couldn't|Could not|Did not|Error:|Error occurred|Problems? (?:with|in)|Bad wc|poll CQ failed|Poll send CQ|Found Incompatibility|Test exited)\b`)

// openerClass names the class of an error line by the object it names.
func openerClass(line string) checks.FailureClass {
	l := strings.ToLower(line)
	switch {
	case strings.Contains(l, "rdma cm") || strings.Contains(l, "rdma_cm") || strings.Contains(l, "socket") || strings.Contains(l, "connect") || strings.Contains(l, "exchange"):
		return checks.OOBConnect
	case strings.Contains(l, "device") || strings.Contains(l, "context") || strings.Contains(l, "port"):
		return checks.NoDevice
	case strings.Contains(l, "modify qp"):
		return checks.QPBringUp
	case strings.Contains(l, "completion") || strings.Contains(l, "poll") || strings.Contains(l, "bad wc"):
		return checks.CompletionError
	}
	return checks.Resources
}

// FailureLine reports whether a line (quote markers and blanks aside) is
// an error perftest printed.
func FailureLine(s string) bool {
	_, ok := classify(cleanLine(s), 0)
	return ok
}

// specificity ranks classes from the most to the least telling: when the
// server says "Couldn't read remote address" because the client's QP never
// reached RTS, the cause is the QP bring-up.
var specificity = []checks.FailureClass{
	checks.MissingTool, checks.ArgumentError, checks.NoDevice, checks.PortDown,
	checks.QPBringUp, checks.CompletionError, checks.Resources, checks.ClockCalibration, checks.OOBConnect,
}

func rank(c checks.FailureClass) int {
	for i, s := range specificity {
		if s == c {
			return i
		}
	}
	return len(specificity)
}

// warningRe matches lines that are noise worth keeping but not failures.
var warningRe = regexp.MustCompile(`(?i)^(?:libibverbs: Warning:|WARNING:)|Requested SQ size might be too big|Current TX depth is|Device not recognized to implement inline feature|Conflicting CPU frequency values detected`)

// classify returns the failure a line reports, if any.
func classify(line string, lineNo int) (Failure, bool) {
	for _, p := range failurePatterns {
		m := p.re.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		f := Failure{Class: p.class, Line: lineNo, Text: line}
		if p.detail != nil {
			f.Detail = p.detail(m)
		}
		return f, true
	}
	if openerRe.MatchString(line) {
		return Failure{Class: openerClass(line), Line: lineNo, Text: line}, true
	}
	return Failure{}, false
}

// Cause returns the most specific failure across the reports of one test
// (typically the server's and the client's), and false when none failed.
// A work completion error keeps the side that saw it and the status of the
// line perftest prints next ("Completion with error at client" then
// "Failed status 12: …"): Detail "client: status 12 RETRY_EXC_ERR, vendor
// syndrome 0x81", since the status is what tells a dead path (12) from a
// memory key or permission problem (10, 11) or a flushed queue (5).
func Cause(reports ...*Report) (Failure, bool) {
	var best Failure
	found := false
	for _, r := range reports {
		if r == nil {
			continue
		}
		for i, f := range r.Failures {
			if !found || rank(f.Class) < rank(best.Class) {
				best, found = f, true
				if f.Class == checks.CompletionError && i+1 < len(r.Failures) {
					best.Detail = withStatus(f, r.Failures[i+1])
				}
			}
		}
	}
	return best, found
}

// withStatus is f's detail followed by next's, when next is the "Failed
// status" line perftest prints right after f's "Completion with error".
func withStatus(f, next Failure) string {
	if next.Class != f.Class || next.Line != f.Line+1 || !strings.HasPrefix(next.Detail, "status ") || strings.HasPrefix(f.Detail, "status ") {
		return f.Detail
	}
	if f.Detail == "" {
		return next.Detail
	}
	return f.Detail + ": " + next.Detail
}

// Hints explains a failure from what the banners of both sides show: an empty
// GID table entry, RoCE without a GID index, an MTU or link-type mismatch, or
// GIDs of different kinds (a link-local GID against an IPv4 one). Either
// report may be nil (a loopback test or a side that printed nothing).
func Hints(server, client *Report) []string {
	var hints []string
	var mtus, links, kinds = map[int]string{}, map[string]string{}, map[string]string{}
	for i, r := range []*Report{server, client} {
		if r == nil {
			continue
		}
		who := [...]string{"server", "client"}[i]
		if r.Header.Device != "" {
			who += " " + r.Header.Device
		}
		h := r.Header
		if h.LinkType == "Ethernet" && h.GIDIndex == nil && h.Device != "" {
			hints = append(hints, fmt.Sprintf("%s: RoCE link without an explicit GID index; pass -x with the RoCE v2 IPv4 GID index from sysfs", who))
		}
		for _, e := range r.Local {
			if e.ZeroGID() {
				idx := "the chosen index"
				if h.GIDIndex != nil {
					idx = "index " + strconv.Itoa(*h.GIDIndex)
				}
				hints = append(hints, fmt.Sprintf("%s: local GID at %s is all zeros: the GID table entry is empty (no IP on the netdev in this namespace, or a wrong -x)", who, idx))
				break
			}
			if e.GID != "" {
				kinds[gidKind(e.GID)] = who
			}
		}
		if h.MTU != 0 {
			mtus[h.MTU] = who
		}
		if h.LinkType != "" {
			links[h.LinkType] = who
		}
	}
	if len(mtus) > 1 {
		hints = append(hints, "the sides use different MTUs: "+describe(mtus))
	}
	if len(links) > 1 {
		hints = append(hints, "the sides have different link types: "+describe(links))
	}
	if len(kinds) > 1 {
		hints = append(hints, "the sides use GIDs of different kinds: "+describe(kinds))
	}
	return hints
}

// gidKind sorts a GID into the families that must match between RoCE peers.
func gidKind(gid string) string {
	switch {
	case strings.HasPrefix(gid, "::ffff:"):
		return "IPv4-mapped"
	case strings.HasPrefix(gid, "fe80:"):
		return "link-local"
	default:
		return "global IPv6"
	}
}

// describe lists "value on who" pairs in a stable order.
func describe[K cmp.Ordered](m map[K]string) string {
	var parts []string
	for _, k := range sortedKeys(m) {
		parts = append(parts, fmt.Sprintf("%v on %s", k, m[k]))
	}
	return strings.Join(parts, ", ")
}
