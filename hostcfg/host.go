package hostcfg

import (
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/fabricctl/fabricctl/hostcfg/configfs"
	"github.com/fabricctl/fabricctl/hostcfg/dcbnl"
	"github.com/fabricctl/fabricctl/hostcfg/debugfs"
	"github.com/fabricctl/fabricctl/hostcfg/ethtool"
	"github.com/fabricctl/fabricctl/hostcfg/link"
	"github.com/fabricctl/fabricctl/hostcfg/sysfs"
)

// Default roots of the file-system backends on a live host.
const (
	DefaultSysRoot    = "/sys"
	DefaultConfigRoot = configfs.DefaultRoot
	DefaultDebugRoot  = "/sys/kernel/debug"
)

// Host is one Linux host's lossless settings and the backends that read and
// write them. Build it with OpenLocal, or fill the fields yourself (tests
// use fixture roots, dcbfake and fakes of the kernel-only interfaces). A
// nil DCB or Ethtool makes their settings unsupported, never a crash.
//
// Observe, Show and Apply are safe for concurrent use when the backends
// are (all of this module's are); concurrent Applies to the same interface
// race like two operators would.
type Host struct {
	// Name is the target name put into plans and errors' context.
	Name    string
	Links   Links
	DCB     DCB
	Ethtool Ethtool
	RDMA    RDMAMapper
	Sys     sysfs.FS    // /sys: vendor qos/ecn trees, infiniband ports, GIDs, pkeys
	Debug   debugfs.FS  // /sys/kernel/debug: mlx5 cc_params
	Config  configfs.FS // /sys/kernel/config: rdma_cm
	// Log receives debug detail (which backend was probed and why); nil = discard.
	Log *slog.Logger

	closers []func() error
}

// Options configure OpenLocal.
type Options struct {
	// Name of the host in plans; os.Hostname when empty.
	Name string
	// Roots of sysfs, configfs and debugfs; the defaults when empty.
	SysRoot, ConfigRoot, DebugRoot string
	// NetNS is the path of a network namespace handle (/run/netns/NAME) whose
	// netdevs to manage; the caller's namespace when empty.
	NetNS string
	// UseRdmamap maps netdevs to RDMA devices with rdmamap (live /sys only)
	// instead of the sysfs reader. Ignored unless SysRoot is /sys.
	UseRdmamap bool
	Log        *slog.Logger
}

// OpenLocal opens the real backends: a netlink handle, a DCB netlink
// socket and an ethtool socket in the chosen namespace, and the three file
// systems at their roots. Close releases the sockets.
func OpenLocal(o Options) (*Host, error) {
	h := &Host{
		Name:   o.Name,
		Sys:    sysfs.NewFS(or(o.SysRoot, DefaultSysRoot)),
		Debug:  debugfs.NewFS(or(o.DebugRoot, DefaultDebugRoot)),
		Config: configfs.NewFS(or(o.ConfigRoot, DefaultConfigRoot)),
		Log:    o.Log,
	}
	if h.Name == "" {
		h.Name, _ = os.Hostname()
	}
	h.RDMA = h.Sys
	if o.UseRdmamap && h.Sys.Root() == DefaultSysRoot {
		h.RDMA = RdmamapMapper{Sys: h.Sys}
	}
	lh, err := link.OpenNetns(o.NetNS)
	if err != nil {
		return nil, err
	}
	h.Links = lh
	h.closers = append(h.closers, func() error { lh.Close(); return nil })

	var dc *dcbnl.Conn
	if o.NetNS == "" {
		dc, err = dcbnl.OpenConn()
	} else {
		dc, err = dcbnl.OpenConnNetns(o.NetNS)
	}
	if err != nil {
		return nil, errors.Join(fmt.Errorf("opening dcb netlink: %w", err), h.Close())
	}
	h.DCB = dcbnl.New(dc)
	h.closers = append(h.closers, dc.Close)

	ec, err := ethtool.OpenNetns(o.NetNS)
	if err != nil {
		return nil, errors.Join(err, h.Close())
	}
	h.Ethtool = ec
	h.closers = append(h.closers, ec.Close)
	return h, nil
}

// Close releases what OpenLocal opened.
func (h *Host) Close() error {
	var errs []error
	for i := len(h.closers) - 1; i >= 0; i-- {
		errs = append(errs, h.closers[i]())
	}
	h.closers = nil
	return errors.Join(errs...)
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func (h *Host) log() *slog.Logger {
	if h.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return h.Log
}
