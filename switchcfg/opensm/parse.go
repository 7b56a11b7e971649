package opensm

import (
	"errors"
	"fmt"
	"net"
	"sort"
	"strings"

	"github.com/fabricctl/fabricctl/fabric"
)

// ErrSyntax is wrapped by every *ParseError, for errors.Is.
var ErrSyntax = errors.New("partitions.conf syntax error")

// ParseError is a problem at one place of a partitions.conf text. Error()
// reads "LINE:COL: message" (1-based; COL counts bytes); the caller adds the
// file name in front.
type ParseError struct {
	Line, Col int
	Msg       string
}

func (e *ParseError) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg) }

// Unwrap lets errors.Is(err, ErrSyntax) match.
func (e *ParseError) Unwrap() error { return ErrSyntax }

// File is everything ParseFile read from a partitions.conf.
type File struct {
	// Partitions in order of first definition, repeats merged by pkey (or,
	// for a definition without a pkey, by name, as OpenSM does).
	Partitions []fabric.PartitionIntent `json:"partitions"`
	// Extras are settings OpenSM honours that fabric.PartitionIntent has no
	// field for: multicast groups (mgid=…), indx0, scope=, Q_Key=, TClass=,
	// FlowLabel=. Render never writes them, so pushing over such a file drops
	// them; a plan should say so.
	Extras []Extra `json:"extras,omitempty"`
}

// Extra is one setting the canonical intent cannot hold.
type Extra struct {
	Line      int    `json:"line"`
	Col       int    `json:"col"`
	PKey      uint16 `json:"pkey"` // 0 when the definition has none
	Partition string `json:"partition"`
	// Text is the setting as written, whitespace-trimmed, e.g. "indx0",
	// "scope=2" or "mgid=ff12:401b::16,sl=1".
	Text string `json:"text"`
}

// Parse reads a partitions.conf and returns its partitions; see ParseFile.
func Parse(text string) ([]fabric.PartitionIntent, error) {
	f, err := ParseFile(text)
	if err != nil {
		return nil, err
	}
	return f.Partitions, nil
}

// ParseFile reads a partitions.conf with the grammar of OpenSM's own parser
// (opensm/osm_prtn_config.c), so it accepts what OpenSM accepts:
//
//   - '#' starts a comment that runs to the end of the line;
//   - a definition is "HEADER : MEMBERS ;" where the header and its ':' share
//     one line and the members may run over many lines; ';' ends it;
//   - the header is "[Name][=PKey][,flag[=value]]…"; a header whose name starts
//     with a digit and has no '=' is a bare pkey; flags may be abbreviated
//     (OpenSM compares prefixes: "ip" is ipoib, "limi" is limited);
//   - only the low 15 bits of a pkey count (0x8001 and 0x0001 are one
//     partition), numbers are C-style (0x hex, leading 0 octal, decimal);
//   - members are "GUID[=full|limited|both]", ALL, ALL_CAS, ALL_SWITCHES,
//     ALL_ROUTERS, SELF, or NONE (ignored); without "=…" a member takes the
//     definition's defmember, which defaults to limited;
//   - "mgid=GID[,flag=value]…" defines a multicast group and takes the rest
//     of its line;
//   - definitions repeating a pkey are merged (the first name is kept); a
//     later entry for the same member replaces an earlier one, and a later
//     ALL replaces every earlier entry, because OpenSM applies them in order.
//
// Where OpenSM only logs a warning and carries on (an unknown flag or
// membership word, a bad value, a CR line ending, a missing final ';'), this
// parser returns an error: OpenSM's silent fallback (e.g. limited membership
// for "=fulll") is rarely what the author meant. Errors are *ParseError.
func ParseFile(text string) (*File, error) {
	p := &parser{byPKey: map[uint16]int{}}
	if err := p.run(text); err != nil {
		return nil, err
	}
	if p.out == nil {
		p.out = []fabric.PartitionIntent{} // no partitions, as Desired says it
	}
	return &File{Partitions: p.out, Extras: p.extras}, nil
}

const (
	// MaxLine is the longest line, without its newline, that OpenSM reads
	// whole: osm_prtn_config_parse_file calls fgets(line, sizeof(line) - 1)
	// on a char[4096], so it gets 4094 bytes with the newline, and a longer
	// line arrives as two, each parsed on its own.
	MaxLine = 4093
	// DefaultPKey is OpenSM's default partition; it always exists.
	DefaultPKey uint16 = 0x7fff
	pkeyMask    uint16 = 0x7fff
)

// Special member names in canonical order.
var specials = []string{"ALL", "ALL_CAS", "ALL_SWITCHES", "ALL_ROUTERS", "SELF"}

// definition is one "HEADER : MEMBERS ;" being read.
type definition struct {
	line, col int
	idx       int    // index into parser.out
	defmember string // membership for members written without one
}

type parser struct {
	out    []fabric.PartitionIntent
	byPKey map[uint16]int
	extras []Extra
	// explicit values already seen per partition index, for conflict errors
	seen map[int]map[string]seenValue
	cur  *definition
}

type seenValue struct {
	val       string
	line, col int
}

// token is a piece of one line with its 1-based column.
type token struct {
	s   string
	col int
}

func (t token) trim() token {
	lead := len(t.s) - len(strings.TrimLeft(t.s, " \t"))
	return token{s: strings.Trim(t.s, " \t"), col: t.col + lead}
}

// split cuts t at every sep, keeping columns.
func (t token) split(sep byte) []token {
	var out []token
	start := 0
	for i := 0; i < len(t.s); i++ {
		if t.s[i] == sep {
			out = append(out, token{t.s[start:i], t.col + start})
			start = i + 1
		}
	}
	return append(out, token{t.s[start:], t.col + start})
}

// cut splits t at the first sep; ok is false when sep is absent.
func (t token) cut(sep byte) (before, after token, ok bool) {
	i := strings.IndexByte(t.s, sep)
	if i < 0 {
		return t, token{col: t.col + len(t.s)}, false
	}
	return token{t.s[:i], t.col}, token{t.s[i+1:], t.col + i + 1}, true
}

func errAt(line, col int, format string, args ...any) *ParseError {
	return &ParseError{Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) run(text string) error {
	lines := strings.Split(text, "\n")
	for n, raw := range lines {
		line := n + 1
		if len(raw) > MaxLine {
			return errAt(line, MaxLine+1, "line of %d bytes: OpenSM reads a line in pieces of at most %d bytes and parses each as a line of its own", len(raw), MaxLine)
		}
		if i := strings.IndexByte(raw, '#'); i >= 0 {
			raw = raw[:i]
		}
		if i := strings.IndexByte(raw, '\r'); i >= 0 {
			return errAt(line, i+1, "carriage return: OpenSM does not accept CRLF line endings")
		}
		if i := strings.IndexByte(raw, 0); i >= 0 {
			return errAt(line, i+1, "NUL byte")
		}
		rest := token{raw, 1}
		for {
			rest = rest.trim()
			if rest.s == "" {
				break
			}
			seg, after, terminated := rest.cut(';')
			if err := p.segment(line, seg); err != nil {
				return err
			}
			if !terminated {
				break
			}
			p.cur = nil
			rest = after
		}
	}
	if p.cur != nil {
		return errAt(p.cur.line, p.cur.col, "partition definition is not terminated with ';'")
	}
	return nil
}

// segment handles one piece of a line up to ';' or the end of the line.
func (p *parser) segment(line int, seg token) error {
	if p.cur == nil {
		head, members, ok := seg.cut(':')
		if !ok {
			if strings.TrimSpace(seg.s) == "" {
				return errAt(line, seg.col, "empty partition definition before ';'")
			}
			return errAt(line, seg.trim().col, "no ':' after the partition definition %q (the header and its ':' must be on one line)", strings.TrimSpace(seg.s))
		}
		if err := p.header(line, head); err != nil {
			return err
		}
		seg = members
	}
	return p.members(line, seg)
}

func (p *parser) header(line int, head token) error {
	parts := head.split(',')
	first := parts[0].trim()
	nameTok, idTok, hasID := first.cut('=')
	nameTok, idTok = nameTok.trim(), idTok.trim()
	name := nameTok.s
	if !hasID && name != "" && name[0] >= '0' && name[0] <= '9' {
		idTok, hasID, name = nameTok, true, ""
	}
	var pkey uint16
	if hasID {
		v, err := parseCUint(idTok.s, 16)
		if err != nil {
			return errAt(line, idTok.col, "bad pkey %q: %v", idTok.s, err)
		}
		pkey = uint16(v) & pkeyMask
		if pkey == 0 {
			return errAt(line, idTok.col, "pkey %q has no partition bits (only the low 15 bits count; OpenSM would generate a pkey)", idTok.s)
		}
	}
	idx := p.find(name, pkey)
	if idx < 0 {
		p.out = append(p.out, fabric.PartitionIntent{Name: name, PKey: pkey, ServiceLevel: -1, Members: []fabric.PartitionMember{}})
		idx = len(p.out) - 1
		if pkey != 0 {
			p.byPKey[pkey] = idx
		}
	}
	def := &definition{line: line, col: first.col, idx: idx, defmember: "limited"}
	part := &p.out[idx]
	// OpenSM sets the partition's SL from every definition in turn (the
	// default when a definition has no sl=), so the last definition wins.
	part.ServiceLevel = -1
	for _, f := range parts[1:] {
		f = f.trim()
		if f.s == "" {
			continue // OpenSM treats an empty flag as a no-op
		}
		if err := p.flag(line, f, def, part); err != nil {
			return err
		}
	}
	p.cur = def
	return nil
}

// find returns the index of the partition a definition merges into, or -1.
func (p *parser) find(name string, pkey uint16) int {
	if pkey != 0 {
		if i, ok := p.byPKey[pkey]; ok {
			return i
		}
		return -1
	}
	if name == "" {
		return -1 // OpenSM generates a fresh pkey for every anonymous definition
	}
	// OpenSM looks the name up among partitions in pkey order, the implicit
	// Default (0x7fff) included.
	best := -1
	for i, q := range p.out {
		if q.Name == name && (best < 0 || pkeyOrder(q.PKey) < pkeyOrder(p.out[best].PKey)) {
			best = i
		}
	}
	if best < 0 && name == "Default" {
		p.out = append(p.out, fabric.PartitionIntent{Name: name, PKey: DefaultPKey, ServiceLevel: -1, Members: []fabric.PartitionMember{}})
		best = len(p.out) - 1
		p.byPKey[DefaultPKey] = best
	}
	return best
}

// pkeyOrder sorts partitions without a pkey (generated later) after the rest.
func pkeyOrder(k uint16) int {
	if k == 0 {
		return 1 << 16
	}
	return int(k)
}

// Partition flags in the order OpenSM tries them (prefix match, so "s" is scope).
var partitionFlags = []string{"mtu", "rate", "scope", "Q_Key", "TClass", "sl", "FlowLabel", "ipoib", "defmember"}

// Multicast group flags (mgid lines).
var groupFlags = partitionFlags[:7]

// matchFlag returns the flag word names[i] that w abbreviates, or "".
func matchFlag(w string, names []string) string {
	if w == "" {
		return ""
	}
	for _, n := range names {
		if strings.HasPrefix(n, w) {
			return n
		}
	}
	return ""
}

func (p *parser) flag(line int, f token, def *definition, part *fabric.PartitionIntent) error {
	nameTok, valTok, hasVal := f.cut('=')
	nameTok, valTok = nameTok.trim(), valTok.trim()
	flag := matchFlag(nameTok.s, partitionFlags)
	if flag == "" && nameTok.s == "indx0" {
		flag = "indx0"
	}
	switch flag {
	case "":
		return errAt(line, nameTok.col, "unknown partition flag %q (valid: ipoib, mtu, rate, sl, defmember, indx0, scope, Q_Key, TClass, FlowLabel)", nameTok.s)
	case "ipoib", "indx0":
		if hasVal {
			return errAt(line, valTok.col, "flag %s takes no value", flag)
		}
		if flag == "ipoib" {
			part.IPoIB = true
			return nil
		}
		p.extra(line, f, part)
		return nil
	}
	if !hasVal || valTok.s == "" {
		return errAt(line, f.col, "flag %s needs a value (%s=…)", flag, flag)
	}
	switch flag {
	case "defmember":
		m := matchMembership(valTok.s)
		if m == "" {
			return errAt(line, valTok.col, "defmember %q is not full, limited or both", valTok.s)
		}
		def.defmember = m
		if part.DefaultMembership == "" {
			part.DefaultMembership = m
		}
		return nil
	}
	v, err := groupValue(flag, valTok.s)
	if err != nil {
		return errAt(line, valTok.col, "%v", err)
	}
	switch flag {
	case "mtu":
		if err := p.once(def.idx, "mtu", valTok.s, v, line, valTok.col); err != nil {
			return err
		}
		part.MTUCode, part.MTU = int(v), 128<<v
	case "rate":
		if err := p.once(def.idx, "rate", valTok.s, v, line, valTok.col); err != nil {
			return err
		}
		part.RateCode, part.Rate = int(v), fabric.RateFromCode(int(v))
	case "sl":
		part.ServiceLevel = int(v)
	default: // scope, Q_Key, TClass, FlowLabel
		p.extra(line, f, part)
	}
	return nil
}

// once records an explicit mtu/rate and rejects a merged definition that
// contradicts an earlier one (OpenSM keeps the IPoIB broadcast group of the
// first, so the file would not mean what it says).
func (p *parser) once(idx int, what, text string, v uint64, line, col int) error {
	if p.seen == nil {
		p.seen = map[int]map[string]seenValue{}
	}
	m := p.seen[idx]
	if m == nil {
		m = map[string]seenValue{}
		p.seen[idx] = m
	}
	val := fmt.Sprint(v)
	if prev, ok := m[what]; ok && prev.val != val {
		return errAt(line, col, "%s=%s contradicts %s=%s at %d:%d for the same partition", what, text, what, prev.val, prev.line, prev.col)
	}
	m[what] = seenValue{val, line, col}
	return nil
}

// groupValue checks the value of a multicast-group flag.
func groupValue(flag, s string) (uint64, error) {
	v, err := parseCUint(s, 32)
	if err != nil {
		return 0, fmt.Errorf("bad %s value %q: %w", flag, s, err)
	}
	switch flag {
	case "mtu":
		if v < 1 || v > 5 {
			return 0, fmt.Errorf("mtu=%s is not an IBTA MTU code (1=256 … 5=4096)", s)
		}
	case "rate":
		if fabric.RateFromCode(int(v)) == 0 {
			return 0, fmt.Errorf("rate=%s is not an IBTA rate code (e.g. 3=10, 16=100, 17=200, 21=400 Gb/s)", s)
		}
	case "sl":
		if v > 15 {
			return 0, fmt.Errorf("sl=%s is out of range 0..15", s)
		}
	case "scope":
		if v < 1 || v > 15 {
			return 0, fmt.Errorf("scope=%s is out of range 1..15", s)
		}
	case "TClass":
		if v > 255 {
			return 0, fmt.Errorf("TClass=%s is out of range 0..255", s)
		}
	case "FlowLabel":
		if v > 0xfffff {
			return 0, fmt.Errorf("FlowLabel=%s is out of range 0..0xfffff", s)
		}
	}
	return v, nil
}

func (p *parser) extra(line int, t token, part *fabric.PartitionIntent) {
	p.extras = append(p.extras, Extra{Line: line, Col: t.col, PKey: part.PKey, Partition: part.Name, Text: t.s})
}

// members reads the member list part of one line.
func (p *parser) members(line int, seg token) error {
	def := p.cur
	part := &p.out[def.idx]
	pieces := seg.split(',')
	for _, piece := range pieces {
		piece = piece.trim()
		if piece.s == "" {
			continue
		}
		nameTok, flagTok, hasFlag := piece.cut('=')
		nameTok, flagTok = nameTok.trim(), flagTok.trim()
		if nameTok.s == "mgid" {
			// A multicast group takes the rest of the segment.
			return p.mgroup(line, token{seg.s[piece.col-seg.col:], piece.col}.trim(), part)
		}
		if nameTok.s == "" {
			return errAt(line, piece.col, "membership %q without a port", piece.s)
		}
		if strings.HasPrefix("NONE", nameTok.s) {
			continue // OpenSM ignores NONE
		}
		membership := def.defmember
		if hasFlag {
			if membership = matchMembership(flagTok.s); membership == "" {
				return errAt(line, flagTok.col, "membership %q is not full, limited or both (OpenSM would assume limited)", flagTok.s)
			}
		}
		m := fabric.PartitionMember{Membership: membership}
		if sp := matchSpecial(nameTok.s); sp != "" {
			m.Special = sp
		} else {
			v, err := parseCUint(nameTok.s, 64)
			if err != nil {
				return errAt(line, nameTok.col, "bad port GUID %q: %v", nameTok.s, err)
			}
			if v == 0 {
				return errAt(line, nameTok.col, "port GUID %q is zero", nameTok.s)
			}
			m.GUID = FormatGUID(v)
		}
		part.Members = addMember(part.Members, m)
	}
	return nil
}

// addMember appends m, dropping entries m overrides: the same port or
// keyword, and with ALL every earlier entry.
func addMember(list []fabric.PartitionMember, m fabric.PartitionMember) []fabric.PartitionMember {
	out := list[:0]
	for _, x := range list {
		if m.Special == "ALL" || memberKey(x) == memberKey(m) {
			continue
		}
		out = append(out, x)
	}
	return append(out, m)
}

func (p *parser) mgroup(line int, t token, part *fabric.PartitionIntent) error {
	items := t.split(',')
	_, gidTok, _ := items[0].cut('=')
	gidTok = gidTok.trim()
	ip := net.ParseIP(gidTok.s)
	if ip == nil || ip.To4() != nil || ip[0] != 0xff {
		return errAt(line, gidTok.col, "mgid %q is not a multicast GID (ff…::…)", gidTok.s)
	}
	for _, it := range items[1:] {
		it = it.trim()
		if it.s == "" {
			continue
		}
		nameTok, valTok, hasVal := it.cut('=')
		nameTok, valTok = nameTok.trim(), valTok.trim()
		flag := matchFlag(nameTok.s, groupFlags)
		if flag == "" {
			return errAt(line, nameTok.col, "unknown multicast group flag %q (valid: mtu, rate, sl, scope, Q_Key, TClass, FlowLabel; an mgid entry takes the rest of its line)", nameTok.s)
		}
		if !hasVal || valTok.s == "" {
			return errAt(line, it.col, "flag %s needs a value (%s=…)", flag, flag)
		}
		if _, err := groupValue(flag, valTok.s); err != nil {
			return errAt(line, valTok.col, "%v", err)
		}
	}
	p.extra(line, t, part)
	return nil
}

// matchMembership returns the membership word w abbreviates, or "".
func matchMembership(w string) string {
	if w == "" {
		return ""
	}
	for _, m := range []string{"full", "both", "limited"} {
		if strings.HasPrefix(m, w) {
			return m
		}
	}
	return ""
}

// matchSpecial returns the keyword w abbreviates (OpenSM order), or "".
func matchSpecial(w string) string {
	for _, s := range specials {
		if strings.HasPrefix(s, w) {
			return s
		}
	}
	return ""
}

// parseCUint parses like C strtoul(s, &end, 0) with *end required to be 0:
// "0x" hex, a leading "0" octal, otherwise decimal; no sign, no spaces.
func parseCUint(s string, bits int) (uint64, error) {
	base, digits := uint64(10), s
	switch {
	case len(s) > 2 && (s[:2] == "0x" || s[:2] == "0X"):
		base, digits = 16, s[2:]
	case len(s) > 1 && s[0] == '0':
		base, digits = 8, s[1:]
	}
	if digits == "" {
		return 0, errors.New("not a number")
	}
	limit := uint64(1)<<uint(bits) - 1 // bits == 64 wraps to the maximum
	var v uint64
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		var d uint64
		switch {
		case c >= '0' && c <= '9':
			d = uint64(c - '0')
		case c >= 'a' && c <= 'f':
			d = uint64(c-'a') + 10
		case c >= 'A' && c <= 'F':
			d = uint64(c-'A') + 10
		default:
			return 0, errors.New("not a number")
		}
		if d >= base {
			return 0, errors.New("not a number")
		}
		if v > (limit-d)/base {
			return 0, fmt.Errorf("does not fit in %d bits", bits)
		}
		v = v*base + d
	}
	return v, nil
}

// FormatGUID writes a port GUID as fabricctl does everywhere: "0x" and 16
// lowercase hex digits.
func FormatGUID(v uint64) string { return fmt.Sprintf("0x%016x", v) }

// ParseGUID accepts a port GUID as "0x0002c903000e0b72", "0002c903000e0b72",
// "0002:c903:000e:0b72" (sysfs node_guid style) or with upper-case digits, and
// returns its value.
func ParseGUID(s string) (uint64, error) {
	h := strings.ReplaceAll(strings.TrimSpace(s), ":", "")
	h = strings.TrimPrefix(strings.TrimPrefix(h, "0x"), "0X")
	if h == "" || len(h) > 16 {
		return 0, fmt.Errorf("bad port GUID %q", s)
	}
	v, err := parseCUint("0x"+h, 64)
	if err != nil || v == 0 {
		return 0, fmt.Errorf("bad port GUID %q", s)
	}
	return v, nil
}

// memberKey identifies a member for merging and comparison.
func memberKey(m fabric.PartitionMember) string {
	switch {
	case m.Special != "":
		return m.Special
	case m.Host != "":
		return "host:" + m.Host
	}
	return m.GUID
}

// memberRank orders members: keywords (ALL first) before GUIDs, GUIDs ascending.
func memberRank(m fabric.PartitionMember) (int, string) {
	for i, s := range specials {
		if m.Special == s {
			return i, ""
		}
	}
	if m.Host != "" {
		return len(specials) + 1, m.Host
	}
	return len(specials), m.GUID
}

func sortMembers(ms []fabric.PartitionMember) {
	sort.SliceStable(ms, func(i, j int) bool {
		ri, si := memberRank(ms[i])
		rj, sj := memberRank(ms[j])
		if ri != rj {
			return ri < rj
		}
		return si < sj
	})
}
