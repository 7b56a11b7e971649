package analyze

import (
	"os"
	"testing"
)

// TestDetectHostToolLookalikes: tools fabricctl does not read share keys and
// words with the ones it does (ibstatus's "link_layer:", "sm lid:" and port
// blocks, rdma link's states, ibv_devices' device list): they are unknown,
// never taken for ibv_devinfo or ibstat.
func TestDetectHostToolLookalikes(t *testing.T) {
	for _, name := range []string{"ibstatus.txt", "rdma_link.txt", "ibv_devices.txt"} {
		b, err := os.ReadFile("../hostparse/testdata/lookalikes/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if k := Detect(b); k != KindUnknown {
			t.Errorf("%s: detected %s, want unknown", name, k)
		}
	}
}

// TestDetectHostToolFragments: what users paste of a host tool — a port
// block without its header, an ibv_devinfo -v tail, rows indented into
// markdown, ibv_devinfo's own messages alone — is still that tool.
func TestDetectHostToolFragments(t *testing.T) {
	for path, want := range map[string]Kind{
		"ibstat/fragment_port_no_ca.txt":                   KindIBStat,
		"devinfo/verbose_fragment_phys_state_gids.txt":     KindDevInfo,
		"devinfo/no_devices_libibverbs_warnings.txt":       KindDevInfo,
		"devinfo/failed_open_vfs.txt":                      KindDevInfo,
		"devinfo/cut_before_port_state.txt":                KindDevInfo,
		"showgids/indented_cut_rows.txt":                   KindShowGIDs,
		"showgids/infiniband_ports.txt":                    KindShowGIDs,
		"ibdev2netdev/plain_ipoib_and_pod_netdev_down.txt": KindIBDev2Netdev,
		"iblinkinfo/switch_unconnected_and_degraded.txt":   KindIBLinkInfo,
	} {
		b, err := os.ReadFile("../hostparse/testdata/" + path)
		if err != nil {
			t.Fatal(err)
		}
		if k := Detect(b); k != want {
			t.Errorf("%s: detected %s, want %s", path, k, want)
		}
	}
	for text, want := range map[string]Kind{
		"Failed to open device\nFailed to open device\n":                                         KindDevInfo,
		"$ ibv_devinfo -d mlx5_9\nIB device 'mlx5_9' wasn't found\n":                             KindDevInfo,
		"           1    3[  ] ==(                Down/ Polling)==>             [  ] \"\" ( )\n": KindIBLinkInfo,
	} {
		if k := Detect([]byte(text)); k != want {
			t.Errorf("%q: detected %s, want %s", text, k, want)
		}
	}
}
