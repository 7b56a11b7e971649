package hostcfg

import (
	"errors"
	"fmt"

	"github.com/fabricctl/fabricctl/fabric"

	"github.com/fabricctl/fabricctl/hostcfg/sysfs"
)

// Sentinels for errors.Is.
var (
	// ErrNotSupported: the device or driver cannot do a setting (fabric's sentinel).
	ErrNotSupported = fabric.ErrNotSupported
	// ErrNoInterface: the desired netdev does not exist on the host.
	ErrNoInterface = errors.New("no such interface")
	// ErrNoRDMADevice: no RDMA device port serves the netdev.
	ErrNoRDMADevice = sysfs.ErrNoRDMADevice
	// ErrStalePlan: a live value is neither the plan's old nor its new value
	// (something else changed the host since the plan was made).
	ErrStalePlan = errors.New("live value differs from the plan")
	// ErrNotConverged: the value read back after a write is not the value written.
	ErrNotConverged = errors.New("value read back differs from the value written")
	// ErrBadValue: a setting value that is not in its canonical form.
	ErrBadValue = errors.New("bad setting value")
	// ErrUnknownSetting: a plan names a setting this package does not manage.
	ErrUnknownSetting = errors.New("unknown setting")
	// ErrExternal: the setting is owned by another system (the subnet
	// manager programs pkeys); a host cannot write it.
	ErrExternal = errors.New("owned by another system")
)

// SettingError locates a failure: which interface, which setting, through
// which backend, doing what. The target (host) is named by the caller that
// fans out over hosts.
type SettingError struct {
	Interface string // netdev name, or "<rdma device>/<port>" for port settings
	Setting   string // e.g. "pfc.enable"
	Backend   string // e.g. "dcbnl"; "" when none could be chosen
	Op        string // "reading", "writing", "restoring", "verifying", "probing"
	Err       error
}

func (e *SettingError) Error() string {
	via := ""
	if e.Backend != "" {
		via = " via " + e.Backend
	}
	if e.Setting == "" {
		return fmt.Sprintf("%s %s%s: %v", e.Op, e.Interface, via, e.Err)
	}
	return fmt.Sprintf("%s %s on %s%s: %v", e.Op, e.Setting, e.Interface, via, e.Err)
}

func (e *SettingError) Unwrap() error { return e.Err }
