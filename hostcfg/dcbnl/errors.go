package dcbnl

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/fabricctl/fabricctl/hostcfg/dcbnl/internal/nlwire"
)

// Sentinels for errors.Is.
var (
	// ErrMalformed: a reply (or request) that is not valid DCB netlink.
	ErrMalformed = nlwire.ErrMalformed
	// ErrInvalidName: an interface name that cannot be sent (empty, longer
	// than 15 bytes, or holding a NUL).
	ErrInvalidName = errors.New("invalid interface name")
	// ErrInvalid: a request this package refuses to encode.
	ErrInvalid = errors.New("invalid dcb request")
	// ErrDCBXRejected: the driver refused a DCBX mode. SDCBX's status is the
	// driver's u8 return value (drivers return 1), not an errno.
	ErrDCBXRejected = errors.New("dcbx mode rejected by the driver")
	// ErrNotReported: the device's IEEE_GET reply lacks the attribute a
	// read-modify-write needs (its driver has no such op). Errors carrying
	// it also match syscall.EOPNOTSUPP.
	ErrNotReported = errors.New("attribute not reported by the device")
)

// Error is a failure the kernel reported for one DCB command, either as an
// NLMSG_ERROR (device missing, no dcbnl ops, bad request, no permission) or
// in-band as the u8 status of an IEEE_SET/IEEE_DEL/SDCBX reply (the driver
// refused). errors.Is(err, syscall.EOPNOTSUPP) and friends work through Unwrap.
type Error struct {
	Cmd Command
	// Errno is the kernel's errno; 0 for an SDCBX refusal, which carries a
	// driver status instead.
	Errno syscall.Errno
	// InBand is true when the error came in the reply's status attribute:
	// the command reached the driver, and for IEEE_SET the attributes the
	// kernel handles before the failing one were applied.
	InBand bool
	// DriverStatus is SDCBX's non-zero status byte.
	DriverStatus uint8
}

func (e *Error) Error() string {
	if e.Errno == 0 {
		return fmt.Sprintf("dcb %s: %v (status %d)", e.Cmd, ErrDCBXRejected, e.DriverStatus)
	}
	return fmt.Sprintf("dcb %s: %v", e.Cmd, e.Errno)
}

// Unwrap returns the syscall.Errno, or ErrDCBXRejected for an SDCBX refusal.
func (e *Error) Unwrap() error {
	if e.Errno == 0 {
		return ErrDCBXRejected
	}
	return e.Errno
}

// notReported builds the error for a missing attribute; it matches both
// ErrNotReported and syscall.EOPNOTSUPP.
func notReported(what, ifname string) error {
	return fmt.Errorf("%s on %s: %w (%w)", what, ifname, ErrNotReported, syscall.EOPNOTSUPP)
}
