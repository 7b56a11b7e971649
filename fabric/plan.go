package fabric

import (
	"fmt"
	"sort"
)

// Tier orders targets during apply: subnet managers first, then switches, then
// hosts, so a host never uses a lossless class its switch does not have yet.
type Tier int

const (
	TierSubnetManager Tier = iota
	TierSwitch
	TierHost
)

func (t Tier) String() string {
	switch t {
	case TierSubnetManager:
		return "subnet-manager"
	case TierSwitch:
		return "switch"
	case TierHost:
		return "host"
	}
	return fmt.Sprintf("tier(%d)", int(t))
}

// MarshalText makes tiers readable in JSON and YAML.
func (t Tier) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// Change is one setting that differs between desired and observed state.
type Change struct {
	// Component is where the setting lives: an interface ("eth0"), a switch
	// section ("classes[roce]"), a partition ("pkey 0x0002"), or "" for the target itself.
	Component string `json:"component,omitempty"`
	// Setting is the field, e.g. "pfc.enable", "mtu", "ecn.minBytes".
	Setting string `json:"setting"`
	Old     string `json:"old"`
	New     string `json:"new"`
	// Disruptive marks changes that interrupt traffic (a PFC change flaps an
	// mlx5 link; an MTU change resets the netdev).
	Disruptive bool `json:"disruptive,omitempty"`
	// Note explains disruption or an unsupported setting.
	Note string `json:"note,omitempty"`
	// Unsupported is set when the target cannot apply the setting; it is
	// reported, never applied, and not counted as drift to fix.
	Unsupported bool `json:"unsupported,omitempty"`
	// Flaps marks a disruptive change that takes the link of Component
	// down and up (pfc_en and the MTU of an mlx5 netdev): what apply's
	// prompt counts as links that will flap.
	Flaps bool `json:"flaps,omitempty"`
}

// SortChanges orders changes deterministically (component, then setting).
func SortChanges(cs []Change) {
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].Component != cs[j].Component {
			return cs[i].Component < cs[j].Component
		}
		return cs[i].Setting < cs[j].Setting
	})
}

// Actionable returns the changes apply would make (not the unsupported ones).
func Actionable(cs []Change) []Change {
	var out []Change
	for _, c := range cs {
		if !c.Unsupported {
			out = append(out, c)
		}
	}
	return out
}
