// Package nlwire is the byte-level netlink plumbing of hostcfg/dcbnl and
// its fake kernel, hostcfg/dcbnl/dcbfake.
//
// A request is built with a Builder:
//
//	b := nlwire.NewMessage(78 /* RTM_GETDCB */, nlwire.FlagRequest|nlwire.FlagAck, 0, 0)
//	b.Raw([]byte{0, 21, 0, 0}) // struct dcbmsg
//	b.StringZ(1, "eth0")       // DCB_ATTR_IFNAME
//	msg := b.Bytes()
//
// and a reply is taken apart with ParseMessages, ParseAttrs (which masks
// NLA_F_NESTED off the type and reports it separately) and ParseError.
// Parsing never panics: every length is checked against what is left and a
// bad one is an error wrapping ErrMalformed.
//
// The functions are safe for concurrent use; a Builder is not.
package nlwire
