package dcbfake

import (
	"bytes"
	"syscall"

	"github.com/fabricctl/fabricctl/hostcfg/dcbnl"
	"github.com/fabricctl/fabricctl/hostcfg/dcbnl/internal/nlwire"
)

// This file follows net/dcb/dcbnl.c: dcb_doit, its attribute policies, and
// the IEEE/DCBX command handlers. CEE commands are not modelled: they are
// answered EOPNOTSUPP.

const cmdMax = 27 // DCB_CMD_MAX

type handler struct {
	typ uint16 // the reply's netlink type, and whether CAP_NET_ADMIN is needed
	fn  func(k *Kernel, d *device, tb map[uint16][]byte, rec *Request, reply *nlwire.Builder) syscall.Errno
}

var handlers = map[dcbnl.Command]handler{
	dcbnl.CmdIEEEGet: {dcbnl.RTMGetDCB, (*Kernel).ieeeGet},
	dcbnl.CmdIEEESet: {dcbnl.RTMSetDCB, (*Kernel).ieeeSet},
	dcbnl.CmdIEEEDel: {dcbnl.RTMSetDCB, (*Kernel).ieeeDel},
	dcbnl.CmdGetDCBX: {dcbnl.RTMGetDCB, (*Kernel).getDCBX},
	dcbnl.CmdSetDCBX: {dcbnl.RTMSetDCB, (*Kernel).setDCBX},
}

// doit is dcb_doit: privilege, attribute policy, command, device, handler.
// It returns the reply message, or an errno for an NLMSG_ERROR (rec.InBand
// false) or for the in-band status already in the reply (rec.InBand true).
func (k *Kernel) doit(msg nlwire.Message, rec *Request) ([]byte, syscall.Errno) {
	if msg.Flags&nlwire.FlagRequest == 0 || msg.Type < 0x10 {
		return nil, 0 // not a request: netlink_rcv_skb only acknowledges it
	}
	if msg.Type != dcbnl.RTMGetDCB && msg.Type != dcbnl.RTMSetDCB {
		return nil, syscall.EOPNOTSUPP // this fake has no other rtnetlink handlers
	}
	if msg.Type == dcbnl.RTMSetDCB && k.unprivileged {
		return nil, syscall.EPERM
	}
	if len(msg.Payload) < 4 {
		return nil, syscall.EINVAL
	}
	tb, errno := parseTop(msg.Payload[4:])
	if errno != 0 {
		return nil, errno
	}
	if name, ok := tb[dcbnl.AttrIfName]; ok {
		n, _, _ := bytes.Cut(name, []byte{0})
		rec.IfName = string(n)
	}
	if ieee, ok := tb[dcbnl.AttrIEEE]; ok {
		for _, a := range nlwire.WalkAttrs(ieee) {
			rec.Attrs = append(rec.Attrs, a.Type)
		}
	}
	if rec.Cmd > cmdMax {
		return nil, syscall.EINVAL
	}
	h, ok := handlers[rec.Cmd]
	if !ok {
		return nil, syscall.EOPNOTSUPP
	}
	if h.typ == dcbnl.RTMSetDCB && k.unprivileged {
		return nil, syscall.EPERM
	}
	if _, ok := tb[dcbnl.AttrIfName]; !ok {
		return nil, syscall.EINVAL
	}
	if errno := k.takeRequestFailure(rec.IfName, rec.Cmd); errno != 0 {
		return nil, errno
	}
	d, ok := k.devs[rec.IfName]
	if !ok {
		return nil, syscall.ENODEV
	}
	if d.flavour == noDCB {
		return nil, syscall.EOPNOTSUPP
	}
	reply := nlwire.NewMessage(h.typ, msg.Flags, msg.Seq, k.portID)
	reply.Raw([]byte{0, uint8(rec.Cmd), 0, 0})
	if errno := h.fn(k, d, tb, rec, reply); errno != 0 && !rec.InBand {
		return nil, errno
	} else if errno != 0 {
		return reply.Bytes(), errno
	}
	return reply.Bytes(), 0
}

// parseTop applies dcbnl_rtnl_policy to the attributes after struct dcbmsg
// (liberal parsing: the last of duplicate attributes wins, bytes that do
// not frame an attribute are ignored).
func parseTop(b []byte) (map[uint16][]byte, syscall.Errno) {
	tb := map[uint16][]byte{}
	for _, a := range nlwire.WalkAttrs(b) {
		switch a.Type {
		case dcbnl.AttrIfName: // NLA_NUL_STRING, len IFNAMSIZ-1
			n := len(a.Data)
			if n == 0 || bytes.IndexByte(a.Data[:min(n, 16)], 0) < 0 {
				return nil, syscall.EINVAL
			}
			if a.Data[n-1] == 0 {
				n--
			}
			if n > 15 {
				return nil, syscall.ERANGE
			}
		case dcbnl.AttrIEEE: // NLA_NESTED
			if n := len(a.Data); n > 0 && n < nlwire.AttrHdrLen {
				return nil, syscall.ERANGE
			}
		case dcbnl.AttrDCBX: // NLA_U8
			if len(a.Data) < 1 {
				return nil, syscall.ERANGE
			}
		}
		tb[a.Type] = a.Data
	}
	return tb, 0
}

// ieeeMinLen is dcbnl_ieee_policy: the minimum length of each struct
// attribute (shorter is ERANGE); the nests may be empty or hold a header.
var ieeeMinLen = map[uint16]int{
	dcbnl.AttrIEEEETS:      dcbnl.ETSLen,
	dcbnl.AttrIEEEPFC:      dcbnl.PFCLen,
	dcbnl.AttrIEEEMaxrate:  dcbnl.MaxrateLen,
	dcbnl.AttrDCBBuffer:    dcbnl.BufferLen,
	dcbnl.AttrIEEEAppTable: 0,
	dcbnl.AttrAppTrust:     0,
	dcbnl.AttrRewrTable:    0,
}

const ieeeAttrMax = 12 // DCB_ATTR_IEEE_MAX

func parseIEEE(b []byte) (map[uint16][]byte, syscall.Errno) {
	ieee := map[uint16][]byte{}
	for _, a := range nlwire.WalkAttrs(b) {
		if a.Type > ieeeAttrMax {
			continue
		}
		if minLen, ok := ieeeMinLen[a.Type]; ok {
			n := len(a.Data)
			if n < minLen || (minLen == 0 && n > 0 && n < nlwire.AttrHdrLen) {
				return nil, syscall.ERANGE
			}
		}
		ieee[a.Type] = a.Data
	}
	return ieee, 0
}

// takeFirst removes and returns the first element of *list that match accepts.
func takeFirst[T any](list *[]T, match func(T) bool) (T, bool) {
	for i, v := range *list {
		if match(v) {
			*list = append((*list)[:i], (*list)[i+1:]...)
			return v, true
		}
	}
	var zero T
	return zero, false
}

func (k *Kernel) takeRequestFailure(ifname string, cmd dcbnl.Command) syscall.Errno {
	f, _ := takeFirst(&k.failReq, func(f reqFailure) bool { return (f.ifname == "" || f.ifname == ifname) && f.cmd == cmd })
	return f.errno
}

func (k *Kernel) takeAttrFailure(ifname string, attr uint16) syscall.Errno {
	f, _ := takeFirst(&k.failAttr, func(f attrFailure) bool { return (f.ifname == "" || f.ifname == ifname) && f.attr == attr })
	return f.errno
}

// appOp wraps an APP table operation with the FailApp injections.
func (k *Kernel) appOp(d *device, op func(dcbnl.App) syscall.Errno) func(dcbnl.App) syscall.Errno {
	return func(a dcbnl.App) syscall.Errno {
		f, _ := takeFirst(&k.failApps, func(f appFailure) bool { return (f.ifname == "" || f.ifname == d.name) && f.app == a })
		if f.errno != 0 {
			return f.errno
		}
		return op(a)
	}
}

func (k *Kernel) ieeeGet(d *device, _ map[uint16][]byte, _ *Request, reply *nlwire.Builder) syscall.Errno {
	fill(reply, d.view())
	return 0
}

// fill is dcbnl_ieee_fill: the name, the IEEE nest (opened without
// NLA_F_NESTED, as are the APP table; the rewrite and trust tables carry
// it), then DCB_ATTR_DCBX.
func fill(b *nlwire.Builder, st dcbnl.IEEEState) {
	b.StringZ(dcbnl.AttrIfName, st.IfName)
	b.Nest(dcbnl.AttrIEEE)
	putStruct(b, dcbnl.AttrIEEEETS, st.ETS)
	putStruct(b, dcbnl.AttrIEEEMaxrate, st.Maxrate)
	putStruct(b, dcbnl.AttrIEEEPFC, st.PFC)
	putStruct(b, dcbnl.AttrDCBBuffer, st.Buffer)
	b.Nest(dcbnl.AttrIEEEAppTable)
	putApps(b, st.Apps)
	b.End()
	if st.HasRewr {
		b.Nest(dcbnl.AttrRewrTable | nlwire.AttrNested)
		putApps(b, st.Rewr)
		b.End()
	}
	if st.HasTrust {
		b.Nest(dcbnl.AttrAppTrust | nlwire.AttrNested)
		for _, s := range st.Trust {
			b.U8(appAttrType(s), uint8(s))
		}
		b.End()
	}
	b.End()
	if st.HasDCBX {
		b.U8(dcbnl.AttrDCBX, st.DCBX)
	}
}

// putStruct puts *v as attribute typ, unless v is nil (the driver lacks the get op).
func putStruct[T interface{ MarshalBinary() ([]byte, error) }](b *nlwire.Builder, typ uint16, v *T) {
	if v != nil {
		data, _ := (*v).MarshalBinary()
		b.Attr(typ, data)
	}
}

func putApps(b *nlwire.Builder, apps []dcbnl.App) {
	for _, a := range apps {
		data, _ := a.MarshalBinary()
		b.Attr(appAttrType(a.Selector), data)
	}
}

// appAttrType is dcbnl_app_attr_type_get.
func appAttrType(s dcbnl.Selector) uint16 {
	switch {
	case s >= dcbnl.SelEthertype && s <= dcbnl.SelDSCP:
		return dcbnl.AttrAppIEEE
	case s == dcbnl.SelPCP:
		return dcbnl.AttrAppDCB
	}
	return 0 // DCB_ATTR_IEEE_APP_UNSPEC
}

// validAppEntry is dcbnl_app_attr_type_validate + dcbnl_app_selector_validate.
func validAppEntry(typ uint16, s dcbnl.Selector) bool {
	switch typ {
	case dcbnl.AttrAppIEEE:
		return s >= dcbnl.SelEthertype && s <= dcbnl.SelDSCP
	case dcbnl.AttrAppDCB:
		return s == dcbnl.SelPCP
	}
	return false
}

// ieeeStep is one part of an IEEE_SET or IEEE_DEL: the attribute and the
// driver (or kernel list) operation it feeds.
type ieeeStep struct {
	attr uint16
	op   func([]byte) syscall.Errno
}

// ieeeSet is dcbnl_ieee_set: the parts in the kernel's order.
func (k *Kernel) ieeeSet(d *device, tb map[uint16][]byte, rec *Request, reply *nlwire.Builder) syscall.Errno {
	return k.ieeeWrite(d, tb, rec, reply, []ieeeStep{
		{dcbnl.AttrIEEEETS, d.setETS},
		{dcbnl.AttrIEEEMaxrate, d.setMaxrate},
		// DCB_ATTR_IEEE_QCN would come here; neither flavour has the op.
		{dcbnl.AttrIEEEPFC, d.setPFC},
		{dcbnl.AttrDCBBuffer, d.setBuffer},
		{dcbnl.AttrRewrTable, func(b []byte) syscall.Errno { return appTableSetDel(b, d.setRewr) }},
		{dcbnl.AttrIEEEAppTable, func(b []byte) syscall.Errno { return appTableSetDel(b, k.appOp(d, d.setApp)) }},
		{dcbnl.AttrAppTrust, d.setTrustTable},
	})
}

// ieeeDel is dcbnl_ieee_del: APP table entries, then rewrite entries.
func (k *Kernel) ieeeDel(d *device, tb map[uint16][]byte, rec *Request, reply *nlwire.Builder) syscall.Errno {
	return k.ieeeWrite(d, tb, rec, reply, []ieeeStep{
		{dcbnl.AttrIEEEAppTable, func(b []byte) syscall.Errno { return appTableSetDel(b, k.appOp(d, d.delApp)) }},
		{dcbnl.AttrRewrTable, func(b []byte) syscall.Errno { return appTableSetDel(b, d.delRewr) }},
	})
}

// ieeeWrite parses DCB_ATTR_IEEE (a policy failure is an NLMSG_ERROR), runs
// the steps whose attribute is present until one fails (earlier steps stay
// applied), and puts the result in-band as DCB_ATTR_IEEE = (u8)-errno.
func (k *Kernel) ieeeWrite(d *device, tb map[uint16][]byte, rec *Request, reply *nlwire.Builder, steps []ieeeStep) syscall.Errno {
	raw, ok := tb[dcbnl.AttrIEEE]
	if !ok {
		return syscall.EINVAL
	}
	ieee, errno := parseIEEE(raw)
	if errno != 0 {
		return errno
	}
	for _, s := range steps {
		data, ok := ieee[s.attr]
		if !ok {
			continue
		}
		if errno = k.takeAttrFailure(d.name, s.attr); errno == 0 {
			errno = s.op(data)
		}
		if errno != 0 {
			break
		}
	}
	return inBand(reply, rec, errno)
}

// inBand puts the u8 status and marks the record; the handler itself succeeded.
func inBand(reply *nlwire.Builder, rec *Request, errno syscall.Errno) syscall.Errno {
	reply.U8(dcbnl.AttrIEEE, uint8(-int(errno)))
	rec.InBand = errno != 0
	return errno
}

// appTableSetDel is dcbnl_app_table_setdel.
func appTableSetDel(b []byte, op func(dcbnl.App) syscall.Errno) syscall.Errno {
	for _, a := range nlwire.WalkAttrs(b) {
		if a.Type != dcbnl.AttrAppIEEE && a.Type != dcbnl.AttrAppDCB {
			continue
		}
		var app dcbnl.App
		if err := app.UnmarshalBinary(a.Data); err != nil {
			return syscall.ERANGE
		}
		if !validAppEntry(a.Type, app.Selector) {
			return syscall.EINVAL
		}
		if errno := op(app); errno != 0 {
			return errno
		}
	}
	return 0
}

// setTrustTable is the DCB_ATTR_DCB_APP_TRUST_TABLE part of dcbnl_ieee_set.
func (d *device) setTrustTable(b []byte) syscall.Errno {
	if !d.hasAppTrust() {
		return syscall.EOPNOTSUPP
	}
	var sels []dcbnl.Selector
	for _, a := range nlwire.WalkAttrs(b) {
		if (a.Type != dcbnl.AttrAppIEEE && a.Type != dcbnl.AttrAppDCB) || len(a.Data) != 1 || len(sels) >= 6 {
			return syscall.EINVAL
		}
		s := dcbnl.Selector(a.Data[0])
		if !validAppEntry(a.Type, s) {
			return syscall.EINVAL
		}
		for _, x := range sels {
			if x == s {
				return syscall.EINVAL
			}
		}
		sels = append(sels, s)
	}
	d.trust = sels
	return 0
}

func (k *Kernel) getDCBX(d *device, _ map[uint16][]byte, _ *Request, reply *nlwire.Builder) syscall.Errno {
	reply.U8(dcbnl.AttrDCBX, d.dcbx)
	return 0
}

// setDCBX is dcbnl_setdcbx: the driver's u8 return is the status.
func (k *Kernel) setDCBX(d *device, tb map[uint16][]byte, rec *Request, reply *nlwire.Builder) syscall.Errno {
	v, ok := tb[dcbnl.AttrDCBX]
	if !ok {
		return syscall.EINVAL
	}
	status := uint8(0)
	if errno := k.takeAttrFailure(d.name, dcbnl.AttrDCBX); errno != 0 {
		status = 1
	} else {
		status = d.setDCBX(v[0])
	}
	rec.DCBXStatus = status
	reply.U8(dcbnl.AttrDCBX, status)
	return 0
}
