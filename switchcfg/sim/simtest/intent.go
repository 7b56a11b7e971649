package simtest

import (
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg/all"
	"github.com/fabricctl/fabricctl/switchcfg/drivertest"
)

// LabIntent is drivertest.LabIntent for the registered platform.
func LabIntent(t testing.TB, platform string) fabric.SwitchIntent {
	t.Helper()
	d, err := all.Registry().Driver(platform)
	if err != nil {
		t.Fatal(err)
	}
	return drivertest.LabIntent(d.Info())
}
