package rdma

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"time"
)

// Trace is what one run of traceroute (Dmitry Butskoy's "modern
// traceroute for Linux", Debian's traceroute package) printed: its header
// and one Hop per TTL, in order.
type Trace struct {
	// Target is the destination as the header names it ("traceroute to
	// 10.2.2.2 (10.2.2.2), 8 hops max, 60 byte packets"): the address in
	// parentheses.
	Target  string `json:"target,omitempty"`
	MaxHops int    `json:"maxHops,omitempty"`
	Hops    []Hop  `json:"hops"`
	// Unparsed holds the lines that were neither the header nor a hop, as
	// read (a bind error, a warning): reported, never guessed at.
	Unparsed []string `json:"unparsed,omitempty"`
}

// Hop is one TTL's line: the addresses that answered its probes, in the
// order they answered ("1  10.1.1.1 (10.1.1.1)  0.071 ms  0.011 ms *"
// gives one address and one lost probe).
type Hop struct {
	TTL   int      `json:"ttl"`
	Addrs []string `json:"addrs,omitempty"`
	// Lost counts the probes that got no answer ("*").
	Lost int `json:"lost,omitempty"`
	// Notes are traceroute's annotations of an answer: !H, !N, !P (host,
	// network, protocol unreachable), !X (administratively prohibited),
	// !S, !F, !V, !C, !<num> (another ICMP code).
	Notes []string `json:"notes,omitempty"`
	// RTTs are the round-trip times of the answers.
	RTTs []time.Duration `json:"rtts,omitempty"`
}

// Answered reports whether any probe of the hop got an answer.
func (h Hop) Answered() bool { return len(h.Addrs) > 0 }

// ErrNotTraceroute: the text has neither traceroute's header nor a hop line.
var ErrNotTraceroute = errors.New("not the output of traceroute")

// maxTraceHops bounds what ParseTraceroute reads: traceroute's own limit
// (-m) is 255.
const maxTraceHops = 255

// ParseTraceroute reads what traceroute printed, with or without -n (an
// answer is "ADDR" or "NAME (ADDR)"), any -q. A line that is neither the
// header nor a hop goes into Unparsed; a hop line with a token it does not
// understand goes there whole too. Text with neither a header nor a hop is
// ErrNotTraceroute.
func ParseTraceroute(out []byte) (Trace, error) {
	var tr Trace
	header := false
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		if rest, ok := strings.CutPrefix(line, "traceroute to "); ok && !header {
			header = true
			tr.Target, tr.MaxHops = parseTraceHeader(rest)
			continue
		}
		h, ok := parseHop(line)
		if !ok || len(tr.Hops) >= maxTraceHops || len(tr.Hops) > 0 && h.TTL <= tr.Hops[len(tr.Hops)-1].TTL {
			tr.Unparsed = append(tr.Unparsed, line)
			continue
		}
		tr.Hops = append(tr.Hops, h)
	}
	if err := sc.Err(); err != nil {
		return Trace{}, fmt.Errorf("reading traceroute output: %w", err)
	}
	if !header && len(tr.Hops) == 0 {
		return Trace{}, ErrNotTraceroute
	}
	return tr, nil
}

// parseTraceHeader reads "10.2.2.2 (10.2.2.2), 8 hops max, 60 byte packets".
func parseTraceHeader(s string) (target string, maxHops int) {
	parts := strings.Split(s, ",")
	first := strings.TrimSpace(parts[0])
	if i, j := strings.LastIndex(first, "("), strings.LastIndex(first, ")"); i >= 0 && j > i {
		target = first[i+1 : j]
	} else {
		target, _, _ = strings.Cut(first, " ")
	}
	for _, p := range parts[1:] {
		f := strings.Fields(p)
		if len(f) == 3 && f[1] == "hops" && f[2] == "max" {
			maxHops, _ = strconv.Atoi(f[0])
		}
	}
	return target, maxHops
}

// parseHop reads " 2  10.9.2.1 (10.9.2.1)  0.068 ms 10.9.1.1 (10.9.1.1)  0.088 ms !N  *".
func parseHop(line string) (Hop, bool) {
	f := strings.Fields(line)
	ttl, err := strconv.Atoi(f[0])
	if err != nil || ttl < 1 || ttl > maxTraceHops || len(f) < 2 {
		return Hop{}, false
	}
	h := Hop{TTL: ttl}
	seen := map[string]bool{}
	addAddr := func(a string) {
		if !seen[a] {
			seen[a] = true
			h.Addrs = append(h.Addrs, a)
		}
	}
	answered := false
	for i := 1; i < len(f); i++ {
		tok := f[i]
		switch {
		case tok == "*":
			h.Lost++
		case strings.HasPrefix(tok, "!"):
			if !answered {
				return Hop{}, false
			}
			h.Notes = append(h.Notes, tok)
		case i+1 < len(f) && f[i+1] == "ms":
			ms, err := strconv.ParseFloat(tok, 64)
			if err != nil || ms < 0 || ms > 1e7 || !answered {
				return Hop{}, false
			}
			h.RTTs = append(h.RTTs, time.Duration(ms*float64(time.Millisecond)))
			i++
		case strings.HasPrefix(tok, "(") && strings.HasSuffix(tok, ")"):
			a, err := netip.ParseAddr(tok[1 : len(tok)-1])
			if err != nil {
				return Hop{}, false
			}
			addAddr(a.String())
			answered = true
		default:
			if a, err := netip.ParseAddr(tok); err == nil && !(i+1 < len(f) && strings.HasPrefix(f[i+1], "(")) {
				addAddr(a.String())
				answered = true
				continue
			}
			// A name: its address follows in parentheses.
			if i+1 >= len(f) || !strings.HasPrefix(f[i+1], "(") || strings.ContainsAny(tok, "()") {
				return Hop{}, false
			}
		}
	}
	return h, true
}
