package sysfs_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/fabricctl/fabricctl/hostcfg/sysfs"
	"github.com/fabricctl/fabricctl/internal/testutil"
)

var hosts = []string{"mlx5-ofed", "mlx5-upstream", "mlx5-ib", "rxe"}

func hostFS(name string) sysfs.FS {
	return sysfs.NewFS(filepath.Join("..", "testdata", "hosts", name, "sys"))
}

// report is everything the package reads from one fixture host.
type report struct {
	Netdevs  map[string]any               `json:"netdevs"`
	Mapping  map[string]string            `json:"mapping"`
	RDMA     []string                     `json:"rdmaNetdevs"`
	Ports    []sysfs.Port                 `json:"ports"`
	GIDs     map[string][]sysfs.GID       `json:"gids"`
	RoCEv2   map[string]int               `json:"roceV2Ipv4GidIndex"`
	PKeys    map[string][]uint16          `json:"pkeys"`
	Counters map[string]map[string]uint64 `json:"counters"`
	HW       map[string]map[string]uint64 `json:"hwCounters"`
	Vendor   map[string]any               `json:"vendor"`
}

func read(t *testing.T, fs sysfs.FS) report {
	ctx := context.Background()
	r := report{Netdevs: map[string]any{}, Mapping: map[string]string{}, GIDs: map[string][]sysfs.GID{},
		RoCEv2: map[string]int{}, PKeys: map[string][]uint16{}, Counters: map[string]map[string]uint64{},
		HW: map[string]map[string]uint64{}, Vendor: map[string]any{}}
	names, err := os.ReadDir(fs.Path("class", "net"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		nd, err := fs.NetDevice(ctx, n.Name())
		if err != nil {
			t.Fatalf("NetDevice(%s): %v", n.Name(), err)
		}
		r.Netdevs[n.Name()] = nd
		if p, err := fs.PortForNetdev(ctx, n.Name()); err == nil {
			r.Mapping[n.Name()] = p.String()
		} else if !errors.Is(err, sysfs.ErrNoRDMADevice) {
			t.Fatalf("PortForNetdev(%s): %v", n.Name(), err)
		}
		if fs.HasQoS(n.Name()) {
			v, err := fs.Trust(ctx, n.Name())
			if err != nil {
				t.Fatal(err)
			}
			r.Vendor[n.Name()+"/qos/trust"] = v
		}
		if fs.HasECN(n.Name()) {
			for _, pt := range []string{sysfs.NP, sysfs.RP} {
				bits, err := fs.ECNEnabled(ctx, n.Name(), pt)
				if err != nil {
					t.Fatal(err)
				}
				r.Vendor[n.Name()+"/ecn/"+pt+"/enable"] = bits
				params, err := fs.ECNParams(ctx, n.Name(), pt)
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range params {
					v, err := fs.ECNParam(ctx, n.Name(), pt, p)
					if err != nil {
						t.Fatal(err)
					}
					r.Vendor[n.Name()+"/ecn/"+pt+"/"+p] = v
				}
			}
		}
	}
	if r.RDMA, err = fs.NetdevsWithRDMA(ctx); err != nil {
		t.Fatal(err)
	}
	devs, err := fs.RDMADevices(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range devs {
		ports, err := fs.Ports(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ports {
			key := sysfs.PortRef{Device: d, Port: p}.String()
			st, err := fs.Port(ctx, d, p)
			if err != nil {
				t.Fatal(err)
			}
			r.Ports = append(r.Ports, st)
			if r.GIDs[key], err = fs.GIDs(ctx, d, p); err != nil {
				t.Fatal(err)
			}
			r.RoCEv2[key] = -1
			if g, ok := sysfs.RoCEv2IPv4(r.GIDs[key], ""); ok {
				r.RoCEv2[key] = g.Index
			}
			if r.PKeys[key], err = fs.PKeys(ctx, d, p); err != nil {
				t.Fatal(err)
			}
			if c, err := fs.Counters(ctx, d, p); err == nil {
				r.Counters[key] = c
			} else if !errors.Is(err, sysfs.ErrNotExist) {
				t.Fatal(err)
			}
			if r.HW[key], err = fs.HWCounters(ctx, d, p); err != nil {
				t.Fatal(err)
			}
		}
	}
	return r
}

// TestFixtureHostsGolden reads every fixture host completely; the golden
// files are what a user of these hosts would rely on (GID index, mapping, pkeys).
func TestFixtureHostsGolden(t *testing.T) {
	for _, h := range hosts {
		t.Run(h, func(t *testing.T) {
			b, err := json.MarshalIndent(read(t, hostFS(h)), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			testutil.Golden(t, h+".golden", append(b, '\n'))
		})
	}
}

func TestMappingAndGIDIndex(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		host, netdev, port string
		gidIndex           int
		ip                 string
	}{
		{"mlx5-ofed", "ens1f0np0", "mlx5_0/1", 3, "10.10.1.11"},
		{"mlx5-ofed", "ens1f1np1", "mlx5_1/1", 3, "10.10.2.11"},
		{"mlx5-upstream", "ens3f0np0", "mlx5_0/1", 3, "10.20.0.31"},
		{"rxe", "enp0s3", "rxe0/1", 1, "10.0.0.11"},
		{"mlx5-ib", "ib0", "mlx5_0/1", -1, ""},
	} {
		fs := hostFS(tc.host)
		p, err := fs.PortForNetdev(ctx, tc.netdev)
		if err != nil || p.String() != tc.port {
			t.Errorf("%s: PortForNetdev(%s) = %v, %v; want %s", tc.host, tc.netdev, p, err, tc.port)
			continue
		}
		gids, err := fs.GIDs(ctx, p.Device, p.Port)
		if err != nil {
			t.Fatal(err)
		}
		g, ok := sysfs.RoCEv2IPv4(gids, tc.netdev)
		if tc.gidIndex < 0 {
			if ok {
				t.Errorf("%s: RoCEv2IPv4 found %v on an InfiniBand port", tc.host, g)
			}
			continue
		}
		ip, _ := g.IPv4()
		if !ok || g.Index != tc.gidIndex || ip.String() != tc.ip {
			t.Errorf("%s: RoCEv2IPv4 = %+v (%v), %v; want index %d ip %s", tc.host, g, ip, ok, tc.gidIndex, tc.ip)
		}
	}
	if _, err := hostFS("mlx5-ofed").PortForNetdev(ctx, "eth9"); !errors.Is(err, sysfs.ErrNoRDMADevice) {
		t.Errorf("PortForNetdev(eth9) = %v, want ErrNoRDMADevice", err)
	}
}

func TestNoRDMAStack(t *testing.T) {
	fs := sysfs.NewFS(t.TempDir())
	devs, err := fs.RDMADevices(context.Background())
	if err != nil || len(devs) != 0 {
		t.Errorf("RDMADevices on an empty tree = %v, %v; want none, nil", devs, err)
	}
	if _, err := fs.NetDevice(context.Background(), "eth0"); !errors.Is(err, sysfs.ErrNotExist) {
		t.Errorf("NetDevice on an empty tree = %v, want ErrNotExist", err)
	}
}

func TestVendorWritesOnlyDifferences(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	fs := sysfs.NewFS(root)
	dir := fs.Path("class", "net", "eth0", "ecn", sysfs.NP, "enable")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for p := range 8 {
		if err := os.WriteFile(filepath.Join(dir, strconv.Itoa(p)), []byte("1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for p := range 8 {
		if err := os.Chtimes(filepath.Join(dir, strconv.Itoa(p)), old, old); err != nil {
			t.Fatal(err)
		}
	}
	if err := fs.SetECNEnabled(ctx, "eth0", sysfs.NP, 0b00101000); err != nil {
		t.Fatalf("SetECNEnabled: %v", err)
	}
	for p := range 8 {
		fi, err := os.Stat(filepath.Join(dir, strconv.Itoa(p)))
		if err != nil {
			t.Fatal(err)
		}
		if touched := !fi.ModTime().Equal(old); touched != (p != 3 && p != 5) {
			t.Errorf("enable/%d written = %v; only priorities whose state changes may be written", p, touched)
		}
	}
	got, err := fs.ECNEnabled(ctx, "eth0", sysfs.NP)
	if err != nil || got != 0b00101000 {
		t.Errorf("ECNEnabled after set = %08b, %v; want 00101000", got, err)
	}
	if err := fs.SetECNEnabled(ctx, "eth0", "roce_xx", 1); err == nil {
		t.Error("SetECNEnabled accepted point roce_xx")
	}
	if _, err := fs.ECNParam(ctx, "eth0", sysfs.NP, "../../qos/trust"); err == nil {
		t.Error("ECNParam accepted a path outside the point")
	}
}

func TestParsers(t *testing.T) {
	for _, tc := range []struct {
		in   string
		code int
		name string
		ok   bool
	}{
		{"4: ACTIVE", 4, "ACTIVE", true}, {"5: LinkUp", 5, "LinkUp", true}, {"1: DOWN\n", 1, "DOWN", true},
		{"ACTIVE", 0, "", false}, {"x: ACTIVE", 0, "", false}, {"4:", 0, "", false}, {"-1: X", 0, "", false},
	} {
		c, n, err := sysfs.ParseCodeName(tc.in)
		if (err == nil) != tc.ok || c != tc.code || n != tc.name {
			t.Errorf("ParseCodeName(%q) = %d, %q, %v", tc.in, c, n, err)
		}
	}
	for _, tc := range []struct {
		in   string
		gbps float64
		ok   bool
	}{
		{"100 Gb/sec (4X EDR)", 100, true}, {"2.5 Gb/sec (1X SDR)", 2.5, true}, {"400 Gb/sec (4X NDR)", 400, true},
		{"100 Mb/sec", 0, false}, {"fast", 0, false}, {"NaN Gb/sec", 0, false}, {"-1 Gb/sec", 0, false},
	} {
		g, err := sysfs.ParseRate(tc.in)
		if (err == nil) != tc.ok || g != tc.gbps {
			t.Errorf("ParseRate(%q) = %v, %v", tc.in, g, err)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"fe80:0000:0000:0000:0202:c9ff:fe00:0001", "fe80::202:c9ff:fe00:1"},
		{"0000:0000:0000:0000:0000:ffff:0a00:000b", "::ffff:10.0.0.11"},
		{"0000:0000:0000:0000:0000:0000:0000:0000", "invalid IP"},
		{"10.0.0.1", "error"}, {"fe80::1%eth0", "error"}, {"", "error"},
	} {
		a, err := sysfs.ParseGID(tc.in)
		got := a.String()
		if err != nil {
			got = "error"
		}
		if got != tc.want {
			t.Errorf("ParseGID(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	for _, tc := range []struct {
		in   string
		want uint16
		ok   bool
	}{{"0xffff", 0xffff, true}, {"0x8002\n", 0x8002, true}, {"0x0000", 0, true}, {"ffff", 0, false}, {"0x10000", 0, false}} {
		k, err := sysfs.ParsePKey(tc.in)
		if (err == nil) != tc.ok || k != tc.want {
			t.Errorf("ParsePKey(%q) = %#x, %v", tc.in, k, err)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"Priority trust state: dscp", "dscp"}, {"pcp\n", "pcp"}, {"Priority trust state: both", ""}, {"", ""},
	} {
		got, err := sysfs.ParseTrust(tc.in)
		if got != tc.want || (err == nil) != (tc.want != "") {
			t.Errorf("ParseTrust(%q) = %q, %v", tc.in, got, err)
		}
	}
}

// ttar reads prometheus/procfs's ttar archive format: Path/Lines/content/Mode blocks.
func ttar(data []byte) map[string]string {
	files := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	var cur string
	var lines []string
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "Path: "):
			cur, lines = strings.TrimPrefix(l, "Path: "), nil
		case strings.HasPrefix(l, "Lines: "), strings.HasPrefix(l, "# "), strings.HasPrefix(l, "Directory: "):
		case strings.HasPrefix(l, "Mode: "):
			if cur != "" {
				files[cur] = strings.Join(lines, "\n")
			}
			cur = ""
		case cur != "":
			lines = append(lines, strings.TrimSuffix(l, "EOF"))
		}
	}
	return files
}

// TestCorpusProcfsFixture runs the parsers over the third-party mlx5 sysfs
// fixture in the shared corpus (names and layout reference; never copied here).
func TestCorpusProcfsFixture(t *testing.T) {
	files := ttar(testutil.CorpusFile(t, "hosts", "sysfs-mlx5-ecn-procfs-fixture.ttar").Raw)
	if len(files) == 0 {
		t.Fatal("no files in the corpus ttar")
	}
	var checked []string
	for p, v := range files {
		switch filepath.Base(p) {
		case "state", "phys_state":
			if _, _, err := sysfs.ParseCodeName(v); err != nil {
				t.Errorf("%s: %v", p, err)
			}
		case "rate":
			if _, err := sysfs.ParseRate(v); err != nil {
				t.Errorf("%s: %v", p, err)
			}
		default:
			continue
		}
		checked = append(checked, filepath.Base(p))
	}
	slices.Sort(checked)
	if want := []string{"phys_state", "rate", "state"}; !cmp.Equal(slices.Compact(checked), want) {
		t.Errorf("corpus files checked = %v, want %v", slices.Compact(checked), want)
	}
	// The ECN tree's names must be the ones this package reads.
	for p := range files {
		if strings.Contains(p, "/ecn/roce_np/") && !strings.Contains(p, "/enable/") {
			switch filepath.Base(p) {
			case "cnp_dscp", "cnp_802p_prio", "min_time_between_cnps":
			default:
				t.Errorf("unexpected roce_np parameter %s", p)
			}
		}
	}
}
