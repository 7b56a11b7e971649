package opensm

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fabricctl/fabricctl/fabric"
)

var (
	// ErrFallback: OpenSM logged a partition configuration error and fell
	// back to its default configuration (every port a full member of
	// 0x7fff, every other partition dropped).
	ErrFallback = errors.New("OpenSM rejected the partition configuration and fell back to its default")
	// ErrNoSweep: OpenSM logged no completed sweep (SUBNET UP) in time.
	ErrNoSweep = errors.New("no OpenSM sweep completed")
)

// LogRemote reads a growing log file on the subnet manager's host.
// CommandRemote implements it with stat and tail.
type LogRemote interface {
	// Size returns the file's size; an absent file is 0.
	Size(ctx context.Context, path string) (int64, error)
	// ReadFrom returns the file's bytes from offset on.
	ReadFrom(ctx context.Context, path string, offset int64) ([]byte, error)
}

// FabricReader reads what the subnet manager really did: its log after a
// reload and every port's P_Key table, over the same Runner that reaches the
// SM's host (infiniband-diags there: ibnetdiscover, sminfo, smpquery). The
// partitions file is not the truth: OpenSM silently falls back to its
// default configuration on a syntax error, reads an unknown membership word
// as limited, and does not heal tables another SM changed.
type FabricReader struct {
	// Diag runs infiniband-diags on a host attached to the subnet.
	Diag Runner
	// LogFile is OpenSM's log ("" skips the log checks: then only the
	// P_Key tables judge a push).
	LogFile string
	// Logs reads LogFile.
	Logs LogRemote
	// SweepTimeout bounds the wait for OpenSM's sweep after a SIGHUP (60 s
	// when zero).
	SweepTimeout time.Duration
	// Parallel is how many P_Key tables are read at once (8 when zero).
	Parallel int
}

// Observed is the subnet as read from the ports.
type Observed struct {
	SM    SMInfo `json:"sm"`
	Ports []Port `json:"ports"`
	// Tables maps a CA port's GUID to its memberships by pkey.
	Tables map[uint64]map[uint16]string `json:"tables"`
	// Unparsed are ibnetdiscover lines not understood.
	Unparsed []Unparsed `json:"unparsed,omitempty"`
}

// Ports discovers the subnet's ports (ibnetdiscover -p) and returns the
// lines it did not understand beside them.
func (r *FabricReader) Ports(ctx context.Context) ([]Port, []Unparsed, error) {
	out, err := r.Diag.Run(ctx, []string{"ibnetdiscover", "-p"}, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("discovering the subnet: %w", err)
	}
	ports, bad := ParseNetDiscoverPorts(string(out))
	return ports, bad, nil
}

// DiscoverGUIDs returns the port GUIDs of each of hosts found among ports:
// the CA ports whose NodeDescription's first word is the host's name (a
// Linux host describes its HCA as "HOSTNAME DEVICE"; rdma-ndd keeps it so).
// Hosts with no such port are absent from the result.
func DiscoverGUIDs(ports []Port, hosts []string) map[string][]string {
	want := map[string]bool{}
	for _, h := range hosts {
		want[h] = true
	}
	out := map[string][]string{}
	for _, p := range ports {
		if h := p.Host(); p.Type == "CA" && want[h] {
			g := FormatGUID(p.GUID)
			if !slices.Contains(out[h], g) {
				out[h] = append(out[h], g)
			}
		}
	}
	for _, g := range out {
		slices.Sort(g)
	}
	return out
}

// Observe discovers the subnet (ibnetdiscover -p, sminfo) and reads the
// P_Key table of every CA port (smpquery pkeys LID PORT). A line of
// ibnetdiscover it did not understand is an error: the port it may stand
// for would go unchecked.
func (r *FabricReader) Observe(ctx context.Context) (*Observed, error) {
	o := &Observed{Tables: map[uint64]map[uint16]string{}}
	var err error
	if o.Ports, o.Unparsed, err = r.Ports(ctx); err != nil {
		return nil, err
	}
	if len(o.Unparsed) > 0 {
		// a line not understood may be a port whose table goes unchecked:
		// the reading cannot vouch for the partitions
		return nil, fmt.Errorf("discovering the subnet: %d ibnetdiscover -p lines not understood, first %v", len(o.Unparsed), o.Unparsed[0])
	}
	smOut, err := r.Diag.Run(ctx, []string{"sminfo"}, nil)
	if err != nil {
		return nil, fmt.Errorf("reading the master SM: %w", err)
	}
	if o.SM, err = ParseSMInfo(string(smOut)); err != nil {
		return nil, err
	}
	var cas []Port
	for _, p := range o.Ports {
		if p.Type == "CA" {
			cas = append(cas, p)
		}
	}
	n := r.Parallel
	if n <= 0 {
		n = 8
	}
	type res struct {
		guid uint64
		m    map[uint16]string
		err  error
	}
	results := make([]res, len(cas))
	sem := make(chan struct{}, n)
	done := make(chan struct{})
	for i, p := range cas {
		go func() {
			sem <- struct{}{}
			defer func() { <-sem; done <- struct{}{} }()
			text, err := r.Diag.Run(ctx, []string{"smpquery", "pkeys", strconv.Itoa(p.LID), strconv.Itoa(p.Num)}, nil)
			if err != nil {
				results[i] = res{err: fmt.Errorf("reading the P_Key table of %s (0x%016x, lid %d): %w", p.Node, p.GUID, p.LID, err)}
				return
			}
			t, err := ParsePKeys(string(text))
			if err != nil {
				results[i] = res{err: fmt.Errorf("reading the P_Key table of %s (0x%016x, lid %d): %w", p.Node, p.GUID, p.LID, err)}
				return
			}
			results[i] = res{guid: p.GUID, m: t.Memberships()}
		}()
	}
	for range cas {
		<-done
	}
	var errs []error
	for _, x := range results {
		if x.err != nil {
			errs = append(errs, x.err)
			continue
		}
		o.Tables[x.guid] = x.m
	}
	return o, errors.Join(errs...)
}

// ExpectedTables returns the P_Key memberships every CA port of o should
// have under the partition table parts (a Desired table): OpenSM's rules,
// applied in order, a later entry for a port replacing an earlier one
// ("both" programs the full key): ALL
// and ALL_CAS name every CA port, SELF the master SM's port, a GUID its
// port; without a rule for 0x7fff OpenSM applies DefaultPartition.
// Ports absent from every partition are absent from the result's inner
// maps, which then must be empty.
func ExpectedTables(parts []fabric.PartitionIntent, o *Observed) map[uint64]map[uint16]string {
	want := map[uint64]map[uint16]string{}
	var cas []uint64
	for _, p := range o.Ports {
		if p.Type == "CA" {
			if _, ok := want[p.GUID]; !ok {
				cas = append(cas, p.GUID)
			}
			want[p.GUID] = map[uint16]string{}
		}
	}
	all := parts
	if !slices.ContainsFunc(parts, func(p fabric.PartitionIntent) bool { return p.PKey == DefaultPKey }) {
		all = append([]fabric.PartitionIntent{DefaultPartition()}, parts...)
	}
	for _, p := range all {
		if p.PKey == 0 {
			continue // OpenSM generates its pkey: nothing to predict
		}
		set := func(g uint64, m string) {
			if t, ok := want[g]; ok {
				t[p.PKey] = m
			}
		}
		for _, m := range p.Members {
			ms := m.Membership
			if ms == "" {
				ms = p.DefaultMembership
			}
			if ms == "" {
				ms = "limited"
			}
			if ms == "both" {
				// OpenSM puts the port in the partition's full and limited
				// lists, and programs the full key into its table (seen on
				// OpenSM 3.3.23 in the lab: 0x8002 only).
				ms = "full"
			}
			switch m.Special {
			case "ALL", "ALL_CAS":
				for _, g := range cas {
					set(g, ms)
				}
			case "SELF":
				set(o.SM.GUID, ms)
			case "":
				if g, err := ParseGUID(m.GUID); err == nil {
					set(g, ms)
				}
			}
		}
	}
	return want
}

// PortDiff is one port whose P_Key table disagrees with the intent for one
// partition. Want and Got are full, limited, both or absent.
type PortDiff struct {
	GUID uint64 `json:"guid"`
	Node string `json:"node,omitempty"`
	PKey uint16 `json:"pkey"`
	Want string `json:"want"`
	Got  string `json:"got"`
}

func (d PortDiff) String() string {
	return fmt.Sprintf("port 0x%016x (%s) pkey 0x%04x: want %s, got %s", d.GUID, d.Node, d.PKey, d.Want, d.Got)
}

// ComparePorts returns every (port, partition) whose membership in o's
// tables differs from parts, sorted by node, GUID and pkey.
func ComparePorts(parts []fabric.PartitionIntent, o *Observed) []PortDiff {
	want := ExpectedTables(parts, o)
	nodes := map[uint64]string{}
	for _, p := range o.Ports {
		nodes[p.GUID] = p.Node
	}
	var out []PortDiff
	for g, w := range want {
		got := o.Tables[g]
		keys := map[uint16]bool{}
		for k := range w {
			keys[k] = true
		}
		for k := range got {
			keys[k] = true
		}
		for k := range keys {
			a, b := orAbsent(w[k]), orAbsent(got[k])
			if a != b {
				out = append(out, PortDiff{GUID: g, Node: nodes[g], PKey: k, Want: a, Got: b})
			}
		}
	}
	slices.SortFunc(out, func(a, b PortDiff) int {
		if c := strings.Compare(a.Node, b.Node); c != 0 {
			return c
		}
		if a.GUID != b.GUID {
			return cmpU(a.GUID, b.GUID)
		}
		return int(a.PKey) - int(b.PKey)
	})
	return out
}

func cmpU(a, b uint64) int {
	if a < b {
		return -1
	}
	return 1
}

func orAbsent(s string) string {
	if s == "" {
		return "absent"
	}
	return s
}

// UnknownMembers returns the GUID members of parts that no port of o has:
// OpenSM logs those only at verbose level and leaves them out.
func UnknownMembers(parts []fabric.PartitionIntent, o *Observed) []string {
	have := map[uint64]bool{}
	for _, p := range o.Ports {
		have[p.GUID] = true
	}
	var out []string
	for _, p := range parts {
		for _, m := range p.Members {
			if g, err := ParseGUID(m.GUID); err == nil && m.GUID != "" && !have[g] {
				out = append(out, fmt.Sprintf("partition %s (0x%04x): member %s", p.Name, p.PKey, FormatGUID(g)))
			}
		}
	}
	return out
}

// logSize is the log's size now (0 when there is no log to watch).
func (r *FabricReader) logSize(ctx context.Context) (int64, error) {
	if r.LogFile == "" || r.Logs == nil {
		return 0, nil
	}
	return r.Logs.Size(ctx, r.LogFile)
}

// WaitSweep waits until OpenSM's log, after byte offset from, shows a
// completed sweep (SUBNET UP), and fails with ErrFallback, quoting
// OpenSM's own lines, when that part of the log has a partition
// configuration error. Without a log it returns nil at once.
func (r *FabricReader) WaitSweep(ctx context.Context, from int64) error {
	if r.LogFile == "" || r.Logs == nil {
		return nil
	}
	timeout := r.SweepTimeout
	if timeout == 0 {
		timeout = time.Minute
	}
	deadline := time.Now().Add(timeout)
	for {
		data, err := r.Logs.ReadFrom(ctx, r.LogFile, from)
		if err != nil {
			return fmt.Errorf("reading %s: %w", r.LogFile, err)
		}
		bad, up := scanLog(data)
		if len(bad) > 0 {
			return fmt.Errorf("%w: %s", ErrFallback, strings.Join(bad, "; "))
		}
		if up {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%w within %v after the reload (%s)", ErrNoSweep, timeout, r.LogFile)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// scanLog returns OpenSM's partition errors in a piece of its log, and
// whether a sweep completed. The markers are OpenSM's own messages:
// parse_part_conf's "PARSE ERROR: line N: …" and osm_prtn_make_partitions'
// "Partition configuration in error; retrying with default config".
func scanLog(data []byte) (bad []string, up bool) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.Contains(line, "PARSE ERROR"), strings.Contains(line, "Partition configuration in error"):
			if i := strings.Index(line, "-> "); i >= 0 {
				line = line[i+3:]
			}
			bad = append(bad, strings.TrimSpace(line))
		case strings.Contains(line, "SUBNET UP"):
			up = true
		}
	}
	return bad, up
}

// Size implements LogRemote with stat -c %s; an absent file is 0.
func (c *CommandRemote) Size(ctx context.Context, p string) (int64, error) {
	if err := checkPath(p); err != nil {
		return 0, err
	}
	out, err := c.R.Run(ctx, []string{"stat", "-c", "%s", "--", p}, nil)
	if err != nil {
		if ok, xerr := c.exists(ctx, p); xerr == nil && !ok {
			return 0, nil
		}
		return 0, fmt.Errorf("reading the size of %s: %w", p, err)
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("reading the size of %s: stat printed %q", p, out)
	}
	return n, nil
}

// ReadFrom implements LogRemote with tail -c +N; an absent file reads as
// nothing.
func (c *CommandRemote) ReadFrom(ctx context.Context, p string, offset int64) ([]byte, error) {
	if err := checkPath(p); err != nil {
		return nil, err
	}
	out, err := c.R.Run(ctx, []string{"tail", "-c", "+" + strconv.FormatInt(offset+1, 10), "--", p}, nil)
	if err != nil {
		if ok, xerr := c.exists(ctx, p); xerr == nil && !ok {
			return nil, nil
		}
		return nil, fmt.Errorf("reading %s: %w", p, err)
	}
	return out, nil
}

var _ LogRemote = (*CommandRemote)(nil)
