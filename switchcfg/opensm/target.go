package opensm

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/fabricctl/fabricctl/fabric"
)

// Target reconciles one OpenSM subnet manager for the fabric engine
// (fabric.Target) through a Pusher.
type Target struct {
	Intent fabric.SubnetManagerIntent
	Pusher *Pusher
	// GUIDs maps fabric host names to their port GUIDs.
	GUIDs map[string][]string
}

var _ fabric.Target = (*Target)(nil)

func (t *Target) Name() string      { return t.Intent.Name }
func (t *Target) Tier() fabric.Tier { return fabric.TierSubnetManager }

// Plan compares the live partitions.conf with the desired table and, when
// the Pusher reads the fabric, every CA port's P_Key table with the intent
// (a port changed behind OpenSM's back is drift even when the file is
// right). GUID members that no port has are reported as unsupported
// changes: warnings, which apply does not try to fix.
func (t *Target) Plan(ctx context.Context) ([]fabric.Change, error) {
	guids, err := t.guids(ctx)
	if err != nil {
		return nil, err
	}
	diffs, err := t.Pusher.Plan(ctx, t.Intent, guids)
	if err != nil {
		return nil, err
	}
	out := Changes(diffs)
	ports, unknown, err := t.Pusher.PlanFabric(ctx, t.Intent, guids)
	if err != nil {
		return nil, err
	}
	out = append(out, PortChanges(ports)...)
	for _, u := range unknown {
		out = append(out, fabric.Change{Component: u, Setting: "port", Old: "absent", New: "present", Unsupported: true,
			Note: "no port of the subnet has this GUID: OpenSM leaves it out and says so only at verbose log level"})
	}
	return out, nil
}

// PortChanges converts P_Key table differences into engine changes.
func PortChanges(diffs []PortDiff) []fabric.Change {
	out := make([]fabric.Change, 0, len(diffs))
	for _, d := range diffs {
		out = append(out, fabric.Change{Component: fmt.Sprintf("port %s (%s)", FormatGUID(d.GUID), d.Node),
			Setting: fmt.Sprintf("pkey 0x%04x", d.PKey), Old: d.Got, New: d.Want})
	}
	return out
}

// Apply pushes partitions.conf (backup, atomic write, SIGHUP, verify; the
// Pusher restores the previous file when verification fails).
func (t *Target) Apply(ctx context.Context, _ []fabric.Change) ([]fabric.Change, error) {
	guids, err := t.guids(ctx)
	if err != nil {
		return nil, err
	}
	res, err := t.Pusher.Push(ctx, t.Intent, guids)
	if err != nil {
		if res.RolledBack {
			return nil, fmt.Errorf("%w (%w)", err, fabric.ErrRolledBack)
		}
		return nil, err
	}
	rest, err := t.Plan(ctx)
	if err != nil {
		return nil, err
	}
	for _, c := range rest {
		if !c.Unsupported && strings.HasPrefix(c.Component, "port ") {
			// The file is right and OpenSM swept, yet a port disagrees:
			// OpenSM does not rewrite a table its own view says is right
			// (a second SM wrote it, say). Restarting OpenSM, or bouncing
			// the port's link, makes it read the table again.
			return rest, fmt.Errorf("%s: %s is %s, want %s: OpenSM does not rewrite P_Keys changed behind its back; restart OpenSM to heal them", t.Name(), c.Component, c.Old, c.New)
		}
	}
	return rest, nil
}

// Changes converts partition diffs into engine changes (one per field).
func Changes(diffs []Diff) []fabric.Change {
	out := make([]fabric.Change, 0, len(diffs))
	for _, d := range diffs {
		c := fabric.Change{Component: fmt.Sprintf("pkey 0x%04x", d.PKey), Setting: d.Field, Old: d.Got, New: d.Want}
		if d.Field == "file" {
			c.Component = "partitions.conf"
		}
		out = append(out, c)
	}
	return out
}

// guids returns t.GUIDs completed, when the Pusher reads the fabric, with
// the port GUIDs discovered for the member hosts the fabric file gives none
// (DiscoverGUIDs over ibnetdiscover on the SM's host).
func (t *Target) guids(ctx context.Context) (map[string][]string, error) {
	var missing []string
	for _, p := range t.Intent.Partitions {
		for _, m := range p.Members {
			if m.Host != "" && len(t.GUIDs[m.Host]) == 0 && !slices.Contains(missing, m.Host) {
				missing = append(missing, m.Host)
			}
		}
	}
	if len(missing) == 0 || t.Pusher.Fabric == nil {
		return t.GUIDs, nil
	}
	ports, _, err := t.Pusher.Fabric.Ports(ctx)
	if err != nil {
		return nil, fmt.Errorf("discovering the port GUIDs of %s: %w", strings.Join(missing, ", "), err)
	}
	out := maps.Clone(t.GUIDs)
	if out == nil {
		out = map[string][]string{}
	}
	maps.Copy(out, DiscoverGUIDs(ports, missing))
	return out, nil
}
