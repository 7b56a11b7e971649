package dcbnl

import (
	"bytes"
	"fmt"
	"syscall"

	"github.com/fabricctl/fabricctl/hostcfg/dcbnl/internal/nlwire"
)

// A reply, as a Transport returns it, is every netlink message the kernel
// sent for one request: the DCB message (RTM_GETDCB or RTM_SETDCB with the
// request's command) and the NLMSG_ERROR acknowledgement, or a lone
// NLMSG_ERROR carrying the errno when the command failed before reaching the
// driver. The decoders below accept both, in any order.

// parseReply finds the DCB message answering cmd (of netlink type typ) and
// returns its attributes; an NLMSG_ERROR with a non-zero errno becomes *Error.
func parseReply(b []byte, typ uint16, cmds ...Command) (Command, []nlwire.Attr, error) {
	msgs, err := nlwire.ParseMessages(b)
	if err != nil {
		return 0, nil, err
	}
	var (
		found bool
		cmd   Command
		attrs []nlwire.Attr
	)
	for i, m := range msgs {
		switch m.Type {
		case nlwire.TypeError:
			em, err := nlwire.ParseError(m.Payload)
			if err != nil {
				return 0, nil, fmt.Errorf("message %d: %w", i, err)
			}
			if em.Errno == 0 {
				continue // the ACK
			}
			failed := cmds[0]
			if len(em.Request.Payload) >= 2 {
				failed = Command(em.Request.Payload[1]) // the echoed dcbmsg.cmd
			}
			return 0, nil, &Error{Cmd: failed, Errno: syscall.Errno(em.Errno)}
		case nlwire.TypeNoop, nlwire.TypeDone:
			continue
		case RTMGetDCB, RTMSetDCB:
			if found {
				return 0, nil, fmt.Errorf("message %d: a second dcb reply: %w", i, ErrMalformed)
			}
			if len(m.Payload) < 4 {
				return 0, nil, fmt.Errorf("message %d: dcbmsg of %d bytes, want 4: %w", i, len(m.Payload), ErrMalformed)
			}
			cmd = Command(m.Payload[1])
			if m.Type != typ || !containsCmd(cmds, cmd) {
				return 0, nil, fmt.Errorf("message %d: reply type %d %s, want type %d %s: %w", i, m.Type, cmd, typ, cmds[0], ErrMalformed)
			}
			attrs, err = nlwire.ParseAttrs(m.Payload[4:])
			if err != nil {
				return 0, nil, fmt.Errorf("message %d (%s): %w", i, cmd, err)
			}
			found = true
		default:
			return 0, nil, fmt.Errorf("message %d: unexpected netlink type %d: %w", i, m.Type, ErrMalformed)
		}
	}
	if !found {
		return 0, nil, fmt.Errorf("no %s reply among %d messages: %w", cmds[0], len(msgs), ErrMalformed)
	}
	return cmd, attrs, nil
}

func containsCmd(cmds []Command, c Command) bool {
	for _, x := range cmds {
		if x == c {
			return true
		}
	}
	return false
}

// DecodeIEEE decodes the reply to EncodeIEEEGet. Nests are read with or
// without NLA_F_NESTED (the kernel sets it on the trust and rewrite tables
// only), unknown attributes are skipped, structs longer than this package
// knows are read up to the known size.
func DecodeIEEE(reply []byte) (IEEEState, error) {
	var st IEEEState
	_, attrs, err := parseReply(reply, RTMGetDCB, CmdIEEEGet)
	if err != nil {
		return st, wrapDecode("ieee_get", err)
	}
	for _, a := range attrs {
		switch a.Type {
		case AttrIfName:
			name, _, _ := bytes.Cut(a.Data, []byte{0})
			st.IfName = string(name)
		case AttrIEEE:
			if err := decodeIEEENest(a.Data, &st); err != nil {
				return IEEEState{}, fmt.Errorf("decoding ieee_get reply: %w", err)
			}
		case AttrDCBX:
			if len(a.Data) < 1 {
				return IEEEState{}, fmt.Errorf("decoding ieee_get reply: empty DCB_ATTR_DCBX: %w", ErrMalformed)
			}
			st.DCBX, st.HasDCBX = a.Data[0], true
		}
	}
	return st, nil
}

func decodeIEEENest(b []byte, st *IEEEState) error {
	attrs, err := nlwire.ParseAttrs(b)
	if err != nil {
		return fmt.Errorf("DCB_ATTR_IEEE: %w", err)
	}
	for _, a := range attrs {
		switch a.Type {
		case AttrIEEEETS:
			st.ETS = new(ETS)
			err = st.ETS.UnmarshalBinary(a.Data)
		case AttrIEEEPFC:
			st.PFC = new(PFC)
			err = st.PFC.UnmarshalBinary(a.Data)
		case AttrIEEEMaxrate:
			st.Maxrate = new(Maxrate)
			err = st.Maxrate.UnmarshalBinary(a.Data)
		case AttrDCBBuffer:
			st.Buffer = new(Buffer)
			err = st.Buffer.UnmarshalBinary(a.Data)
		case AttrIEEEAppTable:
			st.Apps, err = decodeAppTable(a.Data)
			if err != nil {
				err = fmt.Errorf("APP_TABLE: %w", err)
			}
		case AttrRewrTable:
			st.Rewr, err = decodeAppTable(a.Data)
			st.HasRewr = true
			if err != nil {
				err = fmt.Errorf("REWR_TABLE: %w", err)
			}
		case AttrAppTrust:
			st.Trust, err = decodeTrust(a.Data)
			st.HasTrust = true
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// decodeAppTable reads the dcb_app entries of an APP or REWR table; entry
// types other than DCB_ATTR_IEEE_APP and DCB_ATTR_DCB_APP are skipped, as
// the kernel skips them.
func decodeAppTable(b []byte) ([]App, error) {
	attrs, err := nlwire.ParseAttrs(b)
	if err != nil {
		return nil, err
	}
	apps := make([]App, 0, len(attrs))
	for _, a := range attrs {
		if a.Type != AttrAppIEEE && a.Type != AttrAppDCB {
			continue
		}
		var app App
		if err := app.UnmarshalBinary(a.Data); err != nil {
			return nil, err
		}
		apps = append(apps, app)
	}
	return apps, nil
}

func decodeTrust(b []byte) ([]Selector, error) {
	attrs, err := nlwire.ParseAttrs(b)
	if err != nil {
		return nil, fmt.Errorf("APP_TRUST_TABLE: %w", err)
	}
	sels := make([]Selector, 0, len(attrs))
	for _, a := range attrs {
		if a.Type != AttrAppIEEE && a.Type != AttrAppDCB {
			continue
		}
		if len(a.Data) < 1 {
			return nil, fmt.Errorf("APP_TRUST_TABLE: empty selector entry: %w", ErrMalformed)
		}
		sels = append(sels, Selector(a.Data[0]))
	}
	return sels, nil
}

// DecodeStatus decodes the reply to an IEEE_SET, IEEE_DEL or SDCBX request:
// nil when the kernel and driver accepted it, *Error otherwise. IEEE_SET and
// IEEE_DEL report the driver's result in-band as DCB_ATTR_IEEE, a u8 holding
// the negative errno; SDCBX reports the driver's u8 status in DCB_ATTR_DCBX
// (non-zero: ErrDCBXRejected).
func DecodeStatus(reply []byte) error {
	cmd, attrs, err := parseReply(reply, RTMSetDCB, CmdIEEESet, CmdIEEEDel, CmdSetDCBX)
	if err != nil {
		return wrapDecode("status", err)
	}
	want := uint16(AttrIEEE)
	if cmd == CmdSetDCBX {
		want = AttrDCBX
	}
	for _, a := range attrs {
		if a.Type != want {
			continue
		}
		if len(a.Data) < 1 {
			return fmt.Errorf("decoding %s reply: empty status attribute: %w", cmd, ErrMalformed)
		}
		v := a.Data[0]
		switch {
		case v == 0:
			return nil
		case cmd == CmdSetDCBX:
			return &Error{Cmd: cmd, InBand: true, DriverStatus: v}
		default:
			// The kernel stores the negative errno truncated to u8.
			return &Error{Cmd: cmd, InBand: true, Errno: syscall.Errno(256 - int(v))}
		}
	}
	return fmt.Errorf("decoding %s reply: no status attribute: %w", cmd, ErrMalformed)
}

// DecodeDCBX decodes the reply to EncodeGetDCBX: the DCB_CAP_DCBX_* flags.
func DecodeDCBX(reply []byte) (uint8, error) {
	_, attrs, err := parseReply(reply, RTMGetDCB, CmdGetDCBX)
	if err != nil {
		return 0, wrapDecode("gdcbx", err)
	}
	for _, a := range attrs {
		if a.Type == AttrDCBX && len(a.Data) >= 1 {
			return a.Data[0], nil
		}
	}
	return 0, fmt.Errorf("decoding gdcbx reply: no DCB_ATTR_DCBX: %w", ErrMalformed)
}

// wrapDecode adds context to a decoding failure; a kernel error (*Error) is
// not a decoding failure and passes through unchanged.
func wrapDecode(what string, err error) error {
	if _, ok := err.(*Error); ok {
		return err
	}
	return fmt.Errorf("decoding %s reply: %w", what, err)
}
