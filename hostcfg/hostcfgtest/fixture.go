package hostcfgtest

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/hostcfg"
	"github.com/fabricctl/fabricctl/hostcfg/configfs"
	"github.com/fabricctl/fabricctl/hostcfg/dcbnl"
	"github.com/fabricctl/fabricctl/hostcfg/dcbnl/dcbfake"
	"github.com/fabricctl/fabricctl/hostcfg/debugfs"
	"github.com/fabricctl/fabricctl/hostcfg/link"
	"github.com/fabricctl/fabricctl/hostcfg/sysfs"
)

// Spec is a fixture host's host.json: what the kernel-only backends hold.
type Spec struct {
	Comment string      `json:"comment"`
	Links   []link.Link `json:"links"`
	// MaxMTU is the largest MTU the netdevs accept.
	MaxMTU  int                      `json:"maxMTU"`
	Ethtool map[string]EthtoolDevice `json:"ethtool"`
	// DCB gives each netdev's DCB flavour: "mlx5", "generic", or "none"
	// (no dcbnl ops). Netdevs not listed are unknown to the DCB kernel.
	DCB map[string]string `json:"dcb"`
	// RDMACM makes config/rdma_cm exist (the rdma_cm module loaded).
	RDMACM bool `json:"rdmaCM"`
}

// Fixture is a host built from a fixture directory: a private copy of its
// sys/, config/ and debug/ trees, the fake DCB kernel, fake netlink links,
// fake ethtool and emulated configfs, wired into Host.
type Fixture struct {
	Host     *hostcfg.Host
	Kernel   *dcbfake.Kernel
	Links    *Links
	Ethtool  *Ethtool
	ConfigFS *ConfigFS
	// Dir is the private copy; Spec what host.json said.
	Dir  string
	Spec Spec
}

// Load copies the fixture host at dir (e.g. hostcfg/testdata/hosts/mlx5-ofed)
// into a temporary directory and builds a Host on it. Writes go to the copy.
func Load(t testing.TB, dir string, opts ...dcbfake.Option) *Fixture {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "host.json"))
	if err != nil {
		t.Fatalf("reading fixture host: %v", err)
	}
	var spec Spec
	if err := json.Unmarshal(b, &spec); err != nil {
		t.Fatalf("decoding %s/host.json: %v", dir, err)
	}
	tmp := t.TempDir()
	if err := CopyTree(dir, tmp); err != nil {
		t.Fatalf("copying fixture host: %v", err)
	}
	for _, sub := range []string{"sys", "config", "debug"} {
		if err := os.MkdirAll(filepath.Join(tmp, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if spec.RDMACM {
		if err := os.MkdirAll(filepath.Join(tmp, "config", "rdma_cm"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	k := dcbfake.New()
	for name, flavour := range spec.DCB {
		switch flavour {
		case "mlx5":
			k.AddDevice(name, dcbfake.MLX5, opts...)
		case "generic":
			k.AddDevice(name, dcbfake.Generic, opts...)
		case "none":
			k.AddDeviceWithoutDCB(name)
		default:
			t.Fatalf("%s/host.json: dcb flavour %q is not mlx5, generic or none", dir, flavour)
		}
	}
	sys := sysfs.NewFS(filepath.Join(tmp, "sys"))
	devices, err := rdmaPorts(sys)
	if err != nil {
		t.Fatalf("listing fixture rdma ports: %v", err)
	}
	cfs := NewConfigFS(filepath.Join(tmp, "config"), devices)
	f := &Fixture{
		Kernel: k, Links: NewLinks(spec.MaxMTU, spec.Links...), Ethtool: NewEthtool(spec.Ethtool),
		ConfigFS: cfs, Dir: tmp, Spec: spec,
	}
	f.Host = &hostcfg.Host{
		Name:    filepath.Base(dir),
		Links:   f.Links,
		DCB:     dcbnl.New(k),
		Ethtool: f.Ethtool,
		RDMA:    sys,
		Sys:     sys,
		Debug:   debugfs.NewFS(filepath.Join(tmp, "debug")),
		Config:  configfs.NewFSWith(filepath.Join(tmp, "config"), cfs),
	}
	return f
}

func rdmaPorts(sys sysfs.FS) (map[string]map[int]string, error) {
	ctx := context.Background()
	devs, err := sys.RDMADevices(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]map[int]string{}
	for _, d := range devs {
		ports, err := sys.Ports(ctx, d)
		if err != nil {
			return nil, err
		}
		out[d] = map[int]string{}
		for _, p := range ports {
			st, err := sys.Port(ctx, d, p)
			if err != nil {
				return nil, err
			}
			out[d][p] = st.LinkLayer
		}
	}
	return out, nil
}

// CopyTree copies the directory src into dst (which must exist), keeping
// symlinks as symlinks, as sysfs trees need.
func CopyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil || rel == "." {
			return err
		}
		to := filepath.Join(dst, rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, to)
		case d.IsDir():
			return os.Mkdir(to, 0o755)
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(to, b, 0o644)
		}
		return fmt.Errorf("copying %s: not a file, directory or symlink", p)
	})
}

// Desired reads a desired host state (a HostIntent JSON as `fabricctl
// render` writes it, e.g. hostcfg/testdata/desired/mlx5-ofed.json).
func Desired(t testing.TB, path string) fabric.HostIntent {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var d fabric.HostIntent
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return d
}
