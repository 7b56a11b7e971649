package dcbnl

import (
	"fmt"
	"strings"

	"github.com/fabricctl/fabricctl/hostcfg/dcbnl/internal/nlwire"
)

// Every Encode function returns one complete netlink request: nlmsghdr with
// NLM_F_REQUEST|NLM_F_ACK and seq = pid = 0 (the Transport stamps its own
// sequence number), struct dcbmsg {AF_UNSPEC, cmd, pad}, DCB_ATTR_IFNAME,
// and for writes exactly one attribute inside DCB_ATTR_IEEE. The layout is
// the one iproute2's dcb sends: nests carry NLA_F_NESTED.

const ifNameMax = 15 // IFNAMSIZ - 1: the kernel's policy for DCB_ATTR_IFNAME

func checkIfName(ifname string) error {
	if ifname == "" || len(ifname) > ifNameMax || strings.IndexByte(ifname, 0) >= 0 {
		return fmt.Errorf("interface name %q: %w", ifname, ErrInvalidName)
	}
	return nil
}

// start begins a DCB request for ifname.
func start(typ uint16, cmd Command, ifname string) (*nlwire.Builder, error) {
	if err := checkIfName(ifname); err != nil {
		return nil, err
	}
	b := nlwire.NewMessage(typ, nlwire.FlagRequest|nlwire.FlagAck, 0, 0)
	b.Raw([]byte{0 /* AF_UNSPEC */, uint8(cmd), 0, 0})
	b.StringZ(AttrIfName, ifname)
	return b, nil
}

// ieeeOne builds an IEEE_SET/IEEE_DEL carrying one attribute inside DCB_ATTR_IEEE.
func ieeeOne(cmd Command, ifname string, attr uint16, data []byte) ([]byte, error) {
	b, err := start(RTMSetDCB, cmd, ifname)
	if err != nil {
		return nil, err
	}
	b.Nest(AttrIEEE | nlwire.AttrNested)
	b.Attr(attr, data)
	b.End()
	return b.Bytes(), nil
}

// EncodeIEEEGet builds DCB_CMD_IEEE_GET for ifname (what dcb pfc/ets/app/
// buffer/maxrate/dcbx show send).
func EncodeIEEEGet(ifname string) ([]byte, error) {
	b, err := start(RTMGetDCB, CmdIEEEGet, ifname)
	if err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// EncodeGetDCBX builds DCB_CMD_GDCBX for ifname.
func EncodeGetDCBX(ifname string) ([]byte, error) {
	b, err := start(RTMGetDCB, CmdGetDCBX, ifname)
	if err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// EncodeSetDCBX builds DCB_CMD_SDCBX with DCB_ATTR_DCBX = mode
// (DCBXHostIEEE = 0x09 is "dcb dcbx set dev IF host ieee").
func EncodeSetDCBX(ifname string, mode uint8) ([]byte, error) {
	b, err := start(RTMSetDCB, CmdSetDCBX, ifname)
	if err != nil {
		return nil, err
	}
	b.U8(AttrDCBX, mode)
	return b.Bytes(), nil
}

// EncodeIEEESetETS builds IEEE_SET carrying the whole struct ieee_ets.
func EncodeIEEESetETS(ifname string, ets ETS) ([]byte, error) {
	data, _ := ets.MarshalBinary()
	return ieeeOne(CmdIEEESet, ifname, AttrIEEEETS, data)
}

// EncodeIEEESetPFC builds IEEE_SET carrying the whole struct ieee_pfc.
func EncodeIEEESetPFC(ifname string, pfc PFC) ([]byte, error) {
	data, _ := pfc.MarshalBinary()
	return ieeeOne(CmdIEEESet, ifname, AttrIEEEPFC, data)
}

// EncodeIEEESetMaxrate builds IEEE_SET carrying struct ieee_maxrate.
func EncodeIEEESetMaxrate(ifname string, m Maxrate) ([]byte, error) {
	data, _ := m.MarshalBinary()
	return ieeeOne(CmdIEEESet, ifname, AttrIEEEMaxrate, data)
}

// EncodeIEEESetBuffer builds IEEE_SET carrying struct dcbnl_buffer.
func EncodeIEEESetBuffer(ifname string, buf Buffer) ([]byte, error) {
	data, _ := buf.MarshalBinary()
	return ieeeOne(CmdIEEESet, ifname, AttrDCBBuffer, data)
}

// EncodeIEEESetApp builds IEEE_SET adding apps to the APP table, in order
// ("dcb app add"). The kernel stops at the first entry that fails.
func EncodeIEEESetApp(ifname string, apps []App) ([]byte, error) {
	return appTable(CmdIEEESet, ifname, AttrIEEEAppTable, apps)
}

// EncodeIEEEDelApp builds IEEE_DEL removing apps from the APP table ("dcb app del").
func EncodeIEEEDelApp(ifname string, apps []App) ([]byte, error) {
	return appTable(CmdIEEEDel, ifname, AttrIEEEAppTable, apps)
}

func appTable(cmd Command, ifname string, table uint16, apps []App) ([]byte, error) {
	if len(apps) == 0 {
		return nil, fmt.Errorf("encoding %s: no app entries: %w", cmd, ErrInvalid)
	}
	b, err := start(RTMSetDCB, cmd, ifname)
	if err != nil {
		return nil, err
	}
	b.Nest(AttrIEEE | nlwire.AttrNested)
	b.Nest(table | nlwire.AttrNested)
	for _, a := range apps {
		typ := a.Selector.attrType()
		if typ == 0 {
			return nil, fmt.Errorf("encoding %s: app entry %v: selector %d unknown: %w", cmd, a, uint8(a.Selector), ErrInvalid)
		}
		data, _ := a.MarshalBinary()
		b.Attr(typ, data)
	}
	b.End()
	b.End()
	return b.Bytes(), nil
}

// EncodeIEEESetAppTrust builds IEEE_SET carrying DCB_ATTR_DCB_APP_TRUST_TABLE:
// the trusted selectors in order of precedence, each a u8 attribute of type
// DCB_ATTR_IEEE_APP (selectors 1..5) or DCB_ATTR_DCB_APP (PCP), as "dcb
// apptrust set" sends them. An empty list trusts nothing.
func EncodeIEEESetAppTrust(ifname string, selectors []Selector) ([]byte, error) {
	b, err := start(RTMSetDCB, CmdIEEESet, ifname)
	if err != nil {
		return nil, err
	}
	b.Nest(AttrIEEE | nlwire.AttrNested)
	b.Nest(AttrAppTrust | nlwire.AttrNested)
	for _, s := range selectors {
		typ := s.attrType()
		if typ == 0 {
			return nil, fmt.Errorf("encoding app trust: selector %d unknown: %w", uint8(s), ErrInvalid)
		}
		b.U8(typ, uint8(s))
	}
	b.End()
	b.End()
	return b.Bytes(), nil
}

// SetSeq writes seq into the nlmsg_seq field of the request msg.
func SetSeq(msg []byte, seq uint32) {
	if len(msg) >= nlwire.HdrLen {
		order.PutUint32(msg[8:], seq)
	}
}
