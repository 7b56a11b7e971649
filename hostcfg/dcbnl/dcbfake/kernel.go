package dcbfake

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sync"
	"syscall"

	"github.com/fabricctl/fabricctl/hostcfg/dcbnl"
	"github.com/fabricctl/fabricctl/hostcfg/dcbnl/internal/nlwire"
)

// Kernel is a fake DCB kernel: a dcbnl.Transport that decodes real request
// bytes and answers with real reply bytes. It is safe for concurrent use.
type Kernel struct {
	mu           sync.Mutex
	portID       uint32
	devs         map[string]*device
	nextIfindex  int
	unprivileged bool
	failAttr     []attrFailure
	failReq      []reqFailure
	failApps     []appFailure
	log          []Request
}

type attrFailure struct {
	ifname string
	attr   uint16
	errno  syscall.Errno
}

type appFailure struct {
	ifname string
	app    dcbnl.App
	errno  syscall.Errno
}

type reqFailure struct {
	ifname string
	cmd    dcbnl.Command
	errno  syscall.Errno
}

// Request is one netlink request the fake kernel received, and its outcome.
type Request struct {
	Raw    []byte        // the message as received
	Type   uint16        // dcbnl.RTMGetDCB or dcbnl.RTMSetDCB
	Cmd    dcbnl.Command // struct dcbmsg's cmd
	IfName string        // DCB_ATTR_IFNAME, "" when absent
	// Attrs lists the attribute types inside DCB_ATTR_IEEE, in the order sent.
	Attrs []uint16
	// Errno is the outcome: 0 when accepted; for InBand errors the kernel
	// processed the request and reported the driver's errno in the reply.
	Errno  syscall.Errno
	InBand bool
	// DCBXStatus is SDCBX's driver status (0 accepted).
	DCBXStatus uint8
}

// Write reports whether the request was RTM_SETDCB: it asked for a change.
func (r Request) Write() bool { return r.Type == dcbnl.RTMSetDCB }

// New returns a fake kernel with no devices.
func New() *Kernel {
	return &Kernel{portID: 0x3739, devs: map[string]*device{}, nextIfindex: 2}
}

// Option adjusts a device as AddDevice creates it.
type Option func(*device)

// AddDevice adds a netdev with dcbnl ops of the given flavour, in its
// initial (driver load) state. Adding an existing name replaces it.
func (k *Kernel) AddDevice(name string, f Flavour, opts ...Option) {
	k.mu.Lock()
	defer k.mu.Unlock()
	d := newDevice(name, k.nextIfindex, f)
	k.nextIfindex++
	for _, o := range opts {
		o(d)
	}
	k.devs[name] = d
}

// AddDeviceWithoutDCB adds a netdev whose driver has no dcbnl ops (veth,
// lo, most virtual devices): every DCB command on it fails with EOPNOTSUPP.
func (k *Kernel) AddDeviceWithoutDCB(name string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.devs[name] = &device{name: name, ifindex: k.nextIfindex}
	k.nextIfindex++
}

// RemoveDevice removes a netdev; later requests for it get ENODEV.
func (k *Kernel) RemoveDevice(name string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.devs, name)
}

// SetUnprivileged makes the fake answer RTM_SETDCB with EPERM, as the
// kernel does for a caller without CAP_NET_ADMIN.
func (k *Kernel) SetUnprivileged(v bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.unprivileged = v
}

// FailNext makes the next driver operation for IEEE attribute attr
// (dcbnl.AttrIEEEETS, AttrIEEEPFC, AttrIEEEAppTable, AttrDCBBuffer,
// AttrIEEEMaxrate, AttrAppTrust, AttrRewrTable) on ifname ("" for any
// device) fail with errno, reported in-band as the kernel does. For an APP
// or rewrite table the first entry fails. Calls queue up; each fires once.
func (k *Kernel) FailNext(ifname string, attr uint16, errno syscall.Errno) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.failAttr = append(k.failAttr, attrFailure{ifname, attr, errno})
}

// FailApp makes the next add or delete of exactly app in ifname's APP
// table ("" for any device) fail with errno, in-band, after the entries
// before it in the same request were processed. Calls queue up; each fires once.
func (k *Kernel) FailApp(ifname string, app dcbnl.App, errno syscall.Errno) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.failApps = append(k.failApps, appFailure{ifname, app, errno})
}

// FailNextRequest makes the next cmd request on ifname ("" for any) fail
// with an NLMSG_ERROR carrying errno before any driver is called (e.g.
// ENOMEM, EBUSY). Calls queue up; each fires once.
func (k *Kernel) FailNextRequest(ifname string, cmd dcbnl.Command, errno syscall.Errno) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.failReq = append(k.failReq, reqFailure{ifname, cmd, errno})
}

// Requests returns every request received so far, oldest first.
func (k *Kernel) Requests() []Request {
	k.mu.Lock()
	defer k.mu.Unlock()
	return slices.Clone(k.log)
}

// Writes returns the RTM_SETDCB requests received so far: a test asserts
// "nothing was written" with len(k.Writes()) == 0.
func (k *Kernel) Writes() []Request {
	k.mu.Lock()
	defer k.mu.Unlock()
	var w []Request
	for _, r := range k.log {
		if r.Write() {
			w = append(w, r)
		}
	}
	return w
}

// ClearRequests forgets the requests received so far.
func (k *Kernel) ClearRequests() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.log = nil
}

// State returns what IEEE_GET on ifname would report now, without
// recording a request.
func (k *Kernel) State(ifname string) (dcbnl.IEEEState, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	d, ok := k.devs[ifname]
	switch {
	case !ok:
		return dcbnl.IEEEState{}, fmt.Errorf("fake state of %s: %w", ifname, syscall.ENODEV)
	case d.flavour == noDCB:
		return dcbnl.IEEEState{}, fmt.Errorf("fake state of %s: %w", ifname, syscall.EOPNOTSUPP)
	}
	return d.view(), nil
}

// LinkFlaps returns how often a changed pfc_en toggled ifname's link (mlx5
// flavour; always 0 for Generic).
func (k *Kernel) LinkFlaps(ifname string) int {
	k.mu.Lock()
	defer k.mu.Unlock()
	if d, ok := k.devs[ifname]; ok {
		return d.linkFlaps
	}
	return 0
}

// TrustDSCP reports the mlx5 flavour's trust state: true when DSCP APP
// entries exist (the driver then classifies by DSCP), false for PCP.
func (k *Kernel) TrustDSCP(ifname string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	if d, ok := k.devs[ifname]; ok {
		return d.dscpAppCnt > 0
	}
	return false
}

// TickCounters advances ifname's PFC request/indication counters, as
// traffic would between two reads.
func (k *Kernel) TickCounters(ifname string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if d, ok := k.devs[ifname]; ok {
		for i := range d.pfcRequests {
			d.pfcRequests[i] += uint64(i + 1)
			d.pfcIndications[i] += uint64(2*i + 1)
		}
	}
}

// Exchange processes every netlink message in req, as the kernel's
// netlink_rcv_skb does, and returns the concatenated replies.
func (k *Kernel) Exchange(ctx context.Context, req []byte) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	msgs, err := nlwire.SplitMessages(req)
	if err != nil {
		// The kernel drops what it cannot frame; a caller waiting for an
		// answer would hang, so say so.
		return nil, fmt.Errorf("fake dcb kernel: %w", err)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	var out []byte
	for _, m := range msgs {
		out = append(out, k.handle(m)...)
	}
	return out, nil
}

// handle processes one request message and returns the reply messages.
func (k *Kernel) handle(raw []byte) []byte {
	m, _ := nlwire.ParseMessages(raw) // framing already checked
	msg := m[0]
	rec := Request{Raw: bytes.Clone(raw), Type: msg.Type}
	if len(msg.Payload) >= 2 {
		rec.Cmd = dcbnl.Command(msg.Payload[1])
	}
	reply, errno := k.doit(msg, &rec)
	rec.Errno = errno
	k.log = append(k.log, rec)

	var out []byte
	if errno != 0 && !rec.InBand {
		return k.nlError(raw, msg, errno)
	}
	out = append(out, reply...)
	if msg.Flags&nlwire.FlagAck != 0 {
		out = append(out, k.nlError(raw, msg, 0)...)
	}
	return out
}

// nlError builds the NLMSG_ERROR the kernel's netlink_ack sends: the whole
// request echoed on error, only its header (NLM_F_CAPPED) on success.
func (k *Kernel) nlError(raw []byte, msg nlwire.Message, errno syscall.Errno) []byte {
	var flags uint16
	echo := raw
	if errno == 0 {
		flags = nlwire.FlagCapped
		echo = raw[:nlwire.HdrLen]
	}
	b := nlwire.NewMessage(nlwire.TypeError, flags, msg.Seq, k.portID)
	var code [4]byte
	nlwire.Order.PutUint32(code[:], uint32(-int32(errno)))
	b.Raw(code[:])
	b.Raw(echo)
	return b.Bytes()
}
