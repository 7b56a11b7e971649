package remote

import (
	"bytes"
	"context"
	"io"
	"os"
	"sync"
)

// Lazy is a Client that connects on first use and reconnects after the
// connection dies. It is safe for concurrent use.
type Lazy struct {
	Config Config

	mu sync.Mutex
	c  *Client
}

func (l *Lazy) get(ctx context.Context) (*Client, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.c != nil {
		return l.c, nil
	}
	c, err := Dial(ctx, l.Config)
	if err != nil {
		return nil, err
	}
	l.c = c
	return c, nil
}

func (l *Lazy) drop(c *Client) {
	l.mu.Lock()
	if l.c == c {
		l.c.Close()
		l.c = nil
	}
	l.mu.Unlock()
}

// Run is Client.Run over the lazily opened connection.
func (l *Lazy) Run(ctx context.Context, argv []string, stdin io.Reader, stdout, stderr io.Writer) error {
	c, err := l.get(ctx)
	if err != nil {
		return err
	}
	err = c.Run(ctx, argv, stdin, stdout, stderr)
	if err != nil && c.dead() {
		l.drop(c)
	}
	return err
}

// Upload is Client.Upload over the lazily opened connection.
func (l *Lazy) Upload(ctx context.Context, path string, data []byte, mode os.FileMode) error {
	c, err := l.get(ctx)
	if err != nil {
		return err
	}
	return c.Upload(ctx, path, data, mode)
}

// Output runs argv with stdin and returns stdout: the Runner shape other
// packages (switchcfg/opensm) use.
func (l *Lazy) Output(ctx context.Context, argv []string, stdin []byte) ([]byte, error) {
	var out bytes.Buffer
	var in io.Reader
	if stdin != nil {
		in = bytes.NewReader(stdin)
	}
	err := l.Run(ctx, argv, in, &out, nil)
	return out.Bytes(), err
}

// Close closes the connection if one is open.
func (l *Lazy) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.c == nil {
		return nil
	}
	err := l.c.Close()
	l.c = nil
	return err
}

// dead reports whether the connection is closed.
func (c *Client) dead() bool {
	_, _, err := c.client.SendRequest("keepalive@openssh.com", true, nil)
	return err != nil
}
