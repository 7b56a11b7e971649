package all

import (
	"github.com/fabricctl/fabricctl/switchcfg"
	"github.com/fabricctl/fabricctl/switchcfg/cumulus"
	"github.com/fabricctl/fabricctl/switchcfg/eos"
	"github.com/fabricctl/fabricctl/switchcfg/junos"
	"github.com/fabricctl/fabricctl/switchcfg/nxos"
	"github.com/fabricctl/fabricctl/switchcfg/opensm"
	"github.com/fabricctl/fabricctl/switchcfg/sonic"
	"github.com/fabricctl/fabricctl/switchcfg/ufm"
)

// Registry returns a registry holding every switch driver and every
// subnet-manager driver.
func Registry() *switchcfg.Registry {
	r := switchcfg.NewRegistry()
	cumulus.Register(r)
	eos.Register(r)
	junos.Register(r)
	nxos.Register(r)
	sonic.Register(r)

	opensm.Register(r)
	ufm.Register(r)
	return r
}
