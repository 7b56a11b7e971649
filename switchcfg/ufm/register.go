package ufm

import (
	"fmt"
	"net/http"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/output"
	"github.com/fabricctl/fabricctl/switchcfg"
)

// Kind is the subnet-manager kind name of this driver.
const Kind = "ufm"

// Manager is the UFM subnet-manager driver for switchcfg's registry. It
// keeps no state and is safe for concurrent use.
type Manager struct{}

var _ switchcfg.SubnetManager = Manager{}

// Register adds the UFM driver to r.
func Register(r *switchcfg.Registry) { r.AddSubnetManager(Manager{}) }

// Info returns the kind's facts: the partition intent as JSON, no
// partitions file.
func (Manager) Info() switchcfg.SubnetManagerInfo {
	return switchcfg.SubnetManagerInfo{Kind: Kind, FileExt: ".json",
		NoPartitionsFile: "UFM manages partitions through its REST API; partitionsFile is for opensm"}
}

// Render returns the partition intent as JSON: UFM's REST payloads are
// built from it at apply time.
func (Manager) Render(sm fabric.SubnetManagerIntent, _ map[string][]string) (string, error) {
	b, err := output.MarshalJSON(sm)
	if err != nil {
		return "", fmt.Errorf("encoding JSON: %w", err)
	}
	return string(b), nil
}

// Target reaches UFM's REST API at https://ADDRESS as c.User.
func (Manager) Target(sm fabric.SubnetManagerIntent, guids map[string][]string, c switchcfg.SubnetManagerConn) (fabric.Target, error) {
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	cl, err := New("https://"+c.Address, c.User, c.PasswordEnv, hc)
	if err != nil {
		return nil, fmt.Errorf("configuring UFM %s: %w", sm.Name, err)
	}
	return &Target{Intent: sm, GUIDs: guids, Backend: &Backend{Client: cl}}, nil
}
