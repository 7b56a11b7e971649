package main

import (
	"sync"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg/all"
)

// switchRegistry is every registered switch and subnet-manager driver, built once.
var switchRegistry = sync.OnceValue(all.Registry)

// platforms returns the switch platforms fabric validation checks against:
// the registry checks platform and port names and renders each switch's
// profile, so validate refuses whatever render would.
func platforms() fabric.Platforms { return switchRegistry() }
