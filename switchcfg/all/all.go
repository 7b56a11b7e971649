package all

import (
	"github.com/fabricctl/fabricctl/switchcfg"
	"github.com/fabricctl/fabricctl/switchcfg/cumulus"
	"github.com/fabricctl/fabricctl/switchcfg/eos"
	"github.com/fabricctl/fabricctl/switchcfg/junos"
	"github.com/fabricctl/fabricctl/switchcfg/nxos"
	"github.com/fabricctl/fabricctl/switchcfg/sonic"
)

// Registry returns a registry holding every switch driver.
func Registry() *switchcfg.Registry {
	r := switchcfg.NewRegistry()
	cumulus.Register(r)
	eos.Register(r)
	junos.Register(r)
	nxos.Register(r)
	sonic.Register(r)
	return r
}
