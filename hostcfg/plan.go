package hostcfg

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"

	"github.com/fabricctl/fabricctl/fabric"
)

// Plan is what Apply would change on one host, in apply order, and what it
// cannot change. It is plain data: it travels as JSON (the agent's plan
// reply, the undo plan of an apply) and Apply executes a decoded one.
type Plan struct {
	APIVersion string `json:"apiVersion"`
	Host       string `json:"host"`
	// Changes in apply order: interfaces by name, settings by rank.
	Changes []Change `json:"changes"`
	// Issues are desired settings that apply will not write.
	Issues []Issue `json:"issues,omitempty"`
}

// Change is one setting to write. Old and New are canonical values; Apply
// refuses a change whose live value is neither (ErrStalePlan).
type Change struct {
	Target    string `json:"target"`
	Interface string `json:"interface"`
	Setting   string `json:"setting"`
	Backend   string `json:"backend"`
	Old       string `json:"old"`
	New       string `json:"new"`
	// Disruptive changes interrupt traffic; Reason says how.
	Disruptive bool   `json:"disruptive,omitempty"`
	Reason     string `json:"reason,omitempty"`
	// Flaps marks a disruptive change that takes the link down and up.
	Flaps bool `json:"flaps,omitempty"`
}

// Issue kinds.
const (
	// IssueUnsupported: the device or driver cannot do the setting.
	IssueUnsupported = "unsupported"
	// IssueError: the setting (or its netdev) could not be read.
	IssueError = "error"
	// IssueExternal: the live value differs, and another system owns it
	// (pkeys: the subnet manager).
	IssueExternal = "external"
)

// Issue is a desired setting that Apply will not write.
type Issue struct {
	Target    string `json:"target"`
	Interface string `json:"interface"`
	Setting   string `json:"setting,omitempty"`
	Backend   string `json:"backend,omitempty"`
	Kind      string `json:"kind"`
	Desired   string `json:"desired,omitempty"`
	Observed  string `json:"observed,omitempty"`
	Reason    string `json:"reason"`
}

// Diff compares desired with observed and returns the plan. It is pure: the
// controller may run it on an Observed it received from an agent.
func Diff(desired fabric.HostIntent, observed Observed) Plan {
	target := cmpOr(desired.Host, observed.Host)
	p := Plan{APIVersion: fabric.APIVersion, Host: target}
	intents := map[string]fabric.InterfaceIntent{}
	for _, in := range desired.Interfaces {
		if _, dup := intents[in.Name]; !dup { // the first wins, as in Observe
			intents[in.Name] = in
		}
	}
	pkeys, ipoib := partitionSettings(desired.Partitions)
	issue := func(iface string, d desiredValue, kind, backend, observedV, reason string) {
		p.Issues = append(p.Issues, Issue{Target: target, Interface: iface, Setting: d.setting,
			Backend: backend, Kind: kind, Desired: d.value, Observed: observedV, Reason: reason})
	}
	compare := func(iface string, want []desiredValue, settings []SettingState) {
		for _, d := range want {
			j := slices.IndexFunc(settings, func(s SettingState) bool { return s.Setting == d.setting })
			if j < 0 {
				issue(iface, d, IssueError, "", "", "not observed")
				continue
			}
			s := settings[j]
			switch {
			case s.Error != "":
				issue(iface, d, IssueError, s.Backend, "", s.Error)
			case s.Unsupported != "":
				issue(iface, d, IssueUnsupported, s.Backend, "", s.Unsupported)
			case strings.HasPrefix(d.setting, prefixPKey):
				if !membershipMatches(d.value, s.Value) {
					issue(iface, d, IssueExternal, s.Backend, s.Value,
						"the subnet manager programs pkey tables; apply the fabric's partitions on it")
				}
			case s.Value != d.value:
				c := Change{Target: target, Interface: iface, Setting: d.setting, Backend: s.Backend, Old: s.Value, New: d.value}
				if why, flaps := disruptionOf(d.setting, s.Value, d.value, losslessPrios(want, settings)); why != "" {
					c.Disruptive, c.Reason, c.Flaps = true, why, flaps
				}
				p.Changes = append(p.Changes, c)
			}
		}
	}

	seen := map[string]bool{}
	for _, st := range observed.Interfaces {
		in, ok := intents[st.Name]
		if !ok && st.Intent == fabric.AllRDMANetdevs {
			in, ok = intents[fabric.AllRDMANetdevs]
		}
		var want []desiredValue
		if ok {
			want = desiredSettings(in)
			seen[in.Name] = true
		}
		if hasPrefixSetting(st.Settings, prefixIPoIB) {
			want = append(want, ipoib...)
		}
		if st.Error != "" {
			if len(want) > 0 {
				p.Issues = append(p.Issues, Issue{Target: target, Interface: st.Name, Kind: IssueError, Reason: st.Error})
			}
			continue
		}
		compare(st.Name, want, st.Settings)
	}
	for _, in := range desired.Interfaces {
		if !seen[in.Name] && len(desiredSettings(in)) > 0 {
			p.Issues = append(p.Issues, Issue{Target: target, Interface: in.Name, Kind: IssueError, Reason: "not observed"})
		}
	}
	if len(pkeys) > 0 {
		// Partitions select hosts by label, so a RoCE-only host of a fabric that
		// also has InfiniBand partitions is often a member: its port GUIDs go to
		// the subnet manager, and on the host itself there is no pkey table to
		// verify. Only the InfiniBand ports observed are compared; a host without
		// one has nothing to plan here (not an unsupported setting).
		for _, ps := range observed.Ports {
			if ps.Error != "" {
				p.Issues = append(p.Issues, Issue{Target: target, Interface: ps.Name, Kind: IssueError, Reason: ps.Error})
				continue
			}
			compare(ps.Name, pkeys, ps.Settings)
		}
	}
	slices.SortStableFunc(p.Changes, func(a, b Change) int {
		if c := strings.Compare(a.Interface, b.Interface); c != 0 {
			return c
		}
		return compareSettings(a.Setting, b.Setting)
	})
	return p
}

// losslessPrios are the priorities PFC pauses on an interface before or
// after an apply: the observed pfc.enable and the desired one.
func losslessPrios(want []desiredValue, settings []SettingState) uint8 {
	var bits uint8
	for _, d := range want {
		if d.setting == SettingPFCEnable {
			b, _ := parsePrios(d.value) // a value that does not parse pauses nothing
			bits |= b
		}
	}
	for _, s := range settings {
		if s.Setting == SettingPFCEnable && s.Error == "" && s.Unsupported == "" {
			b, _ := parsePrios(s.Value)
			bits |= b
		}
	}
	return bits
}

func hasPrefixSetting(ss []SettingState, prefix string) bool {
	return slices.ContainsFunc(ss, func(s SettingState) bool { return strings.HasPrefix(s.Setting, prefix) })
}

// Empty reports whether the plan changes nothing.
func (p Plan) Empty() bool { return len(p.Changes) == 0 }

// Drift reports whether the host differs from the desired state: changes to
// make, or values owned by another system that differ.
func (p Plan) Drift() bool {
	return len(p.Changes) > 0 || slices.ContainsFunc(p.Issues, func(i Issue) bool { return i.Kind == IssueExternal })
}

// Errors returns the issues of kind IssueError.
func (p Plan) Errors() []Issue {
	var out []Issue
	for _, i := range p.Issues {
		if i.Kind == IssueError {
			out = append(out, i)
		}
	}
	return out
}

// Disruptive reports whether any change interrupts traffic.
func (p Plan) Disruptive() bool {
	return slices.ContainsFunc(p.Changes, func(c Change) bool { return c.Disruptive })
}

// Fingerprint identifies the plan's changes: the controller shows a plan,
// the user confirms it, and the agent refuses to apply when a fresh plan's
// fingerprint differs (the host changed meanwhile).
func (p Plan) Fingerprint() string {
	b, _ := json.Marshal(p.Changes) // strings and bools: cannot fail
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}
