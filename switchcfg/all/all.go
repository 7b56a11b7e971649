package all

import (
	"github.com/fabricctl/fabricctl/switchcfg"
	"github.com/fabricctl/fabricctl/switchcfg/cumulus"
	"github.com/fabricctl/fabricctl/switchcfg/eos"
	"github.com/fabricctl/fabricctl/switchcfg/nxos"
)

// Registry returns a registry holding every switch driver.
func Registry() *switchcfg.Registry {
	r := switchcfg.NewRegistry()
	cumulus.Register(r)
	eos.Register(r)
	nxos.Register(r)
	return r
}
