package sysfs

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/hostcfg/internal/kfs"
)

// NetDevice is what /sys/class/net/<ifname> says about a netdev's hardware.
type NetDevice struct {
	Name string `json:"name"`
	// Driver is the basename of /sys/class/net/<if>/device/driver ("mlx5_core"); "" for virtual devices.
	Driver string `json:"driver,omitempty"`
	// BusID is the basename of /sys/class/net/<if>/device ("0000:08:00.0").
	BusID string `json:"busId,omitempty"`
	// Bus is the basename of /sys/class/net/<if>/device/subsystem ("pci").
	Bus string `json:"bus,omitempty"`
}

// NetDevice reads /sys/class/net/<ifname>. It wraps ErrNotExist when the
// netdev is not in this sysfs (another network namespace, or no such device).
func (s FS) NetDevice(ctx context.Context, ifname string) (NetDevice, error) {
	if err := ctx.Err(); err != nil {
		return NetDevice{}, err
	}
	if _, err := os.Stat(s.Path("class", "net", ifname)); err != nil {
		return NetDevice{}, fmt.Errorf("reading netdev %s: %w", ifname, err)
	}
	return NetDevice{
		Name:   ifname,
		Driver: s.linkBase("class", "net", ifname, "device", "driver"),
		BusID:  s.linkBase("class", "net", ifname, "device"),
		Bus:    s.linkBase("class", "net", ifname, "device", "subsystem"),
	}, nil
}

// HasQoS reports whether the vendor (MLNX_OFED) tree /sys/class/net/<if>/qos/trust exists.
func (s FS) HasQoS(ifname string) bool { return s.exists("class", "net", ifname, "qos", "trust") }

// Trust reads /sys/class/net/<if>/qos/trust and returns "pcp" or "dscp".
func (s FS) Trust(ctx context.Context, ifname string) (string, error) {
	v, err := s.readLine(ctx, "class", "net", ifname, "qos", "trust")
	if err != nil {
		return "", err
	}
	t, err := ParseTrust(v)
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", s.Path("class", "net", ifname, "qos", "trust"), err)
	}
	return t, nil
}

// SetTrust writes "pcp" or "dscp" to /sys/class/net/<if>/qos/trust.
func (s FS) SetTrust(ctx context.Context, ifname, trust string) error {
	if trust != "pcp" && trust != "dscp" {
		return fmt.Errorf("setting trust on %s: %q is not pcp or dscp", ifname, trust)
	}
	return s.writeLine(ctx, trust, "class", "net", ifname, "qos", "trust")
}

// ParseTrust reads the content of qos/trust. The vendor driver prints
// "Priority trust state: dscp"; a bare "dscp" or "pcp" is accepted too.
func ParseTrust(v string) (string, error) {
	v = strings.TrimSpace(v)
	if i := strings.LastIndexByte(v, ':'); i >= 0 {
		v = strings.TrimSpace(v[i+1:])
	}
	switch v {
	case "pcp", "dscp":
		return v, nil
	}
	return "", fmt.Errorf("parsing trust state: %q is not pcp or dscp", v)
}

// The two halves of the vendor ECN tree /sys/class/net/<if>/ecn/.
const (
	// NP is the notification point (roce_np): the receiver that sends CNPs.
	NP = "roce_np"
	// RP is the reaction point (roce_rp): the sender that runs DCQCN.
	RP = "roce_rp"
)

func checkPoint(point string) error {
	if point != NP && point != RP {
		return fmt.Errorf("ecn point %q is not %s or %s", point, NP, RP)
	}
	return nil
}

// HasECN reports whether the vendor tree /sys/class/net/<if>/ecn/roce_np exists.
func (s FS) HasECN(ifname string) bool { return s.exists("class", "net", ifname, "ecn", NP, "enable") }

// ECNEnabled reads /sys/class/net/<if>/ecn/<point>/enable/<0..7> and returns
// a bitmap: bit p set when priority p has ECN on.
func (s FS) ECNEnabled(ctx context.Context, ifname, point string) (uint8, error) {
	if err := checkPoint(point); err != nil {
		return 0, err
	}
	var bits uint8
	for p := range 8 {
		v, err := s.readInt(ctx, "class", "net", ifname, "ecn", point, "enable", strconv.Itoa(p))
		if err != nil {
			return 0, err
		}
		if v != 0 {
			bits |= 1 << p
		}
	}
	return bits, nil
}

// SetECNEnabled writes /sys/class/net/<if>/ecn/<point>/enable/<p> for every
// priority whose state differs from bits; priorities already right are not touched.
func (s FS) SetECNEnabled(ctx context.Context, ifname, point string, bits uint8) error {
	cur, err := s.ECNEnabled(ctx, ifname, point)
	if err != nil {
		return err
	}
	for p := range 8 {
		want := bits&(1<<p) != 0
		if want == (cur&(1<<p) != 0) {
			continue
		}
		v := "0"
		if want {
			v = "1"
		}
		if err := s.writeLine(ctx, v, "class", "net", ifname, "ecn", point, "enable", strconv.Itoa(p)); err != nil {
			return err
		}
	}
	return nil
}

// ECNParam reads the decimal parameter /sys/class/net/<if>/ecn/<point>/<name>
// (cnp_dscp, cnp_802p_prio, min_time_between_cnps, rpg_ai_rate, …).
func (s FS) ECNParam(ctx context.Context, ifname, point, name string) (int, error) {
	if err := checkParam(point, name); err != nil {
		return 0, err
	}
	return s.readInt(ctx, "class", "net", ifname, "ecn", point, name)
}

// SetECNParam writes the decimal parameter /sys/class/net/<if>/ecn/<point>/<name>.
func (s FS) SetECNParam(ctx context.Context, ifname, point, name string, v int) error {
	if err := checkParam(point, name); err != nil {
		return err
	}
	return s.writeLine(ctx, strconv.Itoa(v), "class", "net", ifname, "ecn", point, name)
}

// ECNParams lists the parameter files under /sys/class/net/<if>/ecn/<point>/
// (every entry but the enable directory), sorted.
func (s FS) ECNParams(ctx context.Context, ifname, point string) ([]string, error) {
	if err := checkPoint(point); err != nil {
		return nil, err
	}
	names, err := s.list(ctx, "class", "net", ifname, "ecn", point)
	if err != nil {
		return nil, err
	}
	out := names[:0]
	for _, n := range names {
		if n != "enable" {
			out = append(out, n)
		}
	}
	return out, nil
}

// checkParam refuses names that would leave the point's directory.
func checkParam(point, name string) error {
	if err := checkPoint(point); err != nil {
		return err
	}
	if name == "enable" || !kfs.ValidName(name) {
		return fmt.Errorf("ecn parameter %q is not a file name under %s", name, point)
	}
	return nil
}
