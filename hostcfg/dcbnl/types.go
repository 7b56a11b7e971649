package dcbnl

import (
	"fmt"

	"github.com/fabricctl/fabricctl/hostcfg/dcbnl/internal/nlwire"
)

// Struct sizes from include/uapi/linux/dcbnl.h. Decoding accepts longer
// payloads (a newer kernel may grow a struct) and ignores the tail.
const (
	ETSLen     = 59  // sizeof(struct ieee_ets)
	PFCLen     = 136 // sizeof(struct ieee_pfc)
	MaxrateLen = 64  // sizeof(struct ieee_maxrate)
	BufferLen  = 44  // sizeof(struct dcbnl_buffer)
	AppLen     = 4   // sizeof(struct dcb_app)
)

var order = nlwire.Order

func tooShort(what string, got, want int) error {
	return fmt.Errorf("decoding %s: %d bytes, want at least %d: %w", what, got, want, ErrMalformed)
}

// ETS mirrors struct ieee_ets (59 bytes, no padding).
type ETS struct {
	Willing    uint8    `json:"willing"`    // ieee_ets.willing
	ETSCap     uint8    `json:"etsCap"`     // ieee_ets.ets_cap: TCs the device supports (read-only)
	CBS        uint8    `json:"cbs"`        // ieee_ets.cbs
	TCTxBW     [8]uint8 `json:"tcTxBw"`     // ieee_ets.tc_tx_bw: percent per TC, used by ETS TCs
	TCRxBW     [8]uint8 `json:"tcRxBw"`     // ieee_ets.tc_rx_bw
	TCTSA      [8]TSA   `json:"tcTsa"`      // ieee_ets.tc_tsa
	PrioTC     [8]uint8 `json:"prioTc"`     // ieee_ets.prio_tc: TC of each priority
	TCRecoBW   [8]uint8 `json:"tcRecoBw"`   // ieee_ets.tc_reco_bw
	TCRecoTSA  [8]TSA   `json:"tcRecoTsa"`  // ieee_ets.tc_reco_tsa
	RecoPrioTC [8]uint8 `json:"recoPrioTc"` // ieee_ets.reco_prio_tc
}

// MarshalBinary lays e out as struct ieee_ets.
func (e ETS) MarshalBinary() ([]byte, error) {
	b := make([]byte, 0, ETSLen)
	b = append(b, e.Willing, e.ETSCap, e.CBS)
	b = append(b, e.TCTxBW[:]...)
	b = append(b, e.TCRxBW[:]...)
	for _, t := range e.TCTSA {
		b = append(b, uint8(t))
	}
	b = append(b, e.PrioTC[:]...)
	b = append(b, e.TCRecoBW[:]...)
	for _, t := range e.TCRecoTSA {
		b = append(b, uint8(t))
	}
	b = append(b, e.RecoPrioTC[:]...)
	return b, nil
}

// UnmarshalBinary reads struct ieee_ets from the first 59 bytes of b.
func (e *ETS) UnmarshalBinary(b []byte) error {
	if len(b) < ETSLen {
		return tooShort("ieee_ets", len(b), ETSLen)
	}
	e.Willing, e.ETSCap, e.CBS = b[0], b[1], b[2]
	copy(e.TCTxBW[:], b[3:11])
	copy(e.TCRxBW[:], b[11:19])
	for i := range 8 {
		e.TCTSA[i] = TSA(b[19+i])
	}
	copy(e.PrioTC[:], b[27:35])
	copy(e.TCRecoBW[:], b[35:43])
	for i := range 8 {
		e.TCRecoTSA[i] = TSA(b[43+i])
	}
	copy(e.RecoPrioTC[:], b[51:59])
	return nil
}

// PFC mirrors struct ieee_pfc (136 bytes): u8 pfc_cap, u8 pfc_en, u8 mbc,
// one pad byte, u16 delay at offset 4, two pad bytes, then u64 requests[8] at
// offset 8 and u64 indications[8] at offset 72.
type PFC struct {
	PFCCap      uint8     `json:"pfcCap"`      // ieee_pfc.pfc_cap: priorities that can be lossless at once (read-only)
	PFCEn       uint8     `json:"pfcEn"`       // ieee_pfc.pfc_en: bit p set = PFC on priority p
	MBC         uint8     `json:"mbc"`         // ieee_pfc.mbc: MACsec bypass capability
	Delay       uint16    `json:"delay"`       // ieee_pfc.delay: bit times; mlx5 reads it as cable length in metres
	Requests    [8]uint64 `json:"requests"`    // ieee_pfc.requests: PFC frames sent per priority (counter)
	Indications [8]uint64 `json:"indications"` // ieee_pfc.indications: PFC frames received per priority (counter)
}

// MarshalBinary lays p out as struct ieee_pfc, padding included.
func (p PFC) MarshalBinary() ([]byte, error) {
	b := make([]byte, PFCLen)
	b[0], b[1], b[2] = p.PFCCap, p.PFCEn, p.MBC
	order.PutUint16(b[4:], p.Delay)
	for i := range 8 {
		order.PutUint64(b[8+8*i:], p.Requests[i])
		order.PutUint64(b[72+8*i:], p.Indications[i])
	}
	return b, nil
}

// UnmarshalBinary reads struct ieee_pfc from the first 136 bytes of b.
func (p *PFC) UnmarshalBinary(b []byte) error {
	if len(b) < PFCLen {
		return tooShort("ieee_pfc", len(b), PFCLen)
	}
	p.PFCCap, p.PFCEn, p.MBC = b[0], b[1], b[2]
	p.Delay = order.Uint16(b[4:])
	for i := range 8 {
		p.Requests[i] = order.Uint64(b[8+8*i:])
		p.Indications[i] = order.Uint64(b[72+8*i:])
	}
	return nil
}

// SameConfig reports whether p and q configure the device alike: pfc_en,
// mbc and delay. The capability and the counters are not configuration.
func (p PFC) SameConfig(q PFC) bool {
	return p.PFCEn == q.PFCEn && p.MBC == q.MBC && p.Delay == q.Delay
}

// SameConfig reports whether e and f configure the device alike: every field
// but the read-only ets_cap.
func (e ETS) SameConfig(f ETS) bool {
	f.ETSCap = e.ETSCap
	return e == f
}

// Maxrate mirrors struct ieee_maxrate (64 bytes): u64 tc_maxrate[8] in kbit/s,
// 0 meaning unlimited.
type Maxrate struct {
	TCMaxrate [8]uint64 `json:"tcMaxrate"` // ieee_maxrate.tc_maxrate, kbit/s
}

// MarshalBinary lays m out as struct ieee_maxrate.
func (m Maxrate) MarshalBinary() ([]byte, error) {
	b := make([]byte, MaxrateLen)
	for i, v := range m.TCMaxrate {
		order.PutUint64(b[8*i:], v)
	}
	return b, nil
}

// UnmarshalBinary reads struct ieee_maxrate from the first 64 bytes of b.
func (m *Maxrate) UnmarshalBinary(b []byte) error {
	if len(b) < MaxrateLen {
		return tooShort("ieee_maxrate", len(b), MaxrateLen)
	}
	for i := range m.TCMaxrate {
		m.TCMaxrate[i] = order.Uint64(b[8*i:])
	}
	return nil
}

// Buffer mirrors struct dcbnl_buffer (44 bytes): u8 prio2buffer[8], then
// u32 buffer_size[8] at offset 8 and u32 total_size at offset 40.
type Buffer struct {
	Prio2Buffer [8]uint8  `json:"prio2buffer"` // dcbnl_buffer.prio2buffer: receive buffer of each priority, < 8
	BufferSize  [8]uint32 `json:"bufferSize"`  // dcbnl_buffer.buffer_size: bytes per buffer
	TotalSize   uint32    `json:"totalSize"`   // dcbnl_buffer.total_size: bytes available (read-only)
}

// MarshalBinary lays b out as struct dcbnl_buffer.
func (bu Buffer) MarshalBinary() ([]byte, error) {
	b := make([]byte, BufferLen)
	copy(b, bu.Prio2Buffer[:])
	for i, v := range bu.BufferSize {
		order.PutUint32(b[8+4*i:], v)
	}
	order.PutUint32(b[40:], bu.TotalSize)
	return b, nil
}

// UnmarshalBinary reads struct dcbnl_buffer from the first 44 bytes of b.
func (bu *Buffer) UnmarshalBinary(b []byte) error {
	if len(b) < BufferLen {
		return tooShort("dcbnl_buffer", len(b), BufferLen)
	}
	copy(bu.Prio2Buffer[:], b[:8])
	for i := range bu.BufferSize {
		bu.BufferSize[i] = order.Uint32(b[8+4*i:])
	}
	bu.TotalSize = order.Uint32(b[40:])
	return nil
}

// SameConfig reports whether bu and o configure the device alike: every
// field but the read-only total_size.
func (bu Buffer) SameConfig(o Buffer) bool {
	return bu.Prio2Buffer == o.Prio2Buffer && bu.BufferSize == o.BufferSize
}

// App mirrors struct dcb_app (4 bytes): u8 selector, u8 priority, u16
// protocol in host order. With Selector SelDSCP it maps DSCP Protocol to
// Priority.
type App struct {
	Selector Selector `json:"selector"` // dcb_app.selector
	Priority uint8    `json:"priority"` // dcb_app.priority
	Protocol uint16   `json:"protocol"` // dcb_app.protocol
}

func (a App) String() string {
	return fmt.Sprintf("%s %d:%d", a.Selector, a.Protocol, a.Priority)
}

// MarshalBinary lays a out as struct dcb_app.
func (a App) MarshalBinary() ([]byte, error) {
	b := make([]byte, AppLen)
	b[0], b[1] = uint8(a.Selector), a.Priority
	order.PutUint16(b[2:], a.Protocol)
	return b, nil
}

// UnmarshalBinary reads struct dcb_app from the first 4 bytes of b.
func (a *App) UnmarshalBinary(b []byte) error {
	if len(b) < AppLen {
		return tooShort("dcb_app", len(b), AppLen)
	}
	a.Selector, a.Priority, a.Protocol = Selector(b[0]), b[1], order.Uint16(b[2:])
	return nil
}

// IEEEState is what DCB_CMD_IEEE_GET reports for one netdev. A nil pointer
// or a false Has* field means the reply did not carry that attribute: the
// driver lacks the op (mlx5 has no apptrust, veth has no DCB at all).
type IEEEState struct {
	IfName  string   `json:"ifname"`            // DCB_ATTR_IFNAME
	ETS     *ETS     `json:"ets,omitempty"`     // DCB_ATTR_IEEE_ETS
	PFC     *PFC     `json:"pfc,omitempty"`     // DCB_ATTR_IEEE_PFC
	Maxrate *Maxrate `json:"maxrate,omitempty"` // DCB_ATTR_IEEE_MAXRATE
	Buffer  *Buffer  `json:"buffer,omitempty"`  // DCB_ATTR_DCB_BUFFER
	// Apps is DCB_ATTR_IEEE_APP_TABLE in kernel order (newest entry first).
	Apps []App `json:"apps"`
	// Rewr is DCB_ATTR_DCB_REWR_TABLE (Linux 6.3+); HasRewr tells whether it was present.
	Rewr    []App `json:"rewr,omitempty"`
	HasRewr bool  `json:"hasRewr"`
	// Trust is DCB_ATTR_DCB_APP_TRUST_TABLE: the trusted selectors, first wins
	// (Linux 6.2+, drivers with dcbnl_getapptrust); HasTrust tells whether it was present.
	Trust    []Selector `json:"trust,omitempty"`
	HasTrust bool       `json:"hasTrust"`
	// DCBX is the top-level DCB_ATTR_DCBX (DCB_CAP_DCBX_* flags); HasDCBX
	// tells whether it was present (absent when the driver has no getdcbx).
	DCBX    uint8 `json:"dcbx"`
	HasDCBX bool  `json:"hasDcbx"`
}
