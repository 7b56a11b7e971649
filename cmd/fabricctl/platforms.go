package main

import (
	"sync"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg/all"
)

// switchRegistry is every registered switch and subnet-manager driver, built once.
var switchRegistry = sync.OnceValue(all.Registry)

// platforms returns the platform facts fabric validation checks against.
func platforms() fabric.Platforms { return switchRegistry() }
