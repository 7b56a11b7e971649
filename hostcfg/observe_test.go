package hostcfg

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/hostcfg/sysfs"
)

// TestObserveRDMAFromSysfsAlone: every RDMA netdev expanded, each with its
// port and RoCE v2 GID index; a netdev that does not exist says so.
func TestObserveRDMAFromSysfsAlone(t *testing.T) {
	sys := sysfs.NewFS(filepath.Join("testdata", "hosts", "mlx5-ofed", "sys"))
	obs := ObserveRDMA(context.Background(), sys, fabric.HostIntent{Host: "gpu-01",
		Interfaces: []fabric.InterfaceIntent{{Name: fabric.AllRDMANetdevs}, {Name: "eth9"}}})
	var got []string
	for _, i := range obs.Interfaces {
		switch {
		case i.RDMA != nil:
			got = append(got, fmt.Sprintf("%s=%s/%d", i.Name, i.RDMA.Device, i.RDMA.Port.Port))
		case i.Error != "":
			got = append(got, i.Name+"=error")
		default:
			got = append(got, i.Name+"=none")
		}
		if len(i.Settings) != 0 {
			t.Errorf("%s: settings read without netlink: %v", i.Name, i.Settings)
		}
	}
	if want := "ens1f0np0=mlx5_0/1 ens1f1np1=mlx5_1/1 eth9=error"; strings.Join(got, " ") != want {
		t.Errorf("observed %s, want %s", strings.Join(got, " "), want)
	}
	if obs.Host != "gpu-01" || obs.APIVersion != fabric.APIVersion {
		t.Errorf("observed %s %s", obs.APIVersion, obs.Host)
	}
}
