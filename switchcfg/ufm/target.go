package ufm

import (
	"context"
	"fmt"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg/opensm"
)

// Target reconciles one UFM-managed subnet for the fabric engine (fabric.Target).
type Target struct {
	Intent  fabric.SubnetManagerIntent
	Backend *Backend
	// GUIDs maps fabric host names to their port GUIDs.
	GUIDs map[string][]string
}

var _ fabric.Target = (*Target)(nil)

func (t *Target) Name() string      { return t.Intent.Name }
func (t *Target) Tier() fabric.Tier { return fabric.TierSubnetManager }

// Plan compares UFM's pkeys with the desired ones.
func (t *Target) Plan(ctx context.Context) ([]fabric.Change, error) {
	diffs, err := t.Backend.Plan(ctx, t.Intent, t.GUIDs)
	if err != nil {
		return nil, err
	}
	return opensm.Changes(diffs), nil
}

// Apply changes the pkeys, reads them back and restores the touched ones on failure.
func (t *Target) Apply(ctx context.Context, _ []fabric.Change) ([]fabric.Change, error) {
	res, err := t.Backend.Apply(ctx, t.Intent, t.GUIDs)
	if err != nil {
		if res.RolledBack {
			return nil, fmt.Errorf("%w (%w)", err, fabric.ErrRolledBack)
		}
		return nil, err
	}
	return t.Plan(ctx)
}
