package debugfs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/fabricctl/fabricctl/hostcfg/internal/kfs"
)

// ErrNotExist is wrapped when a device directory or parameter file is absent.
var ErrNotExist = fs.ErrNotExist

// ErrUnknownParam is wrapped when a parameter has no cc_params equivalent.
var ErrUnknownParam = errors.New("no cc_params equivalent")

// FS is a debugfs tree: "/sys/kernel/debug" on a live host, a fixture
// directory in tests.
type FS struct {
	root string
}

// NewFS returns the debugfs tree mounted at root.
func NewFS(root string) FS { return FS{root: filepath.Clean(root)} }

// Root returns the directory the tree is rooted at.
func (d FS) Root() string { return d.root }

// Path joins elem below the root.
func (d FS) Path(elem ...string) string { return kfs.Join(d.root, elem...) }

// CCParams is upstream mlx5's congestion-control directory of one PCI
// function: <root>/mlx5/<bdf>/cc_params/. Each file holds one decimal u32.
type CCParams struct {
	dir string
}

// CCParams returns the cc_params directory of the PCI function bdf
// ("0000:08:00.0"). It wraps ErrNotExist when debugfs is not mounted at the
// root, the device is not an mlx5 function, or its driver has no RoCE.
func (d FS) CCParams(bdf string) (CCParams, error) {
	if !kfs.ValidName(bdf) {
		return CCParams{}, fmt.Errorf("finding cc_params: %q is not a PCI address", bdf)
	}
	dir := d.Path("mlx5", bdf, "cc_params")
	if _, err := os.Stat(dir); err != nil {
		return CCParams{}, fmt.Errorf("finding cc_params of %s: %w", bdf, err)
	}
	return CCParams{dir: dir}, nil
}

// Dir returns the directory's path.
func (c CCParams) Dir() string { return c.dir }

// Get reads the parameter file name (np_cnp_dscp, rp_ai_rate, …).
func (c CCParams) Get(ctx context.Context, name string) (int, error) {
	p, err := c.file(name)
	if err != nil {
		return 0, err
	}
	v, err := kfs.ReadLine(ctx, p)
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseUint(v, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("reading %s: %q is not a decimal u32", p, v)
	}
	return int(n), nil
}

// Set writes v to the parameter file name; the driver sends it to firmware at once.
func (c CCParams) Set(ctx context.Context, name string, v int) error {
	p, err := c.file(name)
	if err != nil {
		return err
	}
	if v < 0 || v > 1<<32-1 {
		return fmt.Errorf("writing %s: %d is not a u32", p, v)
	}
	return kfs.WriteLine(ctx, p, strconv.Itoa(v))
}

// Names lists the parameter files, sorted.
func (c CCParams) Names(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(c.dir)
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", c.dir, err)
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() {
			out = append(out, e.Name())
		}
	}
	slices.Sort(out)
	return out, nil
}

func (c CCParams) file(name string) (string, error) {
	if !kfs.ValidName(name) {
		return "", fmt.Errorf("cc_params: %q is not a file name", name)
	}
	return filepath.Join(c.dir, name), nil
}

// vendorNames maps the MLNX_OFED sysfs names (/sys/class/net/<if>/ecn/roce_np/<name>,
// roce_rp/<name>; the names fabric.HostDCQCN uses) to upstream mlx5's cc_params
// files (drivers/infiniband/hw/mlx5/cong.c).
var vendorNames = map[string]map[string]string{
	"np": {
		"min_time_between_cnps": "np_min_time_between_cnps",
		"cnp_dscp":              "np_cnp_dscp",
		"cnp_802p_prio":         "np_cnp_prio",
	},
	"rp": {
		"clamp_tgt_rate":                "rp_clamp_tgt_rate",
		"clamp_tgt_rate_after_time_inc": "rp_clamp_tgt_rate_ati",
		"rpg_time_reset":                "rp_time_reset",
		"rpg_byte_reset":                "rp_byte_reset",
		"rpg_threshold":                 "rp_threshold",
		"rpg_ai_rate":                   "rp_ai_rate",
		"rpg_max_rate":                  "rp_max_rate",
		"rpg_hai_rate":                  "rp_hai_rate",
		"rpg_min_dec_fac":               "rp_min_dec_fac",
		"rpg_min_rate":                  "rp_min_rate",
		"rate_to_set_on_first_cnp":      "rp_rate_to_set_on_first_cnp",
		"dce_tcp_g":                     "rp_dce_tcp_g",
		"dce_tcp_rtt":                   "rp_dce_tcp_rtt",
		"rate_reduce_monitor_period":    "rp_rate_reduce_monitor_period",
		"initial_alpha_value":           "rp_initial_alpha_value",
		"rpg_gd":                        "rp_gd",
	},
}

// FileName returns the cc_params file for the vendor parameter name of point
// "np" or "rp" (cnp_dscp → np_cnp_dscp, rpg_ai_rate → rp_ai_rate). It wraps
// ErrUnknownParam for names upstream mlx5 does not expose.
func FileName(point, vendorName string) (string, error) {
	m, ok := vendorNames[point]
	if !ok {
		return "", fmt.Errorf("mapping %s parameter %q: point is not np or rp: %w", point, vendorName, ErrUnknownParam)
	}
	f, ok := m[vendorName]
	if !ok {
		return "", fmt.Errorf("mapping %s parameter %q to cc_params: %w", point, vendorName, ErrUnknownParam)
	}
	return f, nil
}

// VendorName is the inverse of FileName: it returns the point and vendor
// name of a cc_params file, ok false for files without one (np_cnp_prio_mode).
func VendorName(file string) (point, name string, ok bool) {
	for p, m := range vendorNames {
		for v, f := range m {
			if f == file {
				return p, v, true
			}
		}
	}
	return "", "", false
}
