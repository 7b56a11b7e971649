// Package dcbnl speaks the Linux DCB netlink protocol (RTM_GETDCB/RTM_SETDCB,
// IEEE 802.1Qaz commands). Tutorial to follow.
package dcbnl
