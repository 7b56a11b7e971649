package main

import "github.com/fabricctl/fabricctl/fabric"

// platforms returns the switch platforms fabric validation checks against.
// Until every driver is registered this is nil, and fabric.DefaultPlatforms applies.
func platforms() fabric.Platforms { return nil }
