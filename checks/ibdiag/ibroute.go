package ibdiag

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Routes is what ibroute (one switch) or dump_fts (every switch) prints:
// linear forwarding tables.
type Routes struct {
	Tables []LFT `json:"tables"`
	Accounting
}

// LFT is one switch's unicast linear forwarding table.
type LFT struct {
	// LIDLow and LIDHigh are the range dumped ("Unicast lids [0x0-0x8]").
	LIDLow, LIDHigh int
	// Switch is "Lid 3" or the DR path it was reached by.
	Switch string `json:"switch"`
	LID    *int   `json:"lid,omitempty"`
	GUID   uint64 `json:"guid"`
	Desc   string `json:"desc"`
	// Entries in the order printed.
	Entries []Route `json:"entries"`
	// Valid is the trailer's count ("8 valid lids dumped"); nil when the
	// table was cut off before it.
	Valid *int `json:"valid,omitempty"`
	Line  int  `json:"line"`
}

// Route is one "0x0004 001 : (Channel Adapter portguid 0x…: 'lab-h1')" line.
type Route struct {
	LID     int `json:"lid"`
	OutPort int `json:"outPort"`
	// DestType, DestGUID and DestDesc say who has the LID; empty for an
	// "(illegal port)" or unnamed entry, whose Note is then set. A LID of
	// an LMC range above its base ("path #2 out of 4: portguid 0x…") has
	// Path and at most DestGUID: ibroute prints no type or description.
	DestType NodeType `json:"destType,omitempty"`
	DestGUID uint64   `json:"destGUID,omitempty"`
	DestDesc string   `json:"destDesc,omitempty"`
	// Path is "1 out of 2" for a LID of an LMC range.
	Path string `json:"path,omitempty"`
	Note string `json:"note,omitempty"`
	Line int    `json:"line"`
}

// Port returns the out port for lid; ok is false when the table has no entry.
func (t *LFT) Port(lid int) (int, bool) {
	for _, e := range t.Entries {
		if e.LID == lid {
			return e.OutPort, true
		}
	}
	return 0, false
}

var (
	rtHeaderRe = regexp.MustCompile(`^Unicast lids \[(0x[0-9a-fA-F]+)-(0x[0-9a-fA-F]+)\] of switch (Lid (\d+)|DR path .*?) guid (0x[0-9a-fA-F]+) \((.*)\):$`)
	rtColsRe   = regexp.MustCompile(`^(?:Lid\s+Out\s+Destination|Port\s+Info)$`)
	rtEntryRe  = regexp.MustCompile(`^(0x[0-9a-fA-F]+) (\d{3}) : \((.*)\)$`)
	rtDestRe   = regexp.MustCompile(`^(Channel Adapter|Switch|Router) portguid (0x[0-9a-fA-F]+): '(.*)'$`)
	// rtPathRe: a LID of an LMC range above the base, as ibroute.c prints
	// it: "path #2 out of 4: portguid 0x…", "path #2 out of 4" (no port
	// GUID known), "path #2 - illegal port". No description is printed.
	rtPathRe  = regexp.MustCompile(`^path #(\d+ out of \d+)(?:: portguid (0x[0-9a-fA-F]+))?$|^path #\d+ - illegal port$`)
	rtTrailRe = regexp.MustCompile(`^(\d+) (?:valid )?lids dumped$`)
)

// ParseIBRoute reads ibroute or dump_fts output (unicast tables; a
// multicast table's lines are Unparsed).
func ParseIBRoute(text string) (*Routes, error) {
	r := &Routes{}
	var t *LFT
	for _, l := range lines(text) {
		s := strings.TrimSpace(l.s)
		switch {
		case rtHeaderRe.MatchString(s):
			m := rtHeaderRe.FindStringSubmatch(s)
			lo, _ := strconv.ParseInt(m[1], 0, 32)
			hi, _ := strconv.ParseInt(m[2], 0, 32)
			g, _ := parseGUID(m[5])
			nt := LFT{LIDLow: int(lo), LIDHigh: int(hi), Switch: m[3], GUID: g, Desc: m[6], Line: l.n}
			if m[4] != "" {
				nt.LID = intp(m[4])
			}
			r.Tables = append(r.Tables, nt)
			t = &r.Tables[len(r.Tables)-1]
			r.Read++
		case t != nil && rtColsRe.MatchString(s):
			r.Read++
		case t != nil && rtEntryRe.MatchString(s):
			e, ok := parseRoute(rtEntryRe.FindStringSubmatch(s), l.n)
			if !ok {
				r.unparsed(l.n, s)
				continue
			}
			t.Entries = append(t.Entries, e)
			r.Read++
		case t != nil && t.Valid == nil && rtTrailRe.MatchString(s):
			t.Valid = intp(rtTrailRe.FindStringSubmatch(s)[1])
			r.Read++
		case r.toolError(l):
		default:
			r.unparsed(l.n, s)
		}
	}
	if len(r.Tables) == 0 {
		return r, fmt.Errorf("parsing ibroute output: %w", ErrNoData)
	}
	return r, nil
}

func parseRoute(m []string, n int) (Route, bool) {
	lid, ok1 := parseLID(m[1])
	port, ok2 := parsePort(m[2])
	if !ok1 || !ok2 {
		return Route{}, false
	}
	e := Route{LID: lid, OutPort: port, Line: n}
	if d := rtDestRe.FindStringSubmatch(m[3]); d != nil {
		e.DestType, _ = parseNodeType(d[1])
		e.DestGUID, _ = parseGUID(d[2])
		e.DestDesc = d[3]
		return e, true
	}
	if d := rtPathRe.FindStringSubmatch(m[3]); d != nil {
		if d[1] == "" {
			e.Note = m[3] // "path #2 - illegal port"
			return e, true
		}
		e.Path = d[1]
		if d[2] != "" {
			e.DestGUID, _ = parseGUID(d[2])
		}
		return e, true
	}
	switch m[3] {
	case "illegal port", "reserved LID - illegal port", "no description yet", "unknown node and type":
		e.Note = m[3]
		return e, true
	}
	return Route{}, false
}
