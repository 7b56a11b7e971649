package nccl

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/checks/internal/textutil"
)

// record is one log line taken apart.
type record struct {
	// stream names the launcher stream the line came on ("mpi:1,0", "srun:3",
	// "pdsh:10.1.2.3", "ray:284", "pod:worker-0", "torchrun:0"), "" without
	// one. An unprefixed "NCCL version" banner belongs to the process that
	// last printed on the same stream.
	stream string
	// machine is the machine a launcher prefix names (pdsh's host, Ray's ip=,
	// a Kubernetes pod): it tells apart hosts that share a hostname.
	machine string
	// rank is the global rank a launcher prefix names (mpirun, srun -l,
	// torchrun, PyTorch's "[rank3]:"), -1 without one.
	rank  int
	host  string // NCCL's "host:pid:tid [dev]" host; "" when the line has none
	pid   int
	dev   int    // the [cudaDev] of the prefix, -1 without one
	level string // INFO, WARN, TRACE, ABORT; "" for lines without "NCCL <level>"
	msg   string // what follows "NCCL INFO ", or the line without its launcher prefixes
	// torchLevel is the level letter of PyTorch's C++ log prefix (E, W, I,
	// F) when the line had one from its distributed code (c10d:
	// ProcessGroupNCCL, NCCLUtils, TCPStore …), "" otherwise.
	torchLevel string
}

// prefixRule is one launcher's line prefix, anchored at the start of what is
// left of the line.
type prefixRule struct {
	re *regexp.Regexp
	// apply records what the match says about the line.
	apply func(m []string, r *record)
}

// The launcher prefixes, learnt from what real launchers print. Several may
// stack ("[pod/w-0/c] 2024-05-01T12:00:00Z (RayWorkerWrapper pid=1, ip=…)").
var prefixRules = []prefixRule{
	// mpirun --tag-output: "[1,0]<stdout>:" (job, rank).
	{regexp.MustCompile(`^\s*\[(\d+),(\d+)\]<std(?:out|err)>:\s?`), func(m []string, r *record) {
		r.stream, r.rank = "mpi:"+m[1]+","+m[2], atoiOr(m[2], -1)
	}},
	// kubectl logs --prefix: "[pod/NAME/CONTAINER] ".
	{regexp.MustCompile(`^\s*\[pod/([^/\]\s]+)/[^\]\s]*\]\s`), func(m []string, r *record) {
		r.stream, r.machine = "pod:"+m[1], m[1]
	}},
	// torchrun --tee and PyTorch's own log prefix: "[default0]:", "[rank3]:".
	{regexp.MustCompile(`^\s*\[(default|rank)(\d+)\]:`), func(m []string, r *record) {
		r.stream = "torchrun:" + m[2]
		if m[1] == "rank" {
			r.rank = atoiOr(m[2], -1)
		}
	}},
	// Ray: "(RayWorkerWrapper pid=284, ip=10.0.0.2) ", "(pid=34272) ", nested actors.
	{regexp.MustCompile(`^\s*\((?:[\w.-]+\s+)?pid=(\d+)(?:,\s*ip=([0-9a-fA-F.:]+))?[^)]*\)\s`), func(m []string, r *record) {
		r.stream = "ray:" + m[1]
		if m[2] != "" {
			r.stream, r.machine = "ray:"+m[2]+":"+m[1], m[2]
		}
	}},
	// A bracketed rank or line number: "[155] ".
	{regexp.MustCompile(`^\s*\[(\d+)\]\s`), func(m []string, r *record) {
		if r.stream == "" {
			r.stream = "[" + m[1] + "]"
		}
	}},
	// Timestamps: ISO 8601 (kubectl --timestamps, journald -o short-iso),
	// "[2024-03-21 10:00:02]", Python logging's "2024-03-21 10:00:01,002 ",
	// syslog's "Mar 21 10:00:01 host prog[pid]: ".
	{regexp.MustCompile(`^\[?\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\]?\s`), nil},
	{regexp.MustCompile(`^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d ([\w.-]+) [\w./-]+(?:\[\d+\])?:\s`), func(m []string, r *record) {
		r.stream, r.machine = "syslog:"+m[1], m[1]
	}},
	// Python logging's " - name - LEVEL - " or "LEVEL:name:" after a timestamp.
	{regexp.MustCompile(`^-\s[\w.\[\]-]+\s-\s(?:DEBUG|INFO|WARNING|ERROR|CRITICAL)\s-\s`), nil},
	// srun -l: "3: " (the task number).
	{regexp.MustCompile(`^\s*(\d+):\s`), func(m []string, r *record) {
		r.stream, r.rank = "srun:"+m[1], atoiOr(m[1], -1)
	}},
	// pdsh and DeepSpeed's pdsh runner: "gpu-a: ", "10.1.2.3: ".
	// NCCL's own function names ("socketStartConnect: ") are camelCase;
	// host names are not: those are no prefix.
	{regexp.MustCompile(`^([A-Za-z0-9][\w.-]*|\d+\.\d+\.\d+\.\d+):\s`), func(m []string, r *record) {
		r.stream, r.machine = "pdsh:"+m[1], m[1]
	}},
}

var (
	// ncclRe matches "host:pid:tid [dev] NCCL INFO msg", the WARN form with
	// the source location "host:pid:tid [dev] transport/net_ib.cc:1296 NCCL
	// WARN msg", and the trimmed "NCCL INFO msg".
	// The pid and tid may be redacted ("host:XXXXXX:XXXXXX"); NCCL 2.0-2.2
	// printed the level without "NCCL" after that prefix.
	ncclRe = regexp.MustCompile(`^\s*(?:(?:([^\s:]+):([\w*]+)(?::([\w*]+))?\s+\[(\d+|[xX*]+)\]\s+(?:\S+:\d+\s+)?)?NCCL |([^\s:]+):(\d+):(\d+)\s+\[(\d+)\]\s+)(INFO|WARN|TRACE|ABORT)\b\s?(.*)$`)
	// ncclAnywhereRe finds the NCCL prefix behind launcher prefixes no rule
	// knows.
	ncclAnywhereRe = regexp.MustCompile(`(?:^|[\s\]):>])([^\s:\[\]()<>]+):(\d+):(\d+)\s+\[(\d+)\]\s+(?:\S+:\d+\s+)?NCCL (INFO|WARN|TRACE|ABORT)\b\s?(.*)$`)
	// payloadRe is text a prefix never precedes: the line is fully stripped.
	payloadRe = regexp.MustCompile(`^\s*(?:NCCL (?:INFO|WARN|TRACE|ABORT|version)\b|#|\[E |\[W |\[I |\[Rank \d+\]|RuntimeError|torch\.|\d+\s+\d+\s+\w+\s+\w+\s)`)
	// camelRe: a function name (socketProgress, ncclSocketConnect), never a host.
	camelRe = regexp.MustCompile(`^[a-z]+[A-Z]\w*$`)
	// torchLogRe is PyTorch's C++ log prefix "[E1206 18:44:12.755 File.cpp:607] ".
	torchLogRe = regexp.MustCompile(`^\[([EWIF])\d{0,4}(?: [\d:.]+)?\s+([\w.]+):\d+\]\s`)
	// c10dFileRe names the source files of PyTorch's distributed backend.
	c10dFileRe = regexp.MustCompile(`^(?:ProcessGroupNCCL|NCCLUtils|ProcessGroupGloo|TCPStore\w*|socket|Utils|FlightRecorder\w*|ProcessGroup\w*)\.(?:cpp|hpp)$`)
)

// atoiOr reads a launcher's rank or NCCL's pid or device, def (unknown)
// for digits no int holds or a redacted "XXXX": never the largest int.
func atoiOr(s string, def int) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return def
	}
	return n
}

// maxPrefixes bounds how many launcher prefixes one line may carry.
const maxPrefixes = 8

// splitLine takes a raw line apart: terminal escapes and launcher prefixes
// off, then NCCL's own "host:pid:tid [dev] NCCL LEVEL".
func splitLine(raw string) record {
	s := textutil.StripANSI(raw)
	rec := record{dev: -1, rank: -1, msg: s}
	rest := stripLaunchers(s, &rec)
	if m := torchLogRe.FindStringSubmatch(rest); m != nil {
		rest = rest[len(m[0]):]
		if c10dFileRe.MatchString(m[2]) {
			rec.torchLevel = m[1]
		}
	}
	rec.msg = rest
	if m := ncclRe.FindStringSubmatch(rest); m != nil {
		rec.host, rec.level, rec.msg = m[1], m[9], m[10]
		if m[1] != "" {
			rec.pid, rec.dev = atoiOr(m[2], 0), atoiOr(m[4], -1)
		}
		if m[5] != "" { // NCCL 2.0-2.2: "host:pid:tid [dev] INFO"
			rec.host, rec.pid, rec.dev = m[5], atoiOr(m[6], 0), atoiOr(m[8], -1)
		}
		return rec
	}
	// A prefix no rule knows: look for NCCL's own prefix further in.
	if m := ncclAnywhereRe.FindStringSubmatchIndex(s); m != nil {
		sub := func(i int) string { return s[m[2*i]:m[2*i+1]] }
		rec.host, rec.pid, rec.dev, rec.level, rec.msg = sub(1), atoiOr(sub(2), 0), atoiOr(sub(4), -1), sub(5), sub(6)
		return rec
	}
	return rec
}

// trimmed reports the message without surrounding blanks.
func (r record) trimmed() string { return strings.TrimSpace(r.msg) }

// stripLaunchers takes the launcher prefixes off s, recording what they
// say in rec, and returns the rest.
func stripLaunchers(s string, rec *record) string {
	rest := s
	for i := 0; i < maxPrefixes && !payloadRe.MatchString(rest) && !ncclRe.MatchString(rest); i++ {
		matched := false
		for _, p := range prefixRules {
			m := p.re.FindStringSubmatch(rest)
			if m == nil || (len(m) > 1 && camelRe.MatchString(m[1]) && strings.HasPrefix(rest, m[1]+":")) {
				continue
			}
			if p.apply != nil {
				p.apply(m, rec)
			}
			rest, matched = rest[len(m[0]):], true
			break
		}
		if !matched {
			break
		}
	}
	return rest
}

// LauncherPrefix takes the launcher prefixes (mpirun --tag-output, srun
// -l, pdsh, Ray, torchrun, kubectl --prefix, timestamps, syslog) and
// terminal escapes off one line of any tool's output, and names the
// machine or stream they say the line came from ("" for none).
func LauncherPrefix(raw string) (source, rest string) {
	rec := record{dev: -1, rank: -1}
	rest = stripLaunchers(textutil.StripANSI(raw), &rec)
	source = rec.machine
	if source == "" {
		source = rec.stream
	}
	return source, rest
}
