package nccl

import (
	"regexp"
	"strconv"
)

// record is one log line taken apart.
type record struct {
	stream string // the launcher's tag ("1,0" for mpirun, "3" for srun -l or "[3]"), "" without one
	host   string // "" when the line has no NCCL prefix
	pid    int
	dev    int    // the [cudaDev] of the prefix, -1 without one
	level  string // INFO, WARN, TRACE, ABORT; "" for unprefixed text
	msg    string // what follows "NCCL INFO ", or the whole line without the launcher tag
}

var (
	// tagRe strips launcher prefixes: mpirun --tag-output "[1,0]<stdout>:",
	// a bracketed rank "[155] ", and srun -l "0: ".
	tagRe = regexp.MustCompile(`^\s*(?:\[(\d+),(\d+)\]<std(?:out|err)>:|\[(\d+)\]\s|(\d+):\s)`)
	// ncclRe matches "host:pid:tid [dev] NCCL INFO msg", the WARN form with
	// the source location "host:pid:tid [dev] transport/net_ib.cc:1296 NCCL
	// WARN msg", and the trimmed "NCCL INFO msg".
	ncclRe = regexp.MustCompile(`^\s*(?:([^\s:]+):(\d+):(\d+)\s+\[(\d+)\]\s+(?:\S+:\d+\s+)?)?NCCL (INFO|WARN|TRACE|ABORT)\b\s?(.*)$`)
)

// splitLine takes a raw line apart.
func splitLine(raw string) record {
	rec := record{dev: -1, msg: raw}
	if m := tagRe.FindStringSubmatch(raw); m != nil {
		switch {
		case m[1] != "":
			rec.stream = m[1] + "," + m[2]
		case m[3] != "":
			rec.stream = m[3]
		default:
			rec.stream = m[4]
		}
		raw = raw[len(m[0]):]
		rec.msg = raw
	}
	m := ncclRe.FindStringSubmatch(raw)
	if m == nil {
		return rec
	}
	rec.host, rec.level, rec.msg = m[1], m[5], m[6]
	if m[1] != "" {
		rec.pid, _ = strconv.Atoi(m[2])
		rec.dev, _ = strconv.Atoi(m[4])
	}
	return rec
}
