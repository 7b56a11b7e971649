package main

import (
	"sync"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"
	"github.com/fabricctl/fabricctl/switchcfg/all"
)

// switchRegistry is every registered switch driver, built once.
var switchRegistry = sync.OnceValue(all.Registry)

// registryPlatforms lets fabric validation check platform names and port
// names against the switch drivers without fabric importing switchcfg.
type registryPlatforms struct{ r *switchcfg.Registry }

func (p registryPlatforms) Names() []string { return p.r.Names() }

func (p registryPlatforms) CheckPort(platform, port string) error {
	d, err := p.r.Driver(platform)
	if err != nil {
		return err
	}
	return d.CheckPort(port)
}

// platforms returns the switch platforms fabric validation checks against.
func platforms() fabric.Platforms { return registryPlatforms{switchRegistry()} }

// nativeExt names rendered switch configs by platform.
var nativeExt = map[string]string{
	"cumulus-nvue": ".nvue", "sonic": ".config_db.json", "arista-eos": ".eos.cfg",
	"cisco-nxos": ".nxos.cfg", "junos": ".junos.set",
}
