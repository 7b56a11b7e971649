package nlwire

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Sizes and flags from include/uapi/linux/netlink.h.
const (
	HdrLen     = 16 // sizeof(struct nlmsghdr)
	AttrHdrLen = 4  // sizeof(struct nlattr)

	FlagRequest = 0x0001 // NLM_F_REQUEST
	FlagAck     = 0x0004 // NLM_F_ACK
	FlagCapped  = 0x0100 // NLM_F_CAPPED: NLMSG_ERROR carries only the request header
	FlagAckTLVs = 0x0200 // NLM_F_ACK_TLVS: extended ACK attributes follow

	TypeNoop  = 1 // NLMSG_NOOP
	TypeError = 2 // NLMSG_ERROR
	TypeDone  = 3 // NLMSG_DONE

	AttrNested       = 0x8000 // NLA_F_NESTED
	AttrNetByteorder = 0x4000 // NLA_F_NET_BYTEORDER
	AttrTypeMask     = 0x3fff // NLA_TYPE_MASK
)

// ErrMalformed is wrapped by every parse error.
var ErrMalformed = errors.New("malformed netlink data")

// Order is netlink's byte order: the host's.
var Order = binary.NativeEndian

// Align rounds n up to netlink's 4-byte alignment.
func Align(n int) int { return (n + 3) &^ 3 }

// Message is one netlink message: its header fields and the payload after the
// 16-byte header (padding excluded).
type Message struct {
	Type    uint16
	Flags   uint16
	Seq     uint32
	PID     uint32
	Payload []byte
}

// ParseMessages splits b into netlink messages. Each message must declare a
// length of at least the header and no more than what is left; the padding
// after the last message may be absent.
func ParseMessages(b []byte) ([]Message, error) {
	raw, err := SplitMessages(b)
	if err != nil {
		return nil, err
	}
	msgs := make([]Message, len(raw))
	for i, m := range raw {
		msgs[i] = Message{
			Type:    Order.Uint16(m[4:]),
			Flags:   Order.Uint16(m[6:]),
			Seq:     Order.Uint32(m[8:]),
			PID:     Order.Uint32(m[12:]),
			Payload: m[HdrLen:],
		}
	}
	return msgs, nil
}

// Attr is one netlink attribute. Type has NLA_F_NESTED and
// NLA_F_NET_BYTEORDER masked off; Nested tells whether NLA_F_NESTED was set.
// Whether Data is itself a list of attributes is for the caller to know: the
// kernel emits some nests without the flag.
type Attr struct {
	Type   uint16
	Nested bool
	Data   []byte
}

// ParseAttrs splits b into attributes. An attribute must declare a length of
// at least its header and no more than what is left; bytes left over after
// the last attribute that cannot hold a header are an error.
func ParseAttrs(b []byte) ([]Attr, error) {
	var attrs []Attr
	off := 0
	for off < len(b) {
		rest := len(b) - off
		if rest < AttrHdrLen {
			return nil, fmt.Errorf("attribute at offset %d: %d stray bytes: %w", off, rest, ErrMalformed)
		}
		n := int(Order.Uint16(b[off:]))
		typ := Order.Uint16(b[off+2:])
		if n < AttrHdrLen || n > rest {
			return nil, fmt.Errorf("attribute type %d at offset %d: length %d outside [%d, %d]: %w", typ&AttrTypeMask, off, n, AttrHdrLen, rest, ErrMalformed)
		}
		attrs = append(attrs, Attr{
			Type:   typ & AttrTypeMask,
			Nested: typ&AttrNested != 0,
			Data:   b[off+AttrHdrLen : off+n],
		})
		off += min(Align(n), rest)
	}
	return attrs, nil
}

// Builder appends one netlink message. The zero value is not usable; start
// with NewMessage.
type Builder struct {
	buf   []byte
	nests []int
}

// NewMessage starts a message with the given header fields; Bytes fills in
// the length.
func NewMessage(typ, flags uint16, seq, pid uint32) *Builder {
	b := &Builder{buf: make([]byte, HdrLen, 128)}
	Order.PutUint16(b.buf[4:], typ)
	Order.PutUint16(b.buf[6:], flags)
	Order.PutUint32(b.buf[8:], seq)
	Order.PutUint32(b.buf[12:], pid)
	return b
}

// Raw appends p followed by padding to 4 bytes (a family header such as
// struct dcbmsg, or an echoed request).
func (b *Builder) Raw(p []byte) {
	b.buf = append(b.buf, p...)
	b.pad()
}

// Attr appends an attribute of type typ (flags included) carrying data.
func (b *Builder) Attr(typ uint16, data []byte) {
	var hdr [AttrHdrLen]byte
	Order.PutUint16(hdr[0:], uint16(AttrHdrLen+len(data)))
	Order.PutUint16(hdr[2:], typ)
	b.buf = append(b.buf, hdr[:]...)
	b.buf = append(b.buf, data...)
	b.pad()
}

// U8 appends a one-byte attribute.
func (b *Builder) U8(typ uint16, v uint8) { b.Attr(typ, []byte{v}) }

// StringZ appends s as a NUL-terminated string attribute.
func (b *Builder) StringZ(typ uint16, s string) {
	b.Attr(typ, append([]byte(s), 0))
}

// Nest opens a nested attribute of type typ (pass NLA_F_NESTED in typ to set
// the flag); End closes the innermost open nest.
func (b *Builder) Nest(typ uint16) {
	b.nests = append(b.nests, len(b.buf))
	var hdr [AttrHdrLen]byte
	Order.PutUint16(hdr[2:], typ)
	b.buf = append(b.buf, hdr[:]...)
}

// End closes the innermost nest opened by Nest.
func (b *Builder) End() {
	start := b.nests[len(b.nests)-1]
	b.nests = b.nests[:len(b.nests)-1]
	Order.PutUint16(b.buf[start:], uint16(len(b.buf)-start))
}

// Bytes returns the finished message with nlmsg_len set. Open nests are a
// programming error.
func (b *Builder) Bytes() []byte {
	if len(b.nests) != 0 {
		panic("nlwire: Bytes with an open nest")
	}
	Order.PutUint32(b.buf[0:], uint32(len(b.buf)))
	return b.buf
}

func (b *Builder) pad() {
	for len(b.buf)%4 != 0 {
		b.buf = append(b.buf, 0)
	}
}

// ErrorMessage is a decoded NLMSG_ERROR: Errno is the positive errno (0 for
// an ACK) and Request the echoed header of the request it answers.
type ErrorMessage struct {
	Errno   int32
	Request Message // Payload holds whatever of the request was echoed
}

// ParseError decodes the payload of an NLMSG_ERROR message.
func ParseError(payload []byte) (ErrorMessage, error) {
	if len(payload) < 4+HdrLen {
		return ErrorMessage{}, fmt.Errorf("NLMSG_ERROR payload of %d bytes, want at least %d: %w", len(payload), 4+HdrLen, ErrMalformed)
	}
	code := int32(Order.Uint32(payload))
	if code > 0 || code < -4095 {
		return ErrorMessage{}, fmt.Errorf("NLMSG_ERROR code %d is not a negative errno: %w", code, ErrMalformed)
	}
	req := payload[4:]
	m := Message{
		Type:  Order.Uint16(req[4:]),
		Flags: Order.Uint16(req[6:]),
		Seq:   Order.Uint32(req[8:]),
		PID:   Order.Uint32(req[12:]),
	}
	// Whatever of the echoed request's own payload the kernel copied: all of
	// it by default, none with NETLINK_CAP_ACK.
	if n := int(Order.Uint32(req)); n >= HdrLen {
		m.Payload = req[HdrLen:min(n, len(req))]
	}
	return ErrorMessage{Errno: -code, Request: m}, nil
}

// SplitMessages splits b into whole messages, header included, with the same
// checks as ParseMessages.
func SplitMessages(b []byte) ([][]byte, error) {
	var out [][]byte
	off := 0
	for off < len(b) {
		rest := len(b) - off
		if rest < HdrLen {
			return nil, fmt.Errorf("message at offset %d: %d bytes left, a header needs %d: %w", off, rest, HdrLen, ErrMalformed)
		}
		n := int(Order.Uint32(b[off:]))
		if n < HdrLen || n > rest {
			return nil, fmt.Errorf("message at offset %d: length %d outside [%d, %d]: %w", off, n, HdrLen, rest, ErrMalformed)
		}
		out = append(out, b[off:off+n])
		off += min(Align(n), rest)
	}
	return out, nil
}

// WalkAttrs returns the attributes of b the way the kernel's
// nla_for_each_attr walks them: it stops silently at the first attribute
// whose length does not fit, and ignores what follows (the kernel's liberal
// parsing only warns about leftover bytes).
func WalkAttrs(b []byte) []Attr {
	var attrs []Attr
	for len(b) >= AttrHdrLen {
		n := int(Order.Uint16(b))
		if n < AttrHdrLen || n > len(b) {
			break
		}
		typ := Order.Uint16(b[2:])
		attrs = append(attrs, Attr{Type: typ & AttrTypeMask, Nested: typ&AttrNested != 0, Data: b[AttrHdrLen:n]})
		b = b[min(Align(n), len(b)):]
	}
	return attrs
}
