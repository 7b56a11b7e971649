package nccl

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fabricctl/fabricctl/checks"
)

var (
	// completionRe matches a work completion error in every NCCL era:
	//
	//	2.3-2.11  NET/IB : Got completion with error 12, opcode 0, len 0, vendor err 129
	//	2.12-2.18 NET/IB : Got completion from peer 10.0.0.2<39138> with error 12, opcode 0, len 0, vendor err 129 (Send)
	//	2.19-2.27 NET/IB: Got completion from peer … with status=12 opcode=129 len=1048576 vendor err 129 (Recv) localGid … hca mlx5_10
	//	2.28      NET/IB: Got completion from peer … with status=IBV_WC_RETRY_EXC_ERR(12) opcode=IBV_WC_RDMA_WRITE(1) vendor_err=129 … hca mlx5_3
	//
	// and plugins' "NET/IBP:Got completion …", also inside PyTorch's
	// "Last error:" text.
	completionRe = regexp.MustCompile(`Got completion (?:from peer (\S+) )?with (?:error |status=)(?:\w+\()?(\d+)\)?(?:,?\s+opcode[ =](?:\w+\()?(\d+)\)?)?(?:,?\s+len[ =](\d+))?(?:,?\s+vendor[ _]err[ =](\d+))?(?:\s+\((Send|Recv)\))?(?:.*\bhca (\S+))?`)
	// qpErrRe: bringing a QP to RTR/RTS failed (GID, MTU, routing).
	qpErrRe = regexp.MustCompile(`ibv_modify_qp failed|Call to ibv_modify_qp failed`)
	// connectErrRe: the out-of-band socket exchange failed.
	connectErrRe = regexp.MustCompile(`(?i)connect(?:ion)? to \S+ failed|Connection refused|No route to host|Connection timed out|Network is unreachable`)
	// ncclErrorRe: an NCCL call failed, as NCCL or PyTorch print it.
	ncclErrorRe = regexp.MustCompile(`\bnccl(?:SystemError|InternalError|InvalidUsage|InvalidArgument|RemoteError|UnhandledCudaError|Timeout)\b|NCCL error in:|unhandled (?:system|cuda) error|Duplicate GPU detected|Cuda failure|(?:Test )?NCCL failure\b|Test CUDA failure\b`)
	// markerRe: a line without NCCL's prefix that still speaks of NCCL or
	// its network (PyTorch's exceptions and "Last error:" text, nccl-tests):
	// it is classified, and reported when a fatal class fits.
	markerRe = regexp.MustCompile(`\b(?:NCCL|RCCL|DistBackendError|ProcessGroupNCCL|NET/IB|Got async event|async fatal event|socketProgress|socketStartConnect|bootstrap\w*)\b`)
	// watchdogRe is PyTorch's ProcessGroupNCCL watchdog timing a collective out.
	watchdogRe = regexp.MustCompile(`\[(?:PG [^\]]*)?Rank (\d+)\] Watchdog caught collective operation timeout: WorkNCCL\((.*?)\) ran for (\d+) milliseconds`)
	// watchdogStuckRe: the watchdog itself stopped making progress.
	watchdogStuckRe = regexp.MustCompile(`(?:Rank (\d+)\] )?ProcessGroupNCCL's watchdog got stuck for (\d+) seconds`)
	workFieldRe     = regexp.MustCompile(`(\w+(?:\(ms\))?)=([^,]+)`)
)

// timeout is one collective that PyTorch's watchdog timed out, on every rank
// that reported it.
type timeout struct {
	op, seq, limit string
	ranks          map[int]bool
	ran            int
	at             pos
}

// warn turns a WARN (or ABORT) line into a finding, placed in the
// libraries' taxonomy (Classify): a fatal class fails whatever its wording,
// a non-fatal one warns with its name, and a line no class fits is an
// unclassified warning quoting it — never dropped.
func (a *analyzer) warn(p *proc, rec record, at pos) {
	msg := strings.TrimSpace(rec.msg)
	if noVerbsRe.MatchString(msg) {
		// NET/IB cannot start: the host has no IB device for NCCL.
		a.state(p).noIBFound(msg, at)
		return
	}
	where := at.String()
	f := Finding{Kind: UnclassifiedWarning, Status: checks.StatusWarn, Message: "NCCL WARN no class fits: " + msg, Where: where}
	switch c, ok := Classify(msg); {
	case completionRe.MatchString(msg):
		f = completionFinding(completionRe.FindStringSubmatch(msg), where)
	case qpErrRe.MatchString(msg):
		f.Kind, f.Status, f.Class, f.Message = QPError, checks.StatusFail, checks.QPBringUp, msg
	case ok:
		f = classFinding(c, msg, where)
	case connectErrRe.MatchString(msg):
		f.Kind, f.Status, f.Class, f.Message = ConnectError, checks.StatusFail, checks.OOBConnect, msg
	case ncclErrorRe.MatchString(msg):
		f.Kind, f.Status, f.Message = NCCLError, checks.StatusFail, msg
	case rec.level == "ABORT":
		f.Kind, f.Status, f.Message = NCCLError, checks.StatusFail, "NCCL ABORT: "+msg
	}
	f.Line = quote(msg)
	a.later(f, p, rec.rank)
}

// maxMessage bounds a finding's message: the line it quotes is cut there.
// maxDistinct bounds the findings of one kind one process (or rank) keeps:
// past it they are counted.
const (
	maxMessage  = 400
	maxDistinct = 100
)

// later holds a finding until its host is known, its message bounded and
// copied (a finding never holds on to the log line it was read from); a
// repeat is counted, and past maxDistinct findings of its kind from its
// process only counted.
func (a *analyzer) later(f Finding, p *proc, rank int) {
	src := origin{p, rank}
	msg := f.Message
	if len(msg) > maxMessage {
		msg = clip(msg, maxMessage)
	}
	if i, ok := a.pendAt[pendKey{src, f.Kind, msg}]; ok {
		a.pend[i].n++
		return
	}
	kind := pendKey{origin: src, kind: f.Kind}
	if a.distinct[kind] >= maxDistinct {
		o := a.over[kind]
		if o == nil {
			o = &overflow{status: f.Status, where: f.Where}
			a.over[kind] = o
		}
		o.n++
		if f.Status.Worse(o.status) {
			o.status = f.Status
		}
		return
	}
	a.distinct[kind]++
	f.Message = clip(msg, maxMessage)
	a.pendAt[pendKey{src, f.Kind, f.Message}] = len(a.pend)
	a.pend = append(a.pend, pending{f: f, proc: p, rank: rank, n: 1})
	if p != nil {
		p.lastPend = len(a.pend)
	}
}

// quote shortens a log line for Finding.Line, as a copy: a finding never
// holds on to the line it quotes.
func quote(s string) string { return clip(s, 300) }

// clip cuts s to at most n bytes (and at a rune boundary, marking the cut
// with "…"), as a copy of its own.
func clip(s string, n int) string {
	if len(s) <= n {
		return strings.Clone(s)
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// classFinding reports a classified line: async events under their own
// kind, the rest as NCCL errors; fatal classes fail, others warn.
func classFinding(c Class, msg, where string) Finding {
	f := Finding{Kind: NCCLError, Status: checks.StatusFail, Class: c.Failure, Message: c.describe(msg), Where: where}
	switch {
	case c.Family == FamilyAsyncEvent:
		f.Kind = IBAsyncEvent
	case c.Family == FamilyErrno && c.Failure == checks.OOBConnect:
		f.Kind = ConnectError
	}
	if !c.Fatal {
		f.Status = checks.StatusWarn
	}
	return f
}

// trace handles NCCLCHECK's back-trace lines ("net.cc:123 -> 6"): the
// error NCCL returned up its call stack. The process's latest unclassified
// warning is what failed, and takes the class; without one the trace is
// reported itself. One finding per process and result code.
func (a *analyzer) trace(p *proc, msg string, at pos) bool {
	m := traceRe.FindStringSubmatch(msg)
	if m == nil {
		return false
	}
	c, ok := Classify(msg)
	if !ok {
		return true // ncclInProgress, or a code NCCL does not define
	}
	if p.traced == nil {
		p.traced = &set[string]{}
	}
	if !p.traced.add(c.Name) {
		return true
	}
	if p.lastPend > 0 {
		pd := &a.pend[p.lastPend-1]
		if pd.f.Kind == UnclassifiedWarning {
			orig := strings.TrimPrefix(pd.f.Message, "NCCL WARN no class fits: ")
			pd.f = Finding{Kind: NCCLError, Status: checks.StatusFail, Class: c.Failure, Where: pd.f.Where, Line: pd.f.Line,
				Message: c.describe(orig) + " (NCCL returned " + c.Name + " after it)"}
			return true
		}
		if pd.f.Status == checks.StatusFail {
			return true // already a failure: the trace is its stack
		}
	}
	// A back-trace without a WARN before it: NCCL met the error inside and
	// may have gone on (a disabled plugin returns ncclInternalError while
	// NCCL falls back); worth a look, the fatal line comes elsewhere.
	a.later(Finding{Kind: NCCLError, Status: checks.StatusWarn, Class: c.Failure, Where: at.String(), Line: quote(msg),
		Message: c.describe(msg) + ": NCCL met this error without a WARN before it (a fallback it may have gone on from)"}, p, -1)
	return true
}

// completionFinding describes a completion error with its IB status decoded.
func completionFinding(m []string, where string) Finding {
	text := fmt.Sprintf("NET/IB completion error %.20s (out of range)", m[2])
	if status, err := strconv.Atoi(m[2]); err == nil {
		text = fmt.Sprintf("NET/IB completion error %d (%s)", status, checks.WCStatusName(status))
	}
	if m[1] != "" {
		text += " from peer " + m[1]
	}
	if m[5] != "" {
		text += ", vendor err " + m[5]
	}
	if m[6] != "" {
		text += " (" + m[6] + ")"
	}
	if m[7] != "" {
		text += " on " + m[7]
	}
	return Finding{Kind: IBCompletionError, Status: checks.StatusFail, Class: checks.CompletionError, Message: text, Where: where}
}

// failure handles lines without NCCL's prefix that report a failure:
// PyTorch's watchdog, NCCL errors raised as exceptions. It reports whether
// the line was one.
func (a *analyzer) failure(rec record, at pos) bool {
	msg := rec.trimmed()
	where := at.String
	owner := func() *proc {
		if rec.machine == "" {
			return nil
		}
		return a.proc(procKey{host: rec.machine})
	}
	switch {
	case watchdogRe.MatchString(msg):
		m := watchdogRe.FindStringSubmatch(msg)
		rank, ok1 := a.num(owner(), msg, at, "rank", m[1])
		ran, ok2 := a.num(owner(), msg, at, "milliseconds", m[3])
		if !ok1 || !ok2 {
			return true
		}
		fields := map[string]string{}
		for _, kv := range workFieldRe.FindAllStringSubmatch(m[2], -1) {
			fields[kv[1]] = strings.TrimSpace(kv[2])
		}
		key := fields["OpType"] + "\x00" + fields["SeqNum"]
		t, ok := a.timeouts[key]
		if !ok {
			t = &timeout{op: strings.Clone(fields["OpType"]), seq: strings.Clone(fields["SeqNum"]), limit: strings.Clone(fields["Timeout(ms)"]), ranks: map[int]bool{}, at: at}
			a.timeouts[key] = t
		}
		t.ranks[rank] = true
		t.ran = max(t.ran, ran)
		return true
	case watchdogStuckRe.MatchString(msg):
		m := watchdogStuckRe.FindStringSubmatch(msg)
		rank := -1
		if m[1] != "" {
			var ok bool
			if rank, ok = a.num(owner(), msg, at, "rank", m[1]); !ok {
				return true
			}
		}
		a.later(Finding{Kind: WatchdogHang, Status: checks.StatusFail, Class: checks.Timeout, Where: where(),
			Message: fmt.Sprintf("PyTorch's NCCL watchdog got stuck for %s s without progress: a collective or CUDA call hangs", m[2])}, owner(), rank)
		return true
	case completionRe.MatchString(msg):
		f := completionFinding(completionRe.FindStringSubmatch(msg), where())
		f.Line = quote(msg)
		a.later(f, owner(), rec.rank)
		return true
	case rec.torchLevel == "E" || rec.torchLevel == "F":
		// PyTorch's distributed backend logged an error: its own level
		// says so, whatever the wording; the class where one fits.
		f := Finding{Kind: NCCLError, Status: checks.StatusFail, Message: "PyTorch c10d error: " + msg, Where: where()}
		if c, ok := Classify(msg); ok && c.Fatal {
			f = classFinding(c, msg, where())
		}
		f.Line = quote(msg)
		a.later(f, owner(), rec.rank)
		return true
	case ncclErrorRe.MatchString(msg), markerRe.MatchString(msg):
		f := Finding{Kind: NCCLError, Status: checks.StatusFail, Message: msg, Where: where()}
		if c, ok := Classify(msg); ok {
			f = classFinding(c, msg, where())
		} else if !ncclErrorRe.MatchString(msg) {
			return false // names NCCL, says nothing wrong
		}
		f.Line = quote(msg)
		a.later(f, owner(), rec.rank)
		return true
	}
	return false
}

// timeoutFindings reports each timed-out collective once, with its ranks;
// the host is named when every reporting rank ran on one host.
func (a *analyzer) timeoutFindings(rankHost map[int]string) {
	for _, k := range slices.Sorted(maps.Keys(a.timeouts)) {
		t := a.timeouts[k]
		ranks := slices.Sorted(maps.Keys(t.ranks))
		host := ""
		for i, r := range ranks {
			h := rankHost[r]
			if i == 0 {
				host = h
			} else if h != host {
				host = ""
			}
		}
		rs := make([]string, len(ranks))
		for i, r := range ranks {
			rs[i] = strconv.Itoa(r)
		}
		msg := fmt.Sprintf("collective %s (SeqNum %s) timed out", orDash(t.op), orDash(t.seq))
		if t.limit != "" {
			msg += " after " + t.limit + " ms"
		}
		msg += fmt.Sprintf(" on rank %s (ran %d ms): a peer never joined it (hung or dead rank, or a stalled network path)", strings.Join(rs, ","), t.ran)
		a.add(Finding{Kind: CollectiveTimeout, Status: checks.StatusFail, Class: checks.Timeout, Host: host, Message: msg, Where: t.at.String()})
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// rasReport reads the text report of NCCL's RAS client (ncclras, NCCL 2.24
// and later): the communicators' status, missing or dead processes, and
// ranks that disagree on how many collectives they launched (a hang).
type rasReport struct {
	seen    bool
	section string // "errors", "warnings"
	current string // the "#0-0 (hash) STATUS" heading of the entry being read
	out     []Finding
}

var (
	rasEntryRe    = regexp.MustCompile(`^#(\d+-\d+) \(([0-9a-f]+)\) ([A-Z,]+)$`)
	rasCountsRe   = regexp.MustCompile(`^Communicator ranks have different (\w+) operation counts`)
	rasStatusRe   = regexp.MustCompile(`^Communicator ranks have different status`)
	rasAsyncRe    = regexp.MustCompile(`^(Asynchronous|Initialization) errors? on (\d+) ranks?`)
	rasMissingRe  = regexp.MustCompile(`^Missing communicator data from (\d+) (rank|job process)`)
	rasDeadRe     = regexp.MustCompile(`^(\d+) job process(?:es are| is) considered dead`)
	rasTimeoutsRe = regexp.MustCompile(`^Encountered (\d+) communication timeouts? while gathering`)
)

// line reads one line of a RAS report and reports whether it belonged to one.
func (r *rasReport) line(s string, where pos) bool {
	switch {
	case s == "Job summary" || strings.HasPrefix(s, "Communicators...") || strings.HasPrefix(s, "Group     Comms"):
		r.seen = true
		return true
	case !r.seen:
		return false
	case s == "Errors":
		r.section = "errors"
	case s == "Warnings":
		r.section = "warnings"
	case rasEntryRe.MatchString(s):
		m := rasEntryRe.FindStringSubmatch(s)
		r.current = "communicator #" + m[1] + " (" + m[2] + ")"
	case rasCountsRe.MatchString(s):
		op := rasCountsRe.FindStringSubmatch(s)[1]
		r.add(RASMismatch, checks.StatusFail, checks.Timeout, where, fmt.Sprintf("NCCL RAS: %s: ranks disagree on how many %s operations they launched — the %s is hung on the ranks that are behind", r.subject(), op, op))
	case rasStatusRe.MatchString(s):
		r.add(RASMismatch, checks.StatusFail, "", where, fmt.Sprintf("NCCL RAS: %s: ranks report different status", r.subject()))
	case rasAsyncRe.MatchString(s):
		m := rasAsyncRe.FindStringSubmatch(s)
		r.add(RASError, checks.StatusFail, "", where, fmt.Sprintf("NCCL RAS: %s: %s error on %s ranks", r.subject(), strings.ToLower(m[1]), m[2]))
	case rasMissingRe.MatchString(s):
		m := rasMissingRe.FindStringSubmatch(s)
		r.add(RASError, checks.StatusFail, "", where, fmt.Sprintf("NCCL RAS: %s: no data from %s %s(es) (incomplete: processes missing)", r.subject(), m[1], m[2]))
	case rasDeadRe.MatchString(s):
		r.add(RASError, checks.StatusFail, "", where, fmt.Sprintf("NCCL RAS: %s job processes unreachable (considered dead)", rasDeadRe.FindStringSubmatch(s)[1]))
	case rasTimeoutsRe.MatchString(s):
		r.add(RASError, checks.StatusWarn, "", where, fmt.Sprintf("NCCL RAS: %s communication timeouts while gathering data: the report may be incomplete", rasTimeoutsRe.FindStringSubmatch(s)[1]))
	case strings.HasPrefix(s, "Rank ") || strings.HasPrefix(s, "Process ") || strings.HasPrefix(s, "==="), strings.Contains(s, "ranks have"),
		strings.HasPrefix(s, "CUDA runtime version"), strings.HasPrefix(s, "Nodes") || strings.HasPrefix(s, "(total)"), s == "":
	default:
		return r.tableRow(s)
	}
	return true
}

func (r *rasReport) subject() string {
	if r.current == "" {
		return "the job"
	}
	return r.current
}

// tableRow accepts the numeric rows of the job summary and communicator
// tables.
func (r *rasReport) tableRow(s string) bool {
	f := strings.Fields(s)
	if len(f) == 0 {
		return false
	}
	for _, x := range f[:min(len(f), 5)] {
		if _, err := strconv.Atoi(x); err != nil && x != "#" && x != "in" && x != "per" {
			return false
		}
	}
	return true
}

// add records a RAS finding. The RAS client sorts its findings under
// "Errors" and "Warnings" itself: under Warnings a failure is a warning
// (a snapshot in which ranks lag is not yet a hang).
func (r *rasReport) add(k Kind, st checks.Status, class checks.FailureClass, where pos, msg string) {
	if r.section == "warnings" && st == checks.StatusFail {
		st, msg = checks.StatusWarn, msg+" (RAS lists it under Warnings: ranks may only lag at the moment of the snapshot; query again to tell a hang)"
	}
	r.out = append(r.out, Finding{Kind: k, Status: st, Class: class, Message: msg, Where: where.String()})
}

// rasFindings hands the RAS report's findings of one source to the analysis.
func (a *analyzer) rasFindings() {
	for _, f := range a.ras.out {
		a.add(f)
	}
}
