package dcbnl

import (
	"fmt"
	"strconv"
)

// Netlink message types (include/uapi/linux/rtnetlink.h).
const (
	RTMGetDCB = 78 // RTM_GETDCB
	RTMSetDCB = 79 // RTM_SETDCB
)

// Command is struct dcbmsg's cmd byte (enum dcbnl_commands).
type Command uint8

// The commands this package speaks.
const (
	CmdIEEESet Command = 20 // DCB_CMD_IEEE_SET
	CmdIEEEGet Command = 21 // DCB_CMD_IEEE_GET
	CmdGetDCBX Command = 22 // DCB_CMD_GDCBX
	CmdSetDCBX Command = 23 // DCB_CMD_SDCBX
	CmdIEEEDel Command = 27 // DCB_CMD_IEEE_DEL
)

func (c Command) String() string {
	switch c {
	case CmdIEEESet:
		return "ieee_set"
	case CmdIEEEGet:
		return "ieee_get"
	case CmdGetDCBX:
		return "gdcbx"
	case CmdSetDCBX:
		return "sdcbx"
	case CmdIEEEDel:
		return "ieee_del"
	}
	return "cmd " + strconv.Itoa(int(c))
}

// Top-level attributes (enum dcbnl_attrs).
const (
	AttrIfName = 1  // DCB_ATTR_IFNAME, NUL-terminated
	AttrIEEE   = 13 // DCB_ATTR_IEEE: a nest in requests and GET replies, a u8 status in SET/DEL replies
	AttrDCBX   = 14 // DCB_ATTR_DCBX, u8
)

// Attributes inside DCB_ATTR_IEEE (enum ieee_attrs). Debian 12's headers stop
// at DCB_ATTR_DCB_BUFFER; APP_TRUST_TABLE and REWR_TABLE come from Linux 6.1/6.2.
const (
	AttrIEEEETS      = 1  // DCB_ATTR_IEEE_ETS, struct ieee_ets
	AttrIEEEPFC      = 2  // DCB_ATTR_IEEE_PFC, struct ieee_pfc
	AttrIEEEAppTable = 3  // DCB_ATTR_IEEE_APP_TABLE, nest of app entries
	AttrIEEEPeerETS  = 4  // DCB_ATTR_IEEE_PEER_ETS (read-only, ignored)
	AttrIEEEPeerPFC  = 5  // DCB_ATTR_IEEE_PEER_PFC (read-only, ignored)
	AttrIEEEPeerApp  = 6  // DCB_ATTR_IEEE_PEER_APP (read-only, ignored)
	AttrIEEEMaxrate  = 7  // DCB_ATTR_IEEE_MAXRATE, struct ieee_maxrate
	AttrIEEEQCN      = 8  // DCB_ATTR_IEEE_QCN (not used)
	AttrIEEEQCNStats = 9  // DCB_ATTR_IEEE_QCN_STATS (not used)
	AttrDCBBuffer    = 10 // DCB_ATTR_DCB_BUFFER, struct dcbnl_buffer
	AttrAppTrust     = 11 // DCB_ATTR_DCB_APP_TRUST_TABLE, nest of u8 selectors
	AttrRewrTable    = 12 // DCB_ATTR_DCB_REWR_TABLE, nest of app entries
)

// Entry types inside APP_TABLE, REWR_TABLE and APP_TRUST_TABLE (enum ieee_attrs_app).
const (
	AttrAppIEEE = 1 // DCB_ATTR_IEEE_APP: selectors 1..5
	AttrAppDCB  = 2 // DCB_ATTR_DCB_APP: selector 255 (PCP)
)

// Selector is struct dcb_app's selector: what Protocol means.
type Selector uint8

// Selectors (IEEE_8021QAZ_APP_SEL_* and DCB_APP_SEL_PCP).
const (
	SelEthertype Selector = 1   // protocol is an EtherType
	SelStream    Selector = 2   // TCP/SCTP destination port
	SelDgram     Selector = 3   // UDP/DCCP destination port
	SelAny       Selector = 4   // TCP/SCTP/UDP/DCCP destination port
	SelDSCP      Selector = 5   // protocol is a DSCP value 0..63
	SelPCP       Selector = 255 // protocol is PCP<<1|DEI (rewrite and apptrust); Linux extension
)

var selectorNames = map[Selector]string{
	SelEthertype: "ethtype", SelStream: "stream-port", SelDgram: "dgram-port",
	SelAny: "port", SelDSCP: "dscp", SelPCP: "pcp",
}

// String returns the name iproute2's dcb uses, or the number.
func (s Selector) String() string { return enumName(selectorNames, s) }

// MarshalText renders the selector as String does.
func (s Selector) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText accepts a name from String or a decimal number.
func (s *Selector) UnmarshalText(b []byte) error {
	v, err := parseEnum(selectorNames, "selector", b)
	if err == nil {
		*s = v
	}
	return err
}

// attrType is the entry type the kernel uses for a selector
// (dcbnl_app_attr_type_get); 0 for a selector it does not know.
func (s Selector) attrType() uint16 {
	switch {
	case s >= SelEthertype && s <= SelDSCP:
		return AttrAppIEEE
	case s == SelPCP:
		return AttrAppDCB
	}
	return 0
}

// TSA is a transmission selection algorithm (IEEE_8021QAZ_TSA_*).
type TSA uint8

// The TSA values ieee_ets.tc_tsa may hold.
const (
	TSAStrict TSA = 0
	TSACBS    TSA = 1
	TSAETS    TSA = 2
	TSAVendor TSA = 255
)

var tsaNames = map[TSA]string{TSAStrict: "strict", TSACBS: "cbs", TSAETS: "ets", TSAVendor: "vendor"}

// String returns the TSA's name as dcb ets prints it, or the number.
func (t TSA) String() string { return enumName(tsaNames, t) }

// MarshalText renders the TSA as String does.
func (t TSA) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// UnmarshalText accepts a name from String or a decimal number.
func (t *TSA) UnmarshalText(b []byte) error {
	v, err := parseEnum(tsaNames, "tsa", b)
	if err == nil {
		*t = v
	}
	return err
}

func enumName[T ~uint8](names map[T]string, v T) string {
	if n, ok := names[v]; ok {
		return n
	}
	return strconv.Itoa(int(v))
}

func parseEnum[T ~uint8](names map[T]string, what string, b []byte) (T, error) {
	for k, n := range names {
		if n == string(b) {
			return k, nil
		}
	}
	v, err := strconv.ParseUint(string(b), 10, 8)
	if err != nil {
		return 0, fmt.Errorf("parsing %s %q: not a name or a number 0..255", what, b)
	}
	return T(v), nil
}

// DCBX capability flags (DCB_CAP_DCBX_*), the value of DCB_ATTR_DCBX.
const (
	DCBXHost       uint8 = 0x01 // DCB_CAP_DCBX_HOST: the host runs the DCBX agent (or none)
	DCBXLLDManaged uint8 = 0x02 // DCB_CAP_DCBX_LLD_MANAGED: an embedded agent does
	DCBXVerCEE     uint8 = 0x04 // DCB_CAP_DCBX_VER_CEE
	DCBXVerIEEE    uint8 = 0x08 // DCB_CAP_DCBX_VER_IEEE
	DCBXStatic     uint8 = 0x10 // DCB_CAP_DCBX_STATIC

	// DCBXHostIEEE is what fabricctl writes: host-managed, IEEE 802.1Qaz (0x09).
	DCBXHostIEEE = DCBXHost | DCBXVerIEEE
)

// MaxTCs is IEEE_8021QAZ_MAX_TCS: traffic classes and priorities per port.
const MaxTCs = 8

// MaxBuffers is DCBX_MAX_BUFFERS: prio2buffer values must be below it.
const MaxBuffers = 8
