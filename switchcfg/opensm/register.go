package opensm

import (
	"context"
	"errors"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"
)

// Kind is the subnet-manager kind name of this driver.
const Kind = "opensm"

// Manager is the OpenSM subnet-manager driver for switchcfg's registry. It
// keeps no state and is safe for concurrent use.
type Manager struct{}

var _ switchcfg.SubnetManager = Manager{}

// Register adds the OpenSM driver to r.
func Register(r *switchcfg.Registry) { r.AddSubnetManager(Manager{}) }

// Info returns the kind's facts: partitions.conf, in .partitions.conf files.
func (Manager) Info() switchcfg.SubnetManagerInfo {
	return switchcfg.SubnetManagerInfo{Kind: Kind, FileExt: ".partitions.conf"}
}

// Render is the package's RenderPreview: partitions.conf, with the members
// whose port GUIDs are not known yet as comments (they are discovered at
// plan time; what Push writes is Render's, which needs them all).
func (Manager) Render(sm fabric.SubnetManagerIntent, guids map[string][]string) (string, error) {
	return RenderPreview(sm, guids)
}

// Target pushes partitions.conf through c.Run (ssh to the manager's host).
func (Manager) Target(sm fabric.SubnetManagerIntent, guids map[string][]string, c switchcfg.SubnetManagerConn) (fabric.Target, error) {
	if c.Run == nil {
		return nil, errors.New("opensm needs a command runner (ssh) on the subnet manager's host")
	}
	return &Target{Intent: sm, GUIDs: guids, Pusher: NewPusher(NewRemote(RunnerFunc(c.Run)), sm)}, nil
}

// DefaultLogFile is a stock OpenSM's log.
const DefaultLogFile = "/var/log/opensm.log"

var _ switchcfg.PartitionsReader = Manager{}

// Capture is what `switch parse --platform opensm` prints of a
// partitions.conf: its partitions in canonical form (rates in Gb/s: rate=2
// is 2.5) and the settings the intent cannot hold.
type Capture struct {
	APIVersion string                   `json:"apiVersion"`
	Kind       string                   `json:"kind"`
	Partitions []fabric.PartitionIntent `json:"partitions"`
	Extras     []Extra                  `json:"extras"`
}

// ParseCapture reads a partitions.conf (ParseFile: LINE:COL errors where
// OpenSM would misread it).
func (Manager) ParseCapture(data []byte) (any, error) {
	f, err := ParseFile(string(data))
	if err != nil {
		return nil, err
	}
	c := Capture{APIVersion: fabric.APIVersion, Kind: Kind, Partitions: f.Partitions, Extras: f.Extras}
	if c.Extras == nil {
		c.Extras = []Extra{}
	}
	return c, nil
}

// PlanCapture compares a captured partitions.conf with sm's partitions, as
// Pusher.Plan compares the live file: a file OpenSM would misread is one
// "file" change naming its line and column.
func (Manager) PlanCapture(sm fabric.SubnetManagerIntent, guids map[string][]string, data []byte) ([]fabric.Change, error) {
	if _, err := Render(sm, guids); err != nil {
		return nil, err
	}
	want, err := Desired(sm.Partitions, guids)
	if err != nil {
		return nil, err
	}
	f, err := ParseFile(string(data))
	if err != nil {
		return Changes([]Diff{unreadable(sm.Name, err)}), nil
	}
	return Changes(Compare(want, f.Partitions)), nil
}

// RunnerFunc adapts a function to Runner.
type RunnerFunc func(ctx context.Context, argv []string, stdin []byte) ([]byte, error)

// Run implements Runner.
func (f RunnerFunc) Run(ctx context.Context, argv []string, stdin []byte) ([]byte, error) {
	return f(ctx, argv, stdin)
}
