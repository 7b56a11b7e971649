package ibfabric

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/ibdiag"
	"github.com/fabricctl/fabricctl/checks/topology"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg/opensm"
)

// The check IDs.
const (
	IDSubnetManager = "ib/subnet-manager"
	IDLink          = "ib/link"
	IDCabling       = "ib/cabling"
	IDCounters      = "ib/counters"
	IDPKeys         = "ib/pkeys"
)

// Reading is what the diagnostics printed at the vantage node, parsed. A
// nil field with its error set is a tool that failed; nil with no error a
// tool not run.
type Reading struct {
	// Vantage names where the diagnostics ran (for messages).
	Vantage string
	// Ports is ibnetdiscover -p.
	Ports    *ibdiag.Topology
	PortsErr error
	// Links is iblinkinfo.
	Links    *ibdiag.LinkInfo
	LinksErr error
	// SMInfo are sminfo's readings, in order (two: a master that changes
	// between them is flapping).
	SMInfo    []*ibdiag.SMInfo
	SMInfoErr error
	// SMInfoAgainErr is why the second sminfo reading failed (the master
	// then could not be seen to hold steady).
	SMInfoAgainErr error
	// SMRecords are the SA's SMInfoRecords (saquery SMIR): every SM of the
	// subnet, in any state.
	SMRecords    []SMRecord
	SMRecordsErr error
	// Errors is ibqueryerrors --skip-sl (its default thresholds).
	Errors    *ibdiag.QueryErrors
	ErrorsErr error
	// ErrorsBefore is the same reading taken before other suites ran (nil:
	// the counters are judged on one reading). A port over its threshold
	// then whose counters did not move since is a warning (old errors), one
	// whose counters grew a failure.
	ErrorsBefore *ibdiag.QueryErrors
	// PKeys is every CA port's P_Key table (opensm.FabricReader.Observe).
	PKeys    *opensm.Observed
	PKeysErr error
}

// Outcome is the judgement: the results, the declared topology for the
// report's drawing, and the cabling findings.
type Outcome struct {
	Results  []checks.Result    `json:"results"`
	Topology *topology.Topology `json:"topology,omitempty"`
	Cabling  []topology.Finding `json:"cabling,omitempty"`
}

// observed is the fabric as read, by declared names.
type observed struct {
	d *Declared
	// port states by endpoint (iblinkinfo)
	ports map[fabric.Endpoint]ibdiag.LinkPort
	// nodes seen (ibnetdiscover), by name
	seen map[string]bool
	// lids of ports, and the CA/switch node at each GUID
	byGUID map[uint64]string
	byLID  map[int]string
	// discovered topology
	topo *topology.Topology
	// directed-route timeouts reported by the tools
	timeouts []string
}

var drTimeoutRE = regexp.MustCompile(`DR path [^)]*?(\d[\d,]*) Attr [^)]*\) bad status 110`)

func observe(d *Declared, r *Reading) *observed {
	o := &observed{d: d, ports: map[fabric.Endpoint]ibdiag.LinkPort{}, seen: map[string]bool{}, byGUID: map[uint64]string{}, byLID: map[int]string{}}
	descName := map[string]string{}
	var nodes []topology.Node
	for _, n := range d.Topology.Nodes {
		nodes = append(nodes, n)
	}
	known := map[string]bool{}
	for _, n := range nodes {
		known[n.Name] = true
	}
	var links []topology.Link
	name := func(e ibdiag.PortEnd) string {
		n, _ := d.Identify(e.Type, e.GUID, e.Desc)
		if !known[n] {
			known[n] = true
			role := topology.RoleHost
			if e.Type == ibdiag.Switch {
				role = ""
			}
			nodes = append(nodes, topology.Node{Name: n, Role: role})
		}
		o.seen[n] = true
		o.byGUID[e.GUID] = n
		if e.LID > 0 {
			o.byLID[e.LID] = n
		}
		descName[e.Desc] = n
		return n
	}
	if r.Ports != nil {
		for _, pl := range r.Ports.PortLines {
			a := name(pl.Local)
			if pl.Peer == nil {
				continue
			}
			b := name(*pl.Peer)
			links = append(links, topology.Link{A: fabric.Endpoint{Device: a, Port: strconv.Itoa(pl.Local.Port)}, B: fabric.Endpoint{Device: b, Port: strconv.Itoa(pl.Peer.Port)}})
		}
		o.timeouts = append(o.timeouts, timeouts(r.Ports.ToolErrors)...)
	}
	o.topo = topology.New(nodes, links)
	if r.Links != nil {
		for _, n := range r.Links.Nodes {
			dev, ok := descName[n.Name]
			if !ok {
				typ := ibdiag.CA
				if n.Type == ibdiag.Switch {
					typ = ibdiag.Switch
				}
				dev, _ = d.Identify(typ, 0, n.Name)
			}
			for _, p := range n.Ports {
				o.ports[fabric.Endpoint{Device: dev, Port: strconv.Itoa(p.Port)}] = p
			}
		}
		o.timeouts = append(o.timeouts, timeouts(r.Links.ToolErrors)...)
	}
	slices.Sort(o.timeouts)
	o.timeouts = slices.Compact(o.timeouts)
	return o
}

func timeouts(lines []ibdiag.Unparsed) []string {
	var out []string
	for _, l := range lines {
		if drTimeoutRE.MatchString(l.Text) || strings.Contains(l.Text, "timed out") {
			out = append(out, strings.TrimSpace(l.Text))
		}
	}
	return out
}

// Judge judges a reading against the declared fabric.
func Judge(d *Declared, r *Reading) Outcome {
	out := Outcome{Topology: d.Topology}
	o := observe(d, r)
	out.Results = append(out.Results, judgeSM(d, r, o))
	var cabling []topology.Finding
	if r.Ports != nil {
		var observedNodes []string
		for _, n := range d.Topology.Nodes {
			observedNodes = append(observedNodes, n.Name)
		}
		cabling = topology.CompareFrom(topology.IBNetDiscover, d.Topology, o.topo, observedNodes)
	}
	links, silent := judgeLinks(d, r, o, cabling)
	// a cable whose link is down or silent is named by its link result,
	// not again as missing from the cabling
	cabling = slices.DeleteFunc(cabling, func(f topology.Finding) bool {
		return f.Kind == topology.Missing && silent[f.At.String()]
	})
	out.Cabling = cabling
	out.Results = append(out.Results, links...)
	out.Results = append(out.Results, judgeCabling(r, cabling)...)
	out.Results = append(out.Results, judgeCounters(d, r, o)...)
	out.Results = append(out.Results, judgePKeys(d, r)...)
	out.Results = append(out.Results, judgeParsed(r)...)
	checks.Sort(out.Results)
	return out
}

func smState(code *int, fallback string) string {
	if code == nil {
		return fallback
	}
	switch *code {
	case 0:
		return "not active"
	case 1:
		return "discovering"
	case 2:
		return "standby"
	case 3:
		return "master"
	}
	return fmt.Sprintf("state %d", *code)
}

func judgeSM(d *Declared, r *Reading, o *observed) checks.Result {
	target := "subnet"
	if len(d.SubnetManagers) > 0 {
		target = d.SubnetManagers[0]
	}
	res := checks.Result{ID: IDSubnetManager, Target: target}
	if len(r.SMInfo) == 0 {
		err := r.SMInfoErr
		if err == nil {
			err = fmt.Errorf("sminfo not run")
		}
		return checks.ErrorResult(IDSubnetManager, target, "", fmt.Errorf("reading the master subnet manager: %w", err))
	}
	nodeOf := func(guid uint64, lid int) string {
		if n, ok := o.byGUID[guid]; ok {
			return n
		}
		if n, ok := o.byLID[lid]; ok {
			return n
		}
		return fmt.Sprintf("GUID 0x%016x", guid)
	}
	declared := func(n string) bool { return slices.Contains(d.SubnetManagers, n) }
	var problems []string
	first := r.SMInfo[0]
	master := nodeOf(first.GUID, first.LID)
	for i, s := range r.SMInfo[1:] {
		if s.GUID != first.GUID {
			problems = append(problems, fmt.Sprintf("the master moved from %s to %s between sminfo readings 1 and %d (flapping)", master, nodeOf(s.GUID, s.LID), i+2))
		}
	}
	for i, s := range r.SMInfo {
		if s.StateCode != nil && *s.StateCode != 3 {
			problems = append(problems, fmt.Sprintf("sminfo reading %d: the SM at %s is %s, not master", i+1, nodeOf(s.GUID, s.LID), smState(s.StateCode, s.State)))
		}
	}
	if !declared(master) {
		problems = append(problems, fmt.Sprintf("the master SM runs on %s, not on a declared subnet manager (%s)", master, strings.Join(d.SubnetManagers, ", ")))
	}
	evidence := []string{fmt.Sprintf("sminfo: master %s (lid %d, GUID 0x%016x)", master, first.LID, first.GUID)}
	summary := fmt.Sprintf("one master SM, on %s, steady over %d sminfo readings", master, len(r.SMInfo))
	switch {
	case r.SMRecords != nil:
		masters := 0
		for _, rec := range r.SMRecords {
			n := nodeOf(rec.GUID, rec.LID)
			st := smState(&rec.State, "")
			evidence = append(evidence, fmt.Sprintf("SA SMInfoRecord: %s lid %d GUID 0x%016x priority %d %s", n, rec.LID, rec.GUID, rec.Priority, st))
			if rec.State == 3 {
				masters++
			}
			if !declared(n) {
				problems = append(problems, fmt.Sprintf("a second SM runs on %s (%s, lid %d, priority %d): no subnet manager is declared there", n, st, rec.LID, rec.Priority))
			}
		}
		if masters > 1 {
			problems = append(problems, fmt.Sprintf("%d SMs are master", masters))
		}
		summary += fmt.Sprintf("; the SA lists %d SM(s), all on declared subnet managers", len(r.SMRecords))
	case r.SMRecordsErr != nil:
		summary += "; the SA's SMInfoRecords could not be read (" + r.SMRecordsErr.Error() + "), so a standby SM elsewhere would go unseen"
	}
	res.Evidence = evidence
	if len(problems) > 0 {
		res.Status, res.Summary = checks.StatusFail, strings.Join(problems, "; ")
		return res
	}
	// What could not be confirmed is a warning, never a pass.
	var unsure []string
	if len(r.SMInfo) < 2 && r.SMInfoAgainErr != nil {
		unsure = append(unsure, "the second sminfo reading failed ("+r.SMInfoAgainErr.Error()+"), so the master was not seen to hold steady")
	}
	if r.SMRecords != nil {
		if !slices.ContainsFunc(r.SMRecords, func(rec SMRecord) bool { return rec.GUID == first.GUID && rec.State == 3 }) {
			unsure = append(unsure, fmt.Sprintf("the SA's SMInfoRecords (%d) do not list the master sminfo found as master", len(r.SMRecords)))
		}
	}
	if len(unsure) > 0 {
		res.Status, res.Summary = checks.StatusWarn, summary+"; but "+strings.Join(unsure, "; ")
		return res
	}
	res.Status, res.Summary = checks.StatusPass, summary
	return res
}

// judgeLinks judges every declared cable; silent holds the cables (by
// their A end) whose own finding makes a "missing" cabling finding
// redundant.
func judgeLinks(d *Declared, r *Reading, o *observed, cabling []topology.Finding) ([]checks.Result, map[string]bool) {
	silent := map[string]bool{}
	if r.Links == nil {
		err := r.LinksErr
		if err == nil {
			err = fmt.Errorf("iblinkinfo not run")
		}
		return []checks.Result{checks.ErrorResult(IDLink, "fabric", "", fmt.Errorf("reading the links: %w", err))}, silent
	}
	moved := map[fabric.Endpoint]string{}
	for _, f := range cabling {
		if f.Kind == topology.Missing {
			continue
		}
		for _, e := range []*fabric.Endpoint{&f.At, f.Declared, f.Discovered} {
			if e != nil {
				moved[*e] = string(f.Kind)
			}
		}
	}
	var out []checks.Result
	for _, c := range d.Cables {
		target := c.String()
		res := checks.Result{ID: IDLink, Target: target}
		if k, ok := moved[c.A]; ok {
			res.Status, res.Summary = checks.StatusSkip, fmt.Sprintf("not judged: the cabling finds %s %s (%s)", c.A, k, IDCabling)
			out = append(out, res)
			continue
		}
		if k, ok := moved[c.B]; ok {
			res.Status, res.Summary = checks.StatusSkip, fmt.Sprintf("not judged: the cabling finds %s %s (%s)", c.B, k, IDCabling)
			out = append(out, res)
			continue
		}
		wantW, _ := ibdiag.ParseWidth(c.Width)
		wantS := ibdiag.Speed(c.Speed)
		var seen []fabric.Endpoint
		var down, slow, mute []string
		var gotW ibdiag.Width
		var gotS ibdiag.Speed
		for _, e := range []fabric.Endpoint{c.A, c.B} {
			p, ok := o.ports[e]
			if !ok {
				continue
			}
			seen = append(seen, e)
			if !p.Up() {
				st := string(p.State) + "/" + string(p.PhysState)
				if p.StateRaw != "" {
					st = p.StateRaw
				}
				down = append(down, fmt.Sprintf("%s is %s", e, st))
				continue
			}
			gotW, gotS = p.Width, p.Speed
			if c.Width != "" && p.Width != wantW || c.Speed != "" && p.Speed != wantS {
				slow = append(slow, fmt.Sprintf("%s trained %s %s", e, p.Width, orUnknown(string(p.Speed))))
			}
			other, _ := (topology.Link{A: c.A, B: c.B}).Other(e)
			if (p.Peer == "" || strings.Contains(p.Peer, "not available")) && !o.seen[other.Device] {
				mute = append(mute, fmt.Sprintf("%s is Active/LinkUp but %s behind it answers no management packet", e, other.Device))
			}
		}
		want := strings.TrimSpace(c.Width + " " + c.Speed)
		switch {
		case len(seen) == 0:
			res.Status = checks.StatusSkip
			res.Summary = "neither end was discovered; see " + IDCabling
		case len(down) > 0:
			res.Status, res.Class = checks.StatusFail, checks.PortDown
			res.Summary = fmt.Sprintf("link down: %s", strings.Join(down, ", "))
			silent[c.A.String()] = true
		case len(mute) > 0:
			res.Status, res.Class = checks.StatusFail, checks.Timeout
			res.Summary = fmt.Sprintf("management packets lost: %s", strings.Join(mute, ", "))
			res.Evidence = o.timeouts
			silent[c.A.String()] = true
		case len(slow) > 0:
			res.Status, res.Class = checks.StatusFail, checks.LowBandwidth
			res.Summary = fmt.Sprintf("degraded: %s, declared %s", strings.Join(slow, ", "), want)
		default:
			res.Status = checks.StatusPass
			res.Summary = fmt.Sprintf("Active/LinkUp at %s %s", gotW, orUnknown(string(gotS)))
			if want != "" {
				res.Summary += " as declared"
			}
		}
		out = append(out, res)
	}
	return out, silent
}

func orUnknown(s string) string { return cmp.Or(s, "unknown speed") }

func judgeCabling(r *Reading, fs []topology.Finding) []checks.Result {
	if r.Ports == nil {
		err := r.PortsErr
		if err == nil {
			err = fmt.Errorf("ibnetdiscover not run")
		}
		return []checks.Result{checks.ErrorResult(IDCabling, "fabric", "", fmt.Errorf("discovering the subnet: %w", err))}
	}
	if len(fs) == 0 {
		return []checks.Result{{ID: IDCabling, Target: "fabric", Status: checks.StatusPass,
			Summary: "ibnetdiscover finds every declared cable where it is declared, and no other between declared nodes"}}
	}
	var out []checks.Result
	for _, f := range fs {
		out = append(out, checks.Result{ID: IDCabling, Target: f.At.String(), Status: checks.StatusFail,
			Summary: string(f.Kind) + ": " + f.Message})
	}
	return out
}

func judgeCounters(d *Declared, r *Reading, o *observed) []checks.Result {
	if r.Errors == nil {
		err := r.ErrorsErr
		if err == nil {
			err = fmt.Errorf("ibqueryerrors not run")
		}
		return []checks.Result{checks.ErrorResult(IDCounters, "fabric", "", fmt.Errorf("reading the error counters: %w", err))}
	}
	how := "one reading of the counters since they were last cleared, against ibqueryerrors' default thresholds"
	before := map[[2]uint64]map[string]ibdiag.Counter{}
	if r.ErrorsBefore != nil {
		how = "read before and after the other suites, against ibqueryerrors' default thresholds"
		for _, p := range r.ErrorsBefore.Ports {
			if !p.All() && !p.Data {
				before[[2]uint64{p.GUID, uint64(*p.Port)}] = p.Counters
			}
		}
	}
	var out []checks.Result
	for _, p := range r.Errors.Ports {
		if p.All() || p.Data {
			continue
		}
		typ := ibdiag.CA
		if p.NodeGUID != 0 && p.NodeGUID == p.GUID {
			typ = ibdiag.Switch
		}
		dev, ok := o.byGUID[p.GUID]
		if !ok {
			dev, _ = d.Identify(typ, p.GUID, p.Node)
		}
		e := fabric.Endpoint{Device: dev, Port: strconv.Itoa(*p.Port)}
		target := e.String()
		for _, c := range d.Cables {
			if c.A == e || c.B == e {
				target = c.String()
			}
		}
		var names []string
		for n := range p.Counters {
			names = append(names, n)
		}
		slices.Sort(names)
		var parts []string
		res := checks.Result{ID: IDCounters, Target: target, Status: checks.StatusFail, Class: checks.CounterEvidence}
		for _, n := range names {
			c := p.Counters[n]
			s := fmt.Sprintf("%s %d", n, c.Value)
			if c.Saturated {
				s += " (saturated)"
			}
			parts = append(parts, s)
			res.Measurements = append(res.Measurements, checks.Measurement{Name: n, Value: float64(c.Value), Unit: checks.UnitCount})
		}
		res.Summary = fmt.Sprintf("%s: %s (%s)", e, strings.Join(parts, ", "), how)
		if r.ErrorsBefore != nil {
			was := before[[2]uint64{p.GUID, uint64(*p.Port)}]
			var grew []string
			for _, n := range names {
				if d := p.Counters[n].Value - min(was[n].Value, p.Counters[n].Value); d > 0 || p.Counters[n].Saturated && !was[n].Saturated {
					grew = append(grew, fmt.Sprintf("%s +%d", n, d))
				}
			}
			if len(grew) == 0 {
				res.Status, res.Class = checks.StatusWarn, ""
				res.Summary += "; none moved during the run: errors from before it"
			} else {
				res.Summary += "; during the run: " + strings.Join(grew, ", ")
			}
		}
		out = append(out, res)
	}
	// A tool error that is a management-packet timeout the links' judgement
	// already names (the node behind a port that answers nothing) is that
	// finding, not another one; any other is a node whose counters went unread.
	unread := slices.DeleteFunc(slices.Clone(r.Errors.ToolErrors), func(l ibdiag.Unparsed) bool {
		return slices.Contains(o.timeouts, strings.TrimSpace(l.Text))
	})
	if len(out) == 0 && (len(unread) > 0 || len(r.Errors.Unparsed) > 0 ||
		r.Errors.Summary.PMAFailures != nil && *r.Errors.Summary.PMAFailures > 0 && len(unread) == len(r.Errors.ToolErrors)) {
		// Nodes ibqueryerrors could not query are not clean: they are unread.
		res := checks.Result{ID: IDCounters, Target: "fabric", Status: checks.StatusWarn,
			Summary: fmt.Sprintf("no error counter over its threshold among the ports read, but ibqueryerrors could not read all of them (%s)", how)}
		if f := r.Errors.Summary.PMAFailures; f != nil && *f > 0 {
			res.Summary = fmt.Sprintf("no error counter over its threshold among the ports read, but %d PMA queries failed (%s)", *f, how)
		}
		for _, l := range append(unread, r.Errors.Unparsed...) {
			res.Evidence = append(res.Evidence, fmt.Sprintf("ibqueryerrors line %d: %s", l.Line, l.Text))
		}
		return []checks.Result{res}
	}
	if len(out) == 0 {
		s := r.Errors.Summary
		n, ports := "every", "every"
		if s.NodesChecked != nil {
			n = strconv.Itoa(*s.NodesChecked)
		}
		if s.PortsChecked != nil {
			ports = strconv.Itoa(*s.PortsChecked)
		}
		out = append(out, checks.Result{ID: IDCounters, Target: "fabric", Status: checks.StatusPass,
			Summary: fmt.Sprintf("%s nodes, %s ports: no error counter over its threshold (%s)", n, ports, how)})
	}
	return out
}

func judgePKeys(d *Declared, r *Reading) []checks.Result {
	if len(d.Partitions) == 0 {
		return []checks.Result{{ID: IDPKeys, Target: "fabric", Status: checks.StatusSkip, Summary: "the fabric declares no partitions"}}
	}
	if r.PKeys == nil {
		err := r.PKeysErr
		if err == nil {
			err = fmt.Errorf("not read")
		}
		return []checks.Result{checks.ErrorResult(IDPKeys, "fabric", "", fmt.Errorf("reading the P_Key tables: %w", err))}
	}
	guids := map[string][]string{}
	for h, g := range d.GUIDs {
		guids[h] = g
	}
	var missing []string
	for _, h := range d.MemberHosts {
		if len(guids[h]) == 0 {
			missing = append(missing, h)
		}
	}
	for h, g := range opensm.DiscoverGUIDs(r.PKeys.Ports, missing) {
		guids[h] = g
	}
	// a member host not on the subnet has no table to read: its absence
	// is the link's or the cabling's finding
	var absent []string
	parts := make([]fabric.PartitionIntent, 0, len(d.Partitions))
	for _, p := range d.Partitions {
		p.Members = slices.DeleteFunc(slices.Clone(p.Members), func(m fabric.PartitionMember) bool {
			if m.Host != "" && len(guids[m.Host]) == 0 {
				if !slices.Contains(absent, m.Host) {
					absent = append(absent, m.Host)
				}
				return true
			}
			return false
		})
		parts = append(parts, p)
	}
	want, err := opensm.Desired(parts, guids)
	if err != nil {
		return []checks.Result{checks.ErrorResult(IDPKeys, "fabric", "", fmt.Errorf("resolving the partitions: %w", err))}
	}
	// only the tables read are judged: a port whose read failed is the
	// error result below, not a port with every key absent
	obs := *r.PKeys
	obs.Ports = slices.DeleteFunc(slices.Clone(obs.Ports), func(p opensm.Port) bool {
		_, read := obs.Tables[p.GUID]
		return p.Type == "CA" && !read
	})
	diffs := opensm.ComparePorts(want, &obs)
	var out []checks.Result
	byNode := map[string][]string{}
	var nodes []string
	for _, df := range diffs {
		n := cmp.Or(df.Node, fmt.Sprintf("0x%016x", df.GUID))
		if _, ok := byNode[n]; !ok {
			nodes = append(nodes, n)
		}
		byNode[n] = append(byNode[n], fmt.Sprintf("pkey 0x%04x: want %s, got %s", df.PKey, df.Want, df.Got))
	}
	for _, n := range nodes {
		out = append(out, checks.Result{ID: IDPKeys, Target: n, Status: checks.StatusFail, Summary: strings.Join(byNode[n], "; ")})
	}
	if len(out) == 0 {
		sum := fmt.Sprintf("%d CA ports' P_Key tables match the partitions", len(r.PKeys.Tables))
		if len(absent) > 0 {
			slices.Sort(absent)
			sum += fmt.Sprintf(" (not on the subnet, not checked: %s)", strings.Join(absent, ", "))
		}
		out = append(out, checks.Result{ID: IDPKeys, Target: "fabric", Status: checks.StatusPass, Summary: sum})
	}
	if r.PKeysErr != nil {
		out = append(out, checks.ErrorResult(IDPKeys, "fabric", "", fmt.Errorf("reading some P_Key tables: %w", r.PKeysErr)))
	}
	return out
}

// IDParse is the result that lists diagnostic output the suite did not
// understand: lines ignored are reported, never silently dropped.
const IDParse = "ib/parse"

// judgeParsed warns of every line of ibnetdiscover and iblinkinfo the
// parsers returned as not understood (ibqueryerrors' are judged with the
// counters): a cable judged without them may be judged on one end only.
func judgeParsed(r *Reading) []checks.Result {
	var ev []string
	if r.Ports != nil {
		for _, l := range r.Ports.Unparsed {
			ev = append(ev, fmt.Sprintf("ibnetdiscover -p line %d: %s", l.Line, l.Text))
		}
	}
	if r.Links != nil {
		for _, l := range r.Links.Unparsed {
			ev = append(ev, fmt.Sprintf("iblinkinfo line %d: %s", l.Line, l.Text))
		}
	}
	if len(ev) == 0 {
		return nil
	}
	return []checks.Result{{ID: IDParse, Target: "fabric", Status: checks.StatusWarn,
		Summary: fmt.Sprintf("%d line(s) of the diagnostics not understood: the ports they name were judged without them", len(ev)), Evidence: ev}}
}
