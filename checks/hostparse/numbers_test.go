package hostparse

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestNumbersThatDoNotFit: a figure that reads as a number but is none its
// field holds (a counter of 1e23, a negative count, a NaN or infinite rate,
// a width past int) is left out and listed in BadNumbers with its line:
// never read as zero (a clean counter) or as the largest int, and never a
// NaN or infinity in what the parser returns. Text that is no number at all
// ("N/A") stays what it was.
func TestNumbersThatDoNotFit(t *testing.T) {
	huge := "1" + strings.Repeat("0", 400)
	bad := func(v any) []string { return v.(interface{ BadNumberLines() []string }).BadNumberLines() }
	for _, c := range []struct {
		name, in, want string
		parse          func(string) (any, error)
		leftOut        func(any) bool
	}{
		{"nvlink counter", "GPU 0: NVIDIA H100 (UUID: GPU-0)\n\t Link 0: CRC Errors: 100000000000000000000000\n", `line 2: link 0 CRC Errors "100000000000000000000000" is not a count`,
			func(s string) (any, error) { return ParseNVLink(strings.NewReader(s)) },
			func(v any) bool { return v.(*NVLink).GPUs[0].Links[0].Errors == nil }},
		{"nvlink negative counter", "GPU 0: NVIDIA H100 (UUID: GPU-0)\n\t Link 0: Replay Errors: -3\n", `line 2: link 0 Replay Errors "-3" is not a count`,
			func(s string) (any, error) { return ParseNVLink(strings.NewReader(s)) },
			func(v any) bool { return v.(*NVLink).GPUs[0].Links[0].Errors == nil }},
		{"ibstat rate NaN", "CA 'mlx5_0'\n\tPort 1:\n\t\tState: Active\n\t\tRate: NaN\n", `line 4: rate "NaN" is not a rate`,
			func(s string) (any, error) { return ParseIBStat(strings.NewReader(s)) },
			func(v any) bool { return v.(*IBStat).CAs[0].Ports[0].Rate == 0 }},
		{"ibstat LID 1e23", "CA 'mlx5_0'\n\tPort 1:\n\t\tBase lid: 100000000000000000000000\n", `line 3: Base lid "100000000000000000000000" is not a count`,
			func(s string) (any, error) { return ParseIBStat(strings.NewReader(s)) },
			func(v any) bool { return v.(*IBStat).CAs[0].Ports[0].BaseLID == 0 }},
		{"iblinkinfo lane speed", "CA: h HCA-1:\n      7    1[  ] ==( 4X " + huge + " Gbps Active/  LinkUp)==>       3    7[  ] \"leaf\" ( )\n", `line 2: lane speed`,
			func(s string) (any, error) { return ParseIBLinkInfo(strings.NewReader(s)) },
			func(v any) bool { return v.(*IBLinkInfo).Nodes[0].Links[0].LaneGbps == 0 }},
		{"nvidia-smi -q replays", "GPU 00000000:18:00.0\n    PCI\n        Replays Since Reset               : 100000000000000000000000\n", `line 3: Replays Since Reset`,
			func(s string) (any, error) { return ParseNvidiaSMIQ(strings.NewReader(s)) },
			func(v any) bool { return v.(*SMIQuery).GPUs[0].Replays == nil }},
		{"p2p infinite", "Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)\n   D\\D     0      1\n     0 " + huge + " 20.1\n     1  20.2 900.0\n", `line 3: Unidirectional P2P=Enabled Bandwidth (P2P Writes) GPU0→GPU0`,
			func(s string) (any, error) { return ParseP2PBandwidth(strings.NewReader(s)) },
			func(v any) bool { return len(v.(*P2PBandwidth).Matrices[0].Values[0]) == 0 }},
		{"show_gids count", "n_gids_found=100000000000000000000000\n", `line 1: n_gids_found`,
			func(s string) (any, error) { return ParseShowGIDs(strings.NewReader(s)) },
			func(v any) bool { return v.(*ShowGIDs).Found == -1 }},
		{"kernel Xid", "[ 1.0] NVRM: Xid (PCI:0000:3b:00): 100000000000000000000000, pid=1, name=x, y\n", `line 1: Xid number`,
			func(s string) (any, error) { return ParseKernelLog(strings.NewReader(s)) },
			func(v any) bool { return len(v.(*KernelLog).GPUs) == 0 }},
		{"ibv_devinfo MTU", "hca_id:\tmlx5_0\n\tport:\t1\n\t\tactive_mtu:\t100000000000000000000000 (5)\n", `line 3: active_mtu`,
			func(s string) (any, error) { return ParseDevInfo(strings.NewReader(s)) },
			func(v any) bool { return v.(*DevInfo).Devices[0].Ports[0].ActiveMTU == 0 }},
	} {
		v, err := c.parse(c.in)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got := bad(v); len(got) != 1 || !strings.HasPrefix(got[0], c.want) {
			t.Errorf("%s: bad numbers %q, want one starting %q", c.name, got, c.want)
		}
		if !c.leftOut(v) {
			t.Errorf("%s: the figure was read: %+v", c.name, v)
		}
		if _, err := json.Marshal(v); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	// Text that is no number stays a warning, not a bad number.
	nl, err := ParseNVLink(strings.NewReader("GPU 0: X (UUID: GPU-0)\n\t Link 0: CRC Errors: N/A\n"))
	if err != nil || len(nl.BadNumbers) != 0 || len(nl.Warnings) != 1 {
		t.Errorf("N/A counter: %+v %v", nl, err)
	}
	devs, err := ParsePCI(strings.NewReader("17:00.0 Ethernet controller: X\n\tLnkSta:\tSpeed 16GT/s, Width x99999999999999999999\n"))
	if err != nil || len(devs) != 1 || devs[0].LinkSta.Width != 0 || len(devs[0].BadNumbers) != 1 {
		t.Errorf("lspci width: %+v %v", devs, err)
	}
	if _, err := ParseIBDev2Netdev(strings.NewReader("mlx5_0 port 99999999999999999999 ==> ens1 (Up)\n")); err == nil || !strings.Contains(err.Error(), "line 1: port") {
		t.Errorf("ibdev2netdev port: %v", err)
	}
}
