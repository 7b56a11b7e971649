package dcbnl

import (
	"context"
	"fmt"
	"io"
)

// Transport carries one raw netlink request to a DCB kernel and returns every
// message of its reply (see DecodeIEEE). *Conn talks to the real kernel;
// dcbfake.Kernel is a fake one for tests.
type Transport interface {
	Exchange(ctx context.Context, req []byte) ([]byte, error)
}

// Client issues DCB requests through a Transport: one netlink request per
// method call, one attribute per write. It is safe for concurrent use when
// its Transport is (both Conn and dcbfake.Kernel are).
type Client struct {
	t Transport
}

// New returns a Client using t.
func New(t Transport) *Client { return &Client{t: t} }

// Open returns a Client on a fresh NETLINK_ROUTE socket in the caller's
// network namespace. Close it when done.
func Open() (*Client, error) {
	c, err := OpenConn()
	if err != nil {
		return nil, err
	}
	return New(c), nil
}

// Close closes the Transport when it is an io.Closer.
func (c *Client) Close() error {
	if cl, ok := c.t.(io.Closer); ok {
		return cl.Close()
	}
	return nil
}

func (c *Client) exchange(ctx context.Context, req []byte, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	return c.t.Exchange(ctx, req)
}

// write sends a SET/DEL request and decodes its status.
func (c *Client) write(ctx context.Context, what, ifname string, req []byte, err error) error {
	reply, err := c.exchange(ctx, req, err)
	if err == nil {
		err = DecodeStatus(reply)
	}
	if err != nil {
		return fmt.Errorf("%s on %s: %w", what, ifname, err)
	}
	return nil
}

// GetIEEE reads ifname's IEEE DCB state (DCB_CMD_IEEE_GET).
func (c *Client) GetIEEE(ctx context.Context, ifname string) (IEEEState, error) {
	req, err := EncodeIEEEGet(ifname)
	reply, err := c.exchange(ctx, req, err)
	if err != nil {
		return IEEEState{}, fmt.Errorf("reading dcb state of %s: %w", ifname, err)
	}
	st, err := DecodeIEEE(reply)
	if err != nil {
		return IEEEState{}, fmt.Errorf("reading dcb state of %s: %w", ifname, err)
	}
	return st, nil
}

// GetDCBX reads ifname's DCBX mode (DCB_CMD_GDCBX).
func (c *Client) GetDCBX(ctx context.Context, ifname string) (uint8, error) {
	req, err := EncodeGetDCBX(ifname)
	reply, err := c.exchange(ctx, req, err)
	if err != nil {
		return 0, fmt.Errorf("reading dcbx mode of %s: %w", ifname, err)
	}
	mode, err := DecodeDCBX(reply)
	if err != nil {
		return 0, fmt.Errorf("reading dcbx mode of %s: %w", ifname, err)
	}
	return mode, nil
}

// SetDCBX writes ifname's DCBX mode (DCB_CMD_SDCBX), e.g. DCBXHostIEEE.
func (c *Client) SetDCBX(ctx context.Context, ifname string, mode uint8) error {
	req, err := EncodeSetDCBX(ifname, mode)
	return c.write(ctx, "setting dcbx mode", ifname, req, err)
}

// SetETS writes the whole ieee_ets struct. Prefer UpdateETS, which reads
// first and writes only a difference.
func (c *Client) SetETS(ctx context.Context, ifname string, ets ETS) error {
	req, err := EncodeIEEESetETS(ifname, ets)
	return c.write(ctx, "setting ETS", ifname, req, err)
}

// SetPFC writes the whole ieee_pfc struct. On mlx5 a changed pfc_en flaps
// the link; prefer UpdatePFC, which writes only a difference.
func (c *Client) SetPFC(ctx context.Context, ifname string, pfc PFC) error {
	req, err := EncodeIEEESetPFC(ifname, pfc)
	return c.write(ctx, "setting PFC", ifname, req, err)
}

// SetMaxrate writes the whole ieee_maxrate struct.
func (c *Client) SetMaxrate(ctx context.Context, ifname string, m Maxrate) error {
	req, err := EncodeIEEESetMaxrate(ifname, m)
	return c.write(ctx, "setting maxrate", ifname, req, err)
}

// SetBuffer writes the whole dcbnl_buffer struct.
func (c *Client) SetBuffer(ctx context.Context, ifname string, b Buffer) error {
	req, err := EncodeIEEESetBuffer(ifname, b)
	return c.write(ctx, "setting buffers", ifname, req, err)
}

// SetTrust writes the app trust table: the trusted selectors, first wins.
func (c *Client) SetTrust(ctx context.Context, ifname string, selectors []Selector) error {
	req, err := EncodeIEEESetAppTrust(ifname, selectors)
	return c.write(ctx, "setting app trust", ifname, req, err)
}

// AddApps adds APP table entries in one request; the kernel stops at the
// first failing entry and keeps the earlier ones. ReconcileApps is the
// careful way to reach a desired table.
func (c *Client) AddApps(ctx context.Context, ifname string, apps []App) error {
	req, err := EncodeIEEESetApp(ifname, apps)
	return c.write(ctx, "adding app entries", ifname, req, err)
}

// DelApps deletes APP table entries in one request (each must match exactly).
func (c *Client) DelApps(ctx context.Context, ifname string, apps []App) error {
	req, err := EncodeIEEEDelApp(ifname, apps)
	return c.write(ctx, "deleting app entries", ifname, req, err)
}
