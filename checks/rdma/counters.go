package rdma

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/fabricctl/fabricctl/hostcfg/sysfs"
)

// OpCounters reads the counters of every RDMA port of the host, with
// where each came from: no args → PortCounters. `fabricctl counters`
// asks it once, or twice with --interval.
const OpCounters = "port-counters"

// The sources OpCounters reads, as CounterSource.Name says them.
const (
	SourceHW         = "hw_counters" // /sys/class/infiniband/<dev>/ports/<n>/hw_counters/*
	SourcePort       = "counters"    // /sys/class/infiniband/<dev>/ports/<n>/counters/* (IB PMA)
	SourceStatistics = "statistics"  // /sys/class/net/<if>/statistics/*
	SourceCarrier    = "carrier"     // /sys/class/net/<if>/carrier_changes, carrier_down_count, carrier_up_count
	SourceEthtool    = "ethtool"     // ethtool -S <if>
)

// PhyErrorCounters are the ethtool -S statistics by which a NIC counts
// what it received corrupted at its PHY or MAC, by driver, as the
// kernel's drivers name them:
//   - mlx5: rx_crc_errors_phy, rx_symbol_err_phy, rx_pcs_symbol_err_phy
//     (Documentation/networking/device_drivers/ethernet/mellanox/mlx5/counters.rst);
//   - Broadcom bnxt_en: rx_fcs_err_frames (bnxt_ethtool.c's port
//     statistics) and rx_pcs_symbol_err (its extended port statistics),
//     on the physical function only;
//   - Intel ice: rx_crc_errors.nic and illegal_bytes.nic (ice_ethtool.c's
//     PF statistics; ".nic" marks the port's, printed on the PF's own
//     netdev only);
//   - Intel i40e: port.rx_crc_errors and port.illegal_bytes.
//
// A virtual function, or a NIC whose names are not here, names none of
// them: its ports are unknown, never clean (CountsPhyErrors).
var PhyErrorCounters = []string{
	"rx_crc_errors_phy", "rx_symbol_err_phy", "rx_pcs_symbol_err_phy",
	"rx_fcs_err_frames", "rx_pcs_symbol_err",
	"rx_crc_errors.nic", "illegal_bytes.nic",
	"port.rx_crc_errors", "port.illegal_bytes",
}

// LinkDownCounters are the ethtool -S statistics by which a NIC counts its
// port's link going down: mlx5's link_down_events_phy, bnxt_en's
// link_down_events (extended port statistics). ice and i40e print none
// (ice's is in ethtool -I since Linux 6.17, which the agent does not read).
var LinkDownCounters = []string{"link_down_events_phy", "link_down_events"}

// CountsPhyErrors reports whether port p's NIC counts the frames it
// receives corrupted: its ethtool statistics name one of
// PhyErrorCounters, or it is an InfiniBand port with PMA error counters
// (symbol_error, port_rcv_errors). The netdev's generic statistics file
// rx_crc_errors exists for every driver and reads 0 where the driver never
// fills it (virtio_net, veth, a bridge: soft RoCE's usual hosts), so its
// zero alone says nothing about the cable. NICs whose PHY counters go by
// other names are not recognised: they read as not counting (unknown,
// never clean).
func CountsPhyErrors(p PortReading) bool {
	for _, s := range p.Sources {
		for _, name := range PhyErrorCounters {
			if _, ok := s.Counters[name]; ok && s.Name == SourceEthtool {
				return true
			}
		}
		if s.Name == SourcePort {
			if _, ok := s.Counters["symbol_error"]; ok {
				return true
			}
			if _, ok := s.Counters["port_rcv_errors"]; ok {
				return true
			}
		}
	}
	return false
}

// PortCounters is the reply of OpCounters.
type PortCounters struct {
	// At is when the host began reading, on its own clock: the rate of a
	// counter between two readings divides by the difference of their At.
	At    time.Time     `json:"at"`
	Ports []PortReading `json:"ports"`
}

// PortReading is one RDMA port's counters, by source.
type PortReading struct {
	Device string `json:"device"`
	Port   int    `json:"port"`
	// Netdev is the port's netdev (sysfs.FS.PortNetdev); "" for an
	// InfiniBand port without IPoIB.
	Netdev string `json:"netdev,omitempty"`
	// LinkLayer is ports/<n>/link_layer: Ethernet or InfiniBand.
	LinkLayer string `json:"linkLayer,omitempty"`
	// Sources are the places read, in the order of the Source constants.
	// A directory the host does not have is left out; a source that
	// exists but could not be read (ethtool missing, a failed read) is
	// here with Error.
	Sources []CounterSource `json:"sources"`
}

// CounterSource is the counters read from one place.
type CounterSource struct {
	Name string `json:"name"` // one of the Source constants
	// From is the directory or the command read: the provenance of every
	// counter of Counters.
	From     string            `json:"from"`
	Counters map[string]uint64 `json:"counters,omitempty"`
	Error    string            `json:"error,omitempty"`
	// Unparsed holds the lines of the source's output that were not
	// understood (ethtool -S lines that are not "name: unsigned value"),
	// as read: reported, never guessed at.
	Unparsed []string `json:"unparsed,omitempty"`
}

// notCounters are files of hw_counters that are settings, not counts
// (lifespan: how long, in ms, the driver caches the values).
var notCounters = []string{"lifespan"}

// ReadCounters reads every port of every RDMA device: hw_counters and
// counters, then the port's netdev's statistics, carrier counts and
// ethtool -S. A port whose sources all fail is still listed, with why.
func (a *Agent) ReadCounters(ctx context.Context) (PortCounters, error) {
	out := PortCounters{At: time.Now().UTC(), Ports: []PortReading{}}
	devs, err := a.Sys.RDMADevices(ctx)
	if err != nil {
		return PortCounters{}, fmt.Errorf("listing the RDMA devices: %w", err)
	}
	for _, dev := range devs {
		ports, err := a.Sys.Ports(ctx, dev)
		if err != nil {
			return PortCounters{}, fmt.Errorf("listing the ports of %s: %w", dev, err)
		}
		for _, port := range ports {
			out.Ports = append(out.Ports, a.readPort(ctx, dev, port))
			if err := ctx.Err(); err != nil {
				return PortCounters{}, err
			}
		}
	}
	return out, nil
}

// readPort reads one port's sources.
func (a *Agent) readPort(ctx context.Context, dev string, port int) PortReading {
	r := PortReading{Device: dev, Port: port, Netdev: a.Sys.PortNetdev(ctx, dev, port)}
	p, _ := a.Sys.Port(ctx, dev, port) // link_layer is read even when state or rate is not
	r.LinkLayer = p.LinkLayer
	n := strconv.Itoa(port)
	hw, err := a.Sys.HWCounters(ctx, dev, port)
	for _, name := range notCounters {
		delete(hw, name)
	}
	r.add(SourceHW, a.Sys.Path("class", "infiniband", dev, "ports", n, "hw_counters"), hw, err)
	pc, err := a.Sys.Counters(ctx, dev, port)
	r.add(SourcePort, a.Sys.Path("class", "infiniband", dev, "ports", n, "counters"), pc, err)
	nd := r.Netdev
	if nd == "" {
		return r
	}
	st, err := a.Sys.NetStatistics(ctx, nd)
	r.add(SourceStatistics, a.Sys.Path("class", "net", nd, "statistics"), st, err)
	cc, err := a.Sys.NetCarrierCounts(ctx, nd)
	if len(cc) == 0 && err == nil {
		err = sysfs.ErrNotExist // none of the files: nothing to show
	}
	r.add(SourceCarrier, a.Sys.Path("class", "net", nd), cc, err)
	argv := []string{"ethtool", "-S", nd}
	es, unparsed, err := a.ethtoolStats(ctx, argv)
	r.add(SourceEthtool, strings.Join(argv, " "), es, err)
	if len(unparsed) > 0 && len(r.Sources) > 0 && r.Sources[len(r.Sources)-1].Name == SourceEthtool {
		r.Sources[len(r.Sources)-1].Unparsed = unparsed
	}
	return r
}

// add records one source: left out when the host does not have it, with
// the error when it has it and it failed (what was read before the failure
// is kept).
func (r *PortReading) add(name, from string, cs map[string]uint64, err error) {
	if errors.Is(err, os.ErrNotExist) && len(cs) == 0 {
		return
	}
	s := CounterSource{Name: name, From: from, Counters: cs}
	if err != nil {
		s.Error = err.Error()
	}
	r.Sources = append(r.Sources, s)
}

// ErrNoEthtool: the host has no ethtool binary (install ethtool); the
// counters only it reads (PFC pause per priority, rx_discards_phy) are then
// not available.
var ErrNoEthtool = errors.New("ethtool not found (install ethtool)")

// ethtoolStats runs ethtool -S and parses what it prints.
func (a *Agent) ethtoolStats(ctx context.Context, argv []string) (map[string]uint64, []string, error) {
	run := a.RunTool
	if run == nil {
		run = a.execTool
	}
	out, err := run(ctx, argv)
	if err != nil {
		return nil, nil, fmt.Errorf("running %s: %w", strings.Join(argv, " "), err)
	}
	return ParseEthtoolStats(out)
}

// execTool runs argv with LC_ALL=C and returns its stdout; a failure
// carries the first line of its stderr ("no stats available").
func (a *Agent) execTool(ctx context.Context, argv []string) ([]byte, error) {
	look := a.LookPath
	if look == nil {
		look = exec.LookPath
	}
	path, err := look(argv[0])
	if err != nil {
		// A login shell of an unprivileged user often has no sbin in PATH.
		for _, dir := range sbinDirs {
			if p := dir + "/" + argv[0]; isExecutable(p) {
				path, err = p, nil
				break
			}
		}
	}
	if err != nil {
		return nil, ErrNoEthtool
	}
	cmd := exec.CommandContext(ctx, path, argv[1:]...)
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		line, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n")
		if line != "" {
			return nil, fmt.Errorf("%w: %s", err, line)
		}
		return nil, err
	}
	return stdout.Bytes(), nil
}

// sbinDirs are where ethtool lives when it is not in PATH.
var sbinDirs = []string{"/usr/sbin", "/sbin"}

func isExecutable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0
}

// ParseEthtoolStats parses the output of ethtool -S: a "NIC statistics:"
// header, then one "name: value" line each. A "name:" line without a value
// heads a per-queue group some drivers print; every other line that is not
// a name and an unsigned decimal is returned in unparsed, as read, so that
// what was not understood is reported rather than dropped. Output without
// the header is an error.
func ParseEthtoolStats(out []byte) (counters map[string]uint64, unparsed []string, err error) {
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	header := false
	cs := map[string]uint64{}
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "":
			continue
		case line == "NIC statistics:":
			header = true
			continue
		}
		i := strings.LastIndex(line, ":")
		if i > 0 && strings.TrimSpace(line[i+1:]) == "" {
			continue // a group's heading
		}
		name := ""
		if i > 0 {
			name = strings.TrimSpace(line[:i])
		}
		v, perr := strconv.ParseUint(strings.TrimSpace(line[i+1:]), 10, 64)
		if i <= 0 || perr != nil || name == "" {
			unparsed = append(unparsed, line)
			continue
		}
		cs[name] = v
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("reading ethtool -S output: %w", err)
	}
	if !header {
		return nil, nil, errors.New("not the output of ethtool -S: no \"NIC statistics:\" line")
	}
	return cs, unparsed, nil
}
