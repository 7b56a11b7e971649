package fabric

import (
	"errors"
	"fmt"
	"net/netip"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

type validator struct {
	f         *Fabric
	pos       *positions
	refs      map[string]profileRef
	errs      *Errors
	platforms Platforms

	// current profile context
	doc, prefix string

	index *hostIndex // built on first use

	labelKeys, ifnames, rdmaNames matchMemo
	labelValues                   labelValues

	// profileValid says which profiles validated without error (only
	// those are rendered); rendered which platform, model and profile triples were.
	profileValid map[string]bool
	rendered     map[[3]string]bool

	// lossy holds the paths that did not decode (partial.go); lost says a
	// document or profile did not load. warns collects the warnings.
	lossy *lossyPaths
	lost  bool
	warns *Warnings
}

// quiet reports whether a finding at path of doc would only repeat a
// decode error (partial.go).
func (v *validator) quiet(doc, path string) bool { return v.lossy.quiet(doc, path) }

// partial reports whether anything at, under or above path of doc did not
// decode: a finding that reads all of path would be a guess (partial.go).
func (v *validator) partial(doc, path string) bool { return v.lossy.related(doc, path) }

// hosts indexes the fabric's hosts for selectors.
func (v *validator) hosts() *hostIndex {
	if v.index == nil {
		v.index = newHostIndex(v.f.Spec.Hosts)
	}
	return v.index
}

var (
	nameRE = regexp.MustCompile(`^[a-z0-9]([a-z0-9._-]{0,61}[a-z0-9])?$`)
	// Linux's dev_valid_name: below IFNAMSIZ (16), no '/', ':' or space, not "." or "..".
	ifnameRE   = regexp.MustCompile(`^[A-Za-z0-9_.@-]{1,15}$`)
	hostnameRE = regexp.MustCompile(`^([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$`)
	envRE      = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	guidRE     = regexp.MustCompile(`^0x[0-9a-fA-F]{16}$`)
	labelKeyRE = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9._/-]{0,61}[A-Za-z0-9])?$`)
	partNameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)
	numericRE  = regexp.MustCompile(`^[0-9.]+$`)
	userRE     = regexp.MustCompile(`^[a-z_][a-z0-9_.-]*\$?$`)
)

// matchMemo remembers regexp verdicts for strings that repeat across
// thousands of hosts (label keys, interface names).
type matchMemo map[string]bool

func (m matchMemo) match(re *regexp.Regexp, s string) bool {
	ok, seen := m[s]
	if !seen {
		ok = re.MatchString(s)
		m[s] = ok
	}
	return ok
}

// at returns the position of path in document doc, falling back to the
// nearest parent that exists.
func (v *validator) at(doc, path string) Pos {
	pos, _ := v.pos.find(doc, path)
	return pos
}

// perr reports a problem at path inside the current profile.
func (v *validator) perr(path, format string, args ...any) {
	if v.errs.full() {
		v.errs.add(&Error{Pos: v.f.Source})
		return
	}
	if v.quiet(v.doc, v.prefix+path) {
		return
	}
	v.errs.add(newError(v.at(v.doc, v.prefix+path), v.prefix+path, format, args...))
}

// ferr reports a problem at path inside the fabric document.
func (v *validator) ferr(path, format string, args ...any) {
	if v.errs.full() {
		v.errs.add(&Error{Pos: v.f.Source})
		return
	}
	if v.quiet("fabric", path) {
		return
	}
	pos := v.at("fabric", path)
	if pos.File == "" {
		pos = v.f.Source
	}
	v.errs.add(newError(pos, path, format, args...))
}

func (v *validator) profile(p *Profile) {
	if p.Kind != KindProfile && v.prefix != "" {
		v.perr("kind", "inline profiles have kind: Profile, not %q", p.Kind)
	}
	if p.APIVersion != APIVersion && v.prefix != "" {
		v.perr("apiVersion", "%q is not supported; use %s", p.APIVersion, APIVersion)
	}
	if !nameRE.MatchString(p.Metadata.Name) {
		v.perr("metadata.name", "%q is not a valid name (lowercase letters, digits, '-', '.', '_'; at most 63)", p.Metadata.Name)
	}
	if p.Spec.Ethernet == nil && p.Spec.InfiniBand == nil {
		v.perr("spec", "a profile needs ethernet, infiniband or both")
	}
	if e := p.Spec.Ethernet; e != nil {
		v.ethernet(e)
	}
	if ib := p.Spec.InfiniBand; ib != nil {
		v.infiniband(ib)
	}
}

func (v *validator) ethernet(e *Ethernet) {
	const base = "spec.ethernet."
	switch {
	case e.MTU == 0:
		v.perr(base+"mtu", "required: the host netdev MTU (e.g. 9000)")
	case e.MTU < 1280 || e.MTU > 9216:
		v.perr(base+"mtu", "%d is outside 1280..9216", e.MTU)
	}
	// An explicit switchMtu is checked here; "max" and an unset one are
	// resolved per switch model, and the host MTU checked against that
	// where the switches are (switchModel).
	if e.SwitchMTU > 0 && (e.SwitchMTU < 1500 || e.SwitchMTU > DefaultSwitchMTU) {
		v.perr(base+"switchMtu", "%d is outside 1500..%d", e.SwitchMTU, DefaultSwitchMTU)
	} else if e.SwitchMTU > 0 && e.MTU > int(e.SwitchMTU) {
		v.perr(base+"mtu", "host MTU %d is larger than the switch MTU %d; frames would be dropped", e.MTU, e.SwitchMTU)
	}
	if len(e.Classes) == 0 {
		v.perr(base+"classes", "required: at least one traffic class")
		return
	}
	byName := map[string]int{}
	alike := lookalikes{}
	byPrio := map[int]int{}
	byTC := map[int]int{}
	dscpOwner := map[int]int{}
	restAt := -1
	lossless := 0
	bwSum, bwClasses := 0, 0
	for i := range e.Classes {
		c := &e.Classes[i]
		cp := fmt.Sprintf("%sclasses[%d].", base, i)
		if c.Name == "" {
			v.perr(cp+"name", "required")
		} else if j, dup := byName[c.Name]; dup {
			v.perr(cp+"name", "class %q is defined twice (also classes[%d])", c.Name, j)
		} else {
			byName[c.Name] = i
			if why := deceptive(c.Name); why != "" {
				v.perr(cp+"name", "%+q %s", c.Name, why)
			} else if prev, ok := alike.check(c.Name, fmt.Sprintf("classes[%d]", i)); ok {
				v.perr(cp+"name", "class %+q looks like class %+q (%s) but is another name", c.Name, prev.name, prev.where)
			}
		}
		if c.Priority == nil {
			v.perr(cp+"priority", "required: the switch priority 0..7")
		} else if *c.Priority < 0 || *c.Priority > 7 {
			v.perr(cp+"priority", "%d is outside 0..7", *c.Priority)
		} else if j, dup := byPrio[*c.Priority]; dup {
			v.perr(cp+"priority", "priority %d is already used by class %q", *c.Priority, e.Classes[j].Name)
		} else {
			byPrio[*c.Priority] = i
		}
		if c.TrafficClass != nil && (*c.TrafficClass < 0 || *c.TrafficClass > 7) {
			v.perr(cp+"trafficClass", "%d is outside 0..7", *c.TrafficClass)
		} else if tc := classTC(c); tc >= 0 {
			if j, dup := byTC[tc]; dup {
				v.perr(cp+"trafficClass", "traffic class %d is already used by class %q; give each class its own", tc, e.Classes[j].Name)
			} else {
				byTC[tc] = i
			}
		}
		if c.Queue != nil && (*c.Queue < 0 || *c.Queue > 7) {
			v.perr(cp+"queue", "%d is outside 0..7", *c.Queue)
		}
		if c.DSCP.Rest {
			if restAt >= 0 {
				v.perr(cp+"dscp", "only one class may take the rest of the DSCP values (class %q already does)", e.Classes[restAt].Name)
			}
			restAt = i
		}
		for k, d := range c.DSCP.Values {
			dp := fmt.Sprintf("%sdscp[%d]", cp, k)
			if d < 0 || d > 63 {
				v.perr(dp, "DSCP %d is outside 0..63", d)
				continue
			}
			if j, dup := dscpOwner[d]; dup {
				if j == i {
					v.perr(dp, "DSCP %d is listed twice", d)
				} else {
					v.perr(dp, "DSCP %d is already in class %q", d, e.Classes[j].Name)
				}
				continue
			}
			dscpOwner[d] = i
		}
		if !c.DSCP.Rest && len(c.DSCP.Values) == 0 && e.Trust != "pcp" {
			v.perr(cp+"dscp", "required with trust dscp: a list of DSCP values or \"rest\"")
		}
		switch {
		case c.ETS.Strict && c.ETS.BandwidthPercent != nil:
			v.perr(cp+"ets", "strict and bandwidthPercent exclude each other")
		case !c.ETS.Strict && c.ETS.BandwidthPercent == nil:
			v.perr(cp+"ets", "required: {bandwidthPercent: N} or {strict: true}")
		case c.ETS.BandwidthPercent != nil:
			if bw := *c.ETS.BandwidthPercent; bw < 1 || bw > 100 {
				v.perr(cp+"ets.bandwidthPercent", "%d is outside 1..100", bw)
			}
			bwSum += *c.ETS.BandwidthPercent
			bwClasses++
		}
		if c.Lossless {
			lossless++
			if c.ECN == nil {
				v.perr(cp+"ecn", "a lossless class needs ECN thresholds, or an explicit `ecn: off`")
			}
			if c.ETS.Strict {
				v.perr(cp+"ets.strict", "a lossless class must not be strict priority (it could starve every other class); give it a bandwidth share")
			}
		}
		if c.ECN != nil && !c.ECN.Off {
			v.ecn(c.ECN, cp+"ecn.")
		}
	}
	// The sum is a guess where a class's ets did not decode.
	etsWhole := true
	for i := range e.Classes {
		etsWhole = etsWhole && !v.partial(v.doc, fmt.Sprintf("%s%sclasses[%d].ets", v.prefix, base, i))
	}
	if bwClasses > 0 && bwSum != 100 && etsWhole {
		v.perr(base+"classes", "ETS bandwidth of the non-strict classes sums to %d%%, not 100%%", bwSum)
	}
	if e.GlobalPause != nil && *e.GlobalPause && lossless > 0 {
		v.perr(base+"globalPause", "802.3x global pause must be off where PFC is on (a lossless class exists)")
	}
	if e.PFC != nil {
		// A class whose lossless did not decode may be lossless.
		countKnown := true
		for i := range e.Classes {
			countKnown = countKnown && !v.partial(v.doc, fmt.Sprintf("%s%sclasses[%d].lossless", v.prefix, base, i))
		}
		if !countKnown {
			lossless = max(lossless, 1)
		}
		v.pfc(e.PFC, base+"pfc.", lossless)
	}
	if e.RoCE != nil {
		v.roce(e, byName)
	}
}

func (v *validator) ecn(e *ECN, p string) {
	if e.MinThreshold <= 0 {
		v.perr(p+"minThreshold", "required: a size such as 150KB")
	}
	if e.MaxThreshold <= 0 {
		v.perr(p+"maxThreshold", "required: a size such as 1500KB")
	}
	if e.MinThreshold > 0 && e.MaxThreshold > 0 && e.MinThreshold > e.MaxThreshold {
		v.perr(p+"minThreshold", "%s is above maxThreshold %s", e.MinThreshold, e.MaxThreshold)
	}
	if e.MaxThreshold > 256<<20 {
		v.perr(p+"maxThreshold", "%s is larger than any switch buffer", e.MaxThreshold)
	}
	if e.MaxMarkProbability != nil && (*e.MaxMarkProbability < 1 || *e.MaxMarkProbability > 100) {
		v.perr(p+"maxMarkProbability", "%d is outside 1..100 (percent)", *e.MaxMarkProbability)
	}
}

func (v *validator) pfc(p *PFC, base string, lossless int) {
	if p.CableLength < 0 || p.CableLength > 10000 {
		v.perr(base+"cableLength", "%dm is outside 0..10000m", p.CableLength)
	}
	if w := p.Watchdog; w != nil && w.Enabled {
		if w.PollInterval <= 0 {
			v.perr(base+"watchdog.pollInterval", "required when the watchdog is enabled (e.g. 100ms)")
		}
		if w.DetectionTime <= 0 {
			v.perr(base+"watchdog.detectionTime", "required when the watchdog is enabled (e.g. 200ms)")
		} else if w.DetectionTime < w.PollInterval {
			v.perr(base+"watchdog.detectionTime", "%s is shorter than pollInterval %s", w.DetectionTime, w.PollInterval)
		}
		if w.RestorationTime <= 0 {
			v.perr(base+"watchdog.restorationTime", "required when the watchdog is enabled (e.g. 400ms)")
		}
	}
	if lossless == 0 && p.Watchdog != nil && p.Watchdog.Enabled {
		v.perr(base+"watchdog", "a PFC watchdog without any lossless class has nothing to watch")
	}
}

func (v *validator) roce(e *Ethernet, byName map[string]int) {
	const base = "spec.ethernet.roce."
	r := e.RoCE
	classNames := make([]string, 0, len(byName))
	for n := range byName {
		classNames = append(classNames, n)
	}
	sort.Strings(classNames)
	// A class whose name did not decode may be the one named here.
	classesWhole := !v.partial(v.doc, v.prefix+"spec.ethernet.classes")
	var rc *Class
	if r.Class == "" {
		v.perr(base+"class", "required: the class RoCE data uses")
	} else if i, ok := byName[r.Class]; !ok {
		if classesWhole {
			v.perr(base+"class", "no class named %q%s", r.Class, suggest(r.Class, classNames))
		}
	} else if v.partial(v.doc, fmt.Sprintf("%sspec.ethernet.classes[%d]", v.prefix, i)) {
		// The class did not decode whole: what it says would be a guess.
	} else {
		rc = &e.Classes[i]
		if !rc.Lossless && !r.AllowLossy {
			v.perr(base+"class", "class %q is not lossless; set lossless: true on it, or roce.allowLossy: true for an ECN-only fabric", r.Class)
		}
		if !rc.Lossless && r.AllowLossy && (rc.ECN == nil || rc.ECN.Off) {
			v.perr(base+"allowLossy", "RoCE over lossy class %q needs ECN on that class", r.Class)
		}
	}
	if r.CNPClass != "" {
		if _, ok := byName[r.CNPClass]; !ok {
			if classesWhole {
				v.perr(base+"cnpClass", "no class named %q%s", r.CNPClass, suggest(r.CNPClass, classNames))
			}
		} else if r.CNPClass == r.Class {
			v.perr(base+"cnpClass", "CNPs must use a different class than RoCE data (%q)", r.Class)
		} else if c := e.Classes[byName[r.CNPClass]]; len(c.DSCP.Values) == 0 && e.Trust != "pcp" &&
			!v.partial(v.doc, fmt.Sprintf("%sspec.ethernet.classes[%d].dscp", v.prefix, byName[r.CNPClass])) {
			v.perr(base+"cnpClass", "class %q lists no DSCP value for CNPs", r.CNPClass)
		}
	}
	if r.ToS != nil {
		tos := *r.ToS
		switch {
		case tos < 0 || tos > 255:
			v.perr(base+"tos", "%d is outside 0..255", tos)
		case rc != nil && e.Trust != "pcp" && !containsInt(rc.DSCP.Values, tos>>2) && !rc.DSCP.Rest:
			v.perr(base+"tos", "ToS %d carries DSCP %d, which is not in class %q (DSCP %v); use %d", tos, tos>>2, r.Class, rc.DSCP.Values, defaultToS(rc))
		case rc != nil && e.Trust != "pcp" && rc.DSCP.Rest:
			// The rest class takes only the DSCPs no other class lists.
			for i := range e.Classes {
				if c := &e.Classes[i]; c != rc && containsInt(c.DSCP.Values, tos>>2) {
					v.perr(base+"tos", "ToS %d carries DSCP %d, which class %q lists: RoCE would ride that class, not %q (dscp: rest takes only the DSCPs no other class lists)", tos, tos>>2, c.Name, r.Class)
					break
				}
			}
		}
	} else if rc != nil && len(rc.DSCP.Values) == 0 && e.Trust != "pcp" {
		v.perr(base+"tos", "required: class %q has no explicit DSCP to derive the ToS from", r.Class)
	}
	if r.DCQCN != nil {
		for k, val := range r.DCQCN.NP {
			if _, ok := dcqcnNP[k]; !ok {
				v.perr(base+"dcqcn.np."+k, "unknown parameter%s; known: %s", suggest(k, keys(dcqcnNP)), strings.Join(keys(dcqcnNP), ", "))
			} else if val < 0 {
				v.perr(base+"dcqcn.np."+k, "must not be negative")
			}
		}
		for k, val := range r.DCQCN.RP {
			if _, ok := dcqcnRP[k]; !ok {
				v.perr(base+"dcqcn.rp."+k, "unknown parameter%s; known: %s", suggest(k, keys(dcqcnRP)), strings.Join(keys(dcqcnRP), ", "))
			} else if val < 0 {
				v.perr(base+"dcqcn.rp."+k, "must not be negative")
			}
		}
	}
}

// DCQCN parameter names as the vendor sysfs ecn/roce_np and roce_rp trees name them.
var (
	dcqcnNP = map[string]bool{"min_time_between_cnps": true}
	dcqcnRP = map[string]bool{
		"clamp_tgt_rate": true, "clamp_tgt_rate_after_time_inc": true, "dce_tcp_g": true,
		"dce_tcp_rtt": true, "initial_alpha_value": true, "rate_reduce_monitor_period": true,
		"rate_to_set_on_first_cnp": true, "rpg_ai_rate": true, "rpg_byte_reset": true,
		"rpg_gd": true, "rpg_hai_rate": true, "rpg_max_rate": true, "rpg_min_dec_fac": true,
		"rpg_min_rate": true, "rpg_threshold": true, "rpg_time_reset": true,
	}
)

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func containsInt(s []int, x int) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

func (v *validator) infiniband(ib *InfiniBand) {
	const base = "spec.infiniband."
	if len(ib.Partitions) == 0 {
		v.perr(base+"partitions", "required: at least one partition")
	}
	names := map[string]int{}
	pkeys := map[PKey]int{}
	for i := range ib.Partitions {
		p := &ib.Partitions[i]
		pp := fmt.Sprintf("%spartitions[%d].", base, i)
		if p.Name == "" {
			v.perr(pp+"name", "required")
		} else if !partNameRE.MatchString(p.Name) {
			v.perr(pp+"name", "%q: partition names are letters, digits, '_', '.', '-' (OpenSM's grammar)", p.Name)
		} else if j, dup := names[p.Name]; dup {
			v.perr(pp+"name", "partition %q is defined twice (also partitions[%d])", p.Name, j)
		} else {
			names[p.Name] = i
		}
		switch {
		case p.PKey == 0:
			v.perr(pp+"pkey", "required: a partition key 0x0001..0x7ffe")
		case p.PKey&0x8000 != 0 && p.PKey&0x7fff == 0x7fff:
			v.perr(pp+"pkey", "0x%04x has the full-member bit set, and its low 15 bits 0x7fff are the default partition; pick a key in 0x0001..0x7ffe and use membership: full", uint16(p.PKey))
		case p.PKey&0x8000 != 0 && p.PKey&0x7fff == 0:
			v.perr(pp+"pkey", "0x%04x has the full-member bit set, and its low 15 bits 0x0000 are no partition key; pick a key in 0x0001..0x7ffe and use membership: full", uint16(p.PKey))
		case p.PKey&0x8000 != 0:
			v.perr(pp+"pkey", "0x%04x has the full-member bit set; write 0x%04x and use membership: full", uint16(p.PKey), uint16(p.PKey&0x7fff))
		case p.PKey == 0x7fff:
			v.perr(pp+"pkey", "0x7fff is the default partition, which always exists; pick another key")
		default:
			if j, dup := pkeys[p.PKey]; dup {
				v.perr(pp+"pkey", "pkey 0x%04x is already used by partition %q", uint16(p.PKey), ib.Partitions[j].Name)
			} else {
				pkeys[p.PKey] = i
			}
		}
		if p.MTU != 0 && MTUCode(p.MTU) == 0 {
			v.perr(pp+"mtu", "%d is not an InfiniBand MTU (256, 512, 1024, 2048, 4096)", p.MTU)
		}
		if p.Rate != 0 && RateCode(p.Rate) == 0 {
			v.perr(pp+"rate", "%g Gb/s is not an InfiniBand rate (e.g. 100, 200, 400)", p.Rate)
		}
		if p.ServiceLevel != nil && (*p.ServiceLevel < 0 || *p.ServiceLevel > 15) {
			v.perr(pp+"serviceLevel", "%d is outside 0..15", *p.ServiceLevel)
		}
		// OpenSM applies a partition's mtu, rate and sl to its IPoIB
		// broadcast group (doc/partition-config.txt: they are mgroup flags
		// of the ipoib flag); without ipoib they would do nothing.
		if !p.IPoIB {
			const why = "acts only on the partition's IPoIB broadcast group (OpenSM partition-config.txt); set ipoib: true or remove it"
			if p.MTU != 0 {
				v.perr(pp+"mtu", why)
			}
			if p.Rate != 0 {
				v.perr(pp+"rate", why)
			}
			if p.ServiceLevel != nil && *p.ServiceLevel > 0 {
				v.perr(pp+"serviceLevel", why)
			}
		}
		if len(p.Members) == 0 {
			v.perr(pp+"members", "required: at least one member")
		}
		guids := map[string]int{}
		for j, m := range p.Members {
			mp := fmt.Sprintf("%smembers[%d].", pp, j)
			set := 0
			if m.Hosts != nil {
				set++
				if len(m.Hosts.Labels) == 0 && len(m.Hosts.Names) == 0 {
					v.perr(mp+"hosts", "an empty selector; give labels or names")
				}
			}
			if m.GUID != "" {
				set++
				if !guidRE.MatchString(m.GUID) {
					v.perr(mp+"guid", "%q is not a port GUID (0x followed by 16 hex digits)", m.GUID)
				} else if k, dup := guids[strings.ToLower(m.GUID)]; dup {
					v.perr(mp+"guid", "GUID %s is already a member (members[%d])", m.GUID, k)
				} else {
					guids[strings.ToLower(m.GUID)] = j
				}
			}
			if m.Special != "" {
				set++
			}
			if set != 1 {
				v.perr(strings.TrimSuffix(mp, "."), "give exactly one of hosts, guid or special")
			}
		}
	}
}

func looksNumeric(s string) bool {
	return numericRE.MatchString(s)
}

func (v *validator) ssh(path string, s *SSH) {
	if s.Port != 0 && (s.Port < 1 || s.Port > 65535) {
		v.ferr(path+".port", "%d is not a TCP port", s.Port)
	}
	if s.PasswordEnv != "" && !envRE.MatchString(s.PasswordEnv) {
		v.ferr(path+".passwordEnv", "%q is not an environment variable name (the password itself never goes in YAML)", s.PasswordEnv)
	}
	if s.User != "" && !userRE.MatchString(s.User) {
		v.ferr(path+".user", "%q is not a user name", s.User)
	}
}

func (v *validator) labels(path string, l map[string]string) {
	for k, val := range l {
		if !v.labelKeys.match(labelKeyRE, k) {
			v.ferr(path+"."+k, "%q is not a label key", k)
			continue
		}
		if v.labelValues.seen(k, val) {
			continue // checked on an earlier target
		}
		if why := deceptive(val); why != "" {
			v.ferr(path+"."+k, "label value %+q %s", val, why)
		} else if prev, ok := v.labelValues.alike(k).check(val, path+"."+k); ok {
			v.ferr(path+"."+k, "label value %+q looks like %+q (%s) but is another value; a selector matches only one of them", val, prev.name, prev.where)
		}
	}
}

// oneOf returns ": one of A, B" listing what names gives of the injected
// platform facts, "" without them.
func (v *validator) oneOf(names func(Platforms) []string) string {
	if v.platforms == nil {
		return ""
	}
	return ": one of " + strings.Join(names(v.platforms), ", ")
}

// labelValues remembers, per label key, the values already checked and
// what they look like.
type labelValues struct {
	checked map[[2]string]bool
	byKey   map[string]lookalikes
}

func (l *labelValues) seen(k, val string) bool {
	if l.checked == nil {
		l.checked, l.byKey = map[[2]string]bool{}, map[string]lookalikes{}
	}
	kv := [2]string{k, val}
	if l.checked[kv] {
		return true
	}
	l.checked[kv] = true
	return false
}

func (l *labelValues) alike(k string) lookalikes {
	if l.byKey[k] == nil {
		l.byKey[k] = lookalikes{}
	}
	return l.byKey[k]
}

// CanonicalAddress is the form of an address that identifies a target: an
// IP address as netip prints it (IPv4-mapped IPv6 as IPv4, IPv6 compressed),
// a host name in lower case without a trailing dot.
func CanonicalAddress(addr string) string {
	if ip, err := netip.ParseAddr(addr); err == nil {
		return ip.Unmap().String()
	}
	return strings.TrimSuffix(strings.ToLower(addr), ".")
}

func (v *validator) switchPlatform(sp string, s Switch) {
	if s.Platform == "" {
		v.ferr(sp+".platform", "required%s", v.oneOf(Platforms.Names))
		return
	}
	if v.platforms != nil {
		names := v.platforms.Names()
		if !slices.Contains(names, s.Platform) {
			v.ferr(sp+".platform", "unknown platform %q%s; valid: %s", s.Platform, suggest(s.Platform, names), strings.Join(names, ", "))
			return
		}
	}
	if len(s.Ports) == 0 {
		v.ferr(sp+".ports", "required: the switch ports to configure (ranges like swp1-32 expand)")
		return
	}
	seen := map[string]bool{}
	portsOK := true
	for j, pr := range s.Ports {
		pp := fmt.Sprintf("%s.ports[%d]", sp, j)
		ports, err := ExpandPorts(pr)
		if err != nil {
			v.ferr(pp, "%v", err)
			portsOK = false
			continue
		}
		for _, p := range ports {
			if seen[p] {
				v.ferr(pp, "port %s is listed twice", p)
				portsOK = false
				break
			}
			seen[p] = true
			if v.platforms != nil {
				if err := v.platforms.CheckPort(s.Platform, p); err != nil {
					v.ferr(pp, "%v", err)
					portsOK = false
					break
				}
			}
		}
	}
	if portsOK && v.switchModel(sp, s) {
		v.renders(sp, s)
	}
}

// switchModel checks the switch's model and the MTU its profile gives it
// against the model's limits, naming the switch; it reports whether the
// switch is worth rendering (a wrong MTU would only be reported again).
func (v *validator) switchModel(sp string, s Switch) bool {
	sm, ok := v.platforms.(SwitchModels)
	if !ok {
		return true
	}
	l, err := sm.SwitchModel(s.Platform, s.Model)
	if err != nil {
		at := sp + ".model"
		if s.Model == "" {
			at = sp + ".platform"
		}
		v.ferr(at, "%v", err)
		return false
	}
	p := v.f.Profiles[s.Profile]
	if p == nil || p.Spec.Ethernet == nil || !v.profileValid[s.Profile] {
		return true
	}
	e := p.Spec.Ethernet
	model := s.Platform
	if l.Model != "" {
		model += " model " + l.Model
	}
	ref := v.refs[s.Profile]
	switch mtu := ResolveSwitchMTU(e.SwitchMTU, &l); {
	case e.SwitchMTU > 0 && (mtu < l.MinMTU || mtu > l.MaxMTU):
		v.ferr(sp+".profile", "switch %q (%s) takes an MTU of %d..%d, but profile %q sets switchMtu: %d (at %s); write switchMtu: max for each model's largest",
			s.Name, model, l.MinMTU, l.MaxMTU, s.Profile, e.SwitchMTU, v.at(ref.doc, ref.prefix+"spec.ethernet.switchMtu"))
		return false
	case e.SwitchMTU <= 0 && e.MTU > mtu:
		v.ferr(sp+".profile", "switch %q (%s) takes at most MTU %d, below the host MTU %d of profile %q (at %s); frames would be dropped",
			s.Name, model, mtu, e.MTU, s.Profile, v.at(ref.doc, ref.prefix+"spec.ethernet.mtu"))
		return false
	}
	return true
}

// renders reports what the switch's platform cannot render of its intent,
// at the switch's profile: one error per problem, once per platform and
// profile (the ports were checked above; the rest of the intent is the
// profile's).
func (v *validator) renders(sp string, s Switch) {
	sc, ok := v.platforms.(SwitchChecker)
	p := v.f.Profiles[s.Profile]
	if !ok || p == nil || p.Spec.Ethernet == nil || !v.profileValid[s.Profile] {
		return
	}
	key := [3]string{s.Platform, s.Model, s.Profile}
	if v.rendered == nil {
		v.rendered = map[[3]string]bool{}
	}
	if v.rendered[key] {
		return
	}
	v.rendered[key] = true
	err := sc.CheckSwitch(v.f.resolveSwitch(s))
	if err == nil {
		return
	}
	for _, e := range leafErrors(err) {
		var fe *FieldError
		field := ""
		if errors.As(e, &fe) {
			field = "spec.ethernet." + fe.Field
		}
		for _, line := range strings.Split(e.Error(), "\n") {
			line = strings.TrimPrefix(line, s.Platform+": ")
			line = strings.TrimPrefix(line, "rendering "+s.Platform+": ")
			if line == "" {
				continue
			}
			// The renderer's message quotes values itself: not clipped again.
			if field != "" {
				ref := v.refs[p.Metadata.Name]
				if pos := v.at(ref.doc, ref.prefix+field); pos.File != "" {
					v.errs.add(newError(pos, ref.prefix+field, "%s cannot render profile %q for switch %q (%s): %s",
						s.Platform, s.Profile, s.Name, v.at("fabric", sp+".profile"), unclipped(line)))
					continue
				}
			}
			v.ferr(sp+".profile", "%s cannot render profile %q: %s%s", s.Platform, s.Profile, unclipped(line), unclipped(v.classAt(p, line)))
		}
	}
}

// leafErrors flattens errors.Join trees into their leaves, keeping each
// leaf's own wrapping (a FieldError stays findable with errors.As).
func leafErrors(err error) []error {
	var fe *FieldError
	if errors.As(err, &fe) && fe == err {
		return []error{err}
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, leafErrors(e)...)
		}
		return out
	}
	// A wrapper ("arista-eos: %w") around a join: its leaves, each with
	// the wrapper's prefix.
	if inner := errors.Unwrap(err); inner != nil {
		if prefix, ok := strings.CutSuffix(err.Error(), inner.Error()); ok {
			if leaves := leafErrors(inner); len(leaves) > 1 {
				for i, l := range leaves {
					leaves[i] = fmt.Errorf("%s%w", prefix, l)
				}
				return leaves
			}
		}
	}
	return []error{err}
}

// classAt locates the profile class a renderer's message names, as
// " (classes[i].name at FILE:LINE:COL)", or "".
func (v *validator) classAt(p *Profile, msg string) string {
	for i, c := range p.Spec.Ethernet.Classes {
		if c.Name != "" && strings.Contains(msg, strconv.Quote(c.Name)) {
			ref := v.refs[p.Metadata.Name]
			path := fmt.Sprintf("spec.ethernet.classes[%d].name", i)
			return fmt.Sprintf(" (%s at %s)", path, v.at(ref.doc, ref.prefix+path))
		}
	}
	return ""
}

func (v *validator) selectors(mp string, p *Profile) {
	for i, part := range p.Spec.InfiniBand.Partitions {
		for j, m := range part.Members {
			if m.Hosts == nil {
				continue
			}
			if len(v.hosts().selectHosts(m.Hosts)) == 0 {
				v.ferr(mp+".profile", "profile %q partition %q members[%d]: the selector %s matches no host of this fabric", p.Metadata.Name, part.Name, j, describeSelector(m.Hosts))
			}
			for _, n := range m.Hosts.Names {
				if !v.hosts().has(n) {
					v.ferr(mp+".profile", "profile %q partition %q members[%d]: no host named %q", p.Metadata.Name, part.Name, j, n)
				}
			}
			_ = i
		}
	}
}

func describeSelector(s *Selector) string {
	var parts []string
	for _, k := range sortedKeys(s.Labels) {
		parts = append(parts, k+"="+s.Labels[k])
	}
	if len(s.Names) > 0 {
		parts = append(parts, "names="+strings.Join(s.Names, ","))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
