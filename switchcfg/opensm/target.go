package opensm

import (
	"context"
	"fmt"

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

// Plan compares the live partitions.conf with the desired table.
func (t *Target) Plan(ctx context.Context) ([]fabric.Change, error) {
	diffs, err := t.Pusher.Plan(ctx, t.Intent, t.GUIDs)
	if err != nil {
		return nil, err
	}
	return Changes(diffs), nil
}

// Apply pushes partitions.conf (backup, atomic write, SIGHUP, verify; the
// Pusher restores the previous file when verification fails).
func (t *Target) Apply(ctx context.Context, _ []fabric.Change) ([]fabric.Change, error) {
	res, err := t.Pusher.Push(ctx, t.Intent, t.GUIDs)
	if err != nil {
		if res.RolledBack {
			return nil, fmt.Errorf("%w (%w)", err, fabric.ErrRolledBack)
		}
		return nil, err
	}
	return t.Plan(ctx)
}

// Changes converts partition diffs into engine changes (one per field).
func Changes(diffs []Diff) []fabric.Change {
	out := make([]fabric.Change, 0, len(diffs))
	for _, d := range diffs {
		out = append(out, fabric.Change{Component: fmt.Sprintf("pkey 0x%04x", d.PKey), Setting: d.Field, Old: d.Got, New: d.Want})
	}
	return out
}
