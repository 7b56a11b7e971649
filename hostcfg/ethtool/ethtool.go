package ethtool

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/fabricctl/fabricctl/hostcfg/internal/netnsx"
)

// ethtool commands (include/uapi/linux/ethtool.h).
const (
	cmdGPauseParam = 0x00000012 // ETHTOOL_GPAUSEPARAM
	cmdSPauseParam = 0x00000013 // ETHTOOL_SPAUSEPARAM
)

// Pause is struct ethtool_pauseparam: 802.3x global pause (ethtool -a / -A).
type Pause struct {
	Autoneg bool `json:"autoneg"` // ethtool_pauseparam.autoneg
	RX      bool `json:"rx"`      // ethtool_pauseparam.rx_pause
	TX      bool `json:"tx"`      // ethtool_pauseparam.tx_pause
}

// pauseParam is the wire layout of struct ethtool_pauseparam.
type pauseParam struct {
	Cmd     uint32
	Autoneg uint32
	RX      uint32
	TX      uint32
}

// ifreqData is struct ifreq with ifr_data: 16 bytes of name, then the
// union, whose first member here is a pointer (40 bytes on 64-bit).
type ifreqData struct {
	name [unix.IFNAMSIZ]byte
	data unsafe.Pointer
	_    [24 - unsafe.Sizeof(uintptr(0))]byte
}

// Conn issues SIOCETHTOOL ioctls on a datagram socket. The socket belongs to
// the network namespace it was opened in. A Conn is safe for concurrent use.
type Conn struct {
	mu sync.Mutex
	fd int
}

// Open returns a Conn in the caller's network namespace.
func Open() (*Conn, error) { return OpenNetns("") }

// OpenNetns returns a Conn in the network namespace at nsPath ("" = the caller's).
func OpenNetns(nsPath string) (*Conn, error) {
	c := &Conn{fd: -1}
	err := netnsx.Do(nsPath, func() error {
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			// IPv4 may be compiled out; ethtool(8) falls back the same way.
			fd, err = unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
		}
		if err != nil {
			return fmt.Errorf("opening ethtool socket: %w", err)
		}
		c.fd = fd
		return nil
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// Close closes the socket.
func (c *Conn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fd < 0 {
		return nil
	}
	err := unix.Close(c.fd)
	c.fd = -1
	return err
}

func (c *Conn) ioctl(ifname string, data unsafe.Pointer) error {
	if ifname == "" || len(ifname) >= unix.IFNAMSIZ {
		return fmt.Errorf("%q is not an interface name", ifname)
	}
	var ifr ifreqData
	copy(ifr.name[:], ifname)
	ifr.data = data
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fd < 0 {
		return errors.New("ethtool socket is closed")
	}
	_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(c.fd), unix.SIOCETHTOOL, uintptr(unsafe.Pointer(&ifr)))
	if errno != 0 {
		return errno
	}
	return nil
}

func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// Pause reads ifname's pause parameters (ETHTOOL_GPAUSEPARAM). Drivers
// without them (veth) answer EOPNOTSUPP; errors.Is works on the result.
func (c *Conn) Pause(ctx context.Context, ifname string) (Pause, error) {
	if err := ctx.Err(); err != nil {
		return Pause{}, err
	}
	p := pauseParam{Cmd: cmdGPauseParam}
	if err := c.ioctl(ifname, unsafe.Pointer(&p)); err != nil {
		return Pause{}, fmt.Errorf("reading pause parameters of %s: %w", ifname, err)
	}
	return Pause{Autoneg: p.Autoneg != 0, RX: p.RX != 0, TX: p.TX != 0}, nil
}

// SetPause writes ifname's pause parameters (ETHTOOL_SPAUSEPARAM).
func (c *Conn) SetPause(ctx context.Context, ifname string, want Pause) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	p := pauseParam{Cmd: cmdSPauseParam, Autoneg: b2u(want.Autoneg), RX: b2u(want.RX), TX: b2u(want.TX)}
	if err := c.ioctl(ifname, unsafe.Pointer(&p)); err != nil {
		return fmt.Errorf("setting pause parameters of %s: %w", ifname, err)
	}
	return nil
}

// DriverInfo is the part of struct ethtool_drvinfo fabricctl uses.
type DriverInfo struct {
	Driver  string `json:"driver"`  // ethtool_drvinfo.driver ("mlx5_core", "veth")
	BusInfo string `json:"busInfo"` // ethtool_drvinfo.bus_info ("0000:08:00.0")
	FWVer   string `json:"fwVer"`   // ethtool_drvinfo.fw_version
}

// DriverInfo reads ifname's driver name and bus address (ETHTOOL_GDRVINFO).
// Unlike sysfs it answers for the socket's network namespace.
func (c *Conn) DriverInfo(ctx context.Context, ifname string) (DriverInfo, error) {
	if err := ctx.Err(); err != nil {
		return DriverInfo{}, err
	}
	d := unix.EthtoolDrvinfo{Cmd: unix.ETHTOOL_GDRVINFO}
	if err := c.ioctl(ifname, unsafe.Pointer(&d)); err != nil {
		return DriverInfo{}, fmt.Errorf("reading driver info of %s: %w", ifname, err)
	}
	return DriverInfo{
		Driver:  unix.ByteSliceToString(d.Driver[:]),
		BusInfo: unix.ByteSliceToString(d.Bus_info[:]),
		FWVer:   unix.ByteSliceToString(d.Fw_version[:]),
	}, nil
}
