package dcbnl

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fabricctl/fabricctl/hostcfg/dcbnl/internal/nlwire"
)

// Conn is a Transport on a real NETLINK_ROUTE socket. Requests on one Conn
// are serialised; it is safe for concurrent use. The socket belongs to the
// network namespace it was opened in, whichever namespace later callers run in.
type Conn struct {
	mu  sync.Mutex
	f   *os.File
	rc  syscall.RawConn
	seq uint32
	buf []byte
}

// OpenConn opens a NETLINK_ROUTE socket in the calling thread's network
// namespace.
func OpenConn() (*Conn, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, unix.NETLINK_ROUTE)
	if err != nil {
		return nil, fmt.Errorf("opening netlink socket: %w", err)
	}
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("binding netlink socket: %w", err)
	}
	f := os.NewFile(uintptr(fd), "netlink-route")
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("opening netlink socket: %w", err)
	}
	return &Conn{f: f, rc: rc, seq: uint32(time.Now().UnixNano()), buf: make([]byte, 1<<16)}, nil
}

// OpenConnNetns opens a NETLINK_ROUTE socket inside the network namespace
// whose handle is at nsPath (e.g. /run/netns/NAME, /proc/PID/ns/net). The
// caller's own threads stay where they are: the socket is made on a
// throw-away OS thread.
func OpenConnNetns(nsPath string) (*Conn, error) {
	type result struct {
		c   *Conn
		err error
	}
	ch := make(chan result, 1)
	go func() {
		// Never unlocked: when this goroutine ends, the runtime retires the
		// thread together with its changed namespace.
		runtime.LockOSThread()
		ns, err := unix.Open(nsPath, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			ch <- result{err: fmt.Errorf("opening network namespace %s: %w", nsPath, err)}
			return
		}
		defer unix.Close(ns)
		if err := unix.Setns(ns, unix.CLONE_NEWNET); err != nil {
			ch <- result{err: fmt.Errorf("entering network namespace %s: %w", nsPath, err)}
			return
		}
		c, err := OpenConn()
		ch <- result{c, err}
	}()
	r := <-ch
	return r.c, r.err
}

// Close closes the socket.
func (c *Conn) Close() error { return c.f.Close() }

// Exchange sends req (its nlmsg_seq replaced by the Conn's next sequence
// number) and returns the kernel's reply messages for it, up to and
// including the NLMSG_ERROR that acknowledges or fails it. Cancelling ctx
// abandons the wait; the kernel may still have acted on the request.
func (c *Conn) Exchange(ctx context.Context, req []byte) ([]byte, error) {
	if len(req) < nlwire.HdrLen {
		return nil, fmt.Errorf("exchanging netlink request: %d bytes: %w", len(req), ErrMalformed)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	c.seq++
	seq := c.seq
	msg := append([]byte(nil), req...)
	SetSeq(msg, seq)

	if d, ok := ctx.Deadline(); ok {
		c.f.SetDeadline(d)
	} else {
		c.f.SetDeadline(time.Time{})
	}
	stop := context.AfterFunc(ctx, func() { c.f.SetDeadline(time.Unix(1, 0)) })
	defer stop()

	// Every socket deadline comes from ctx (its deadline, or AfterFunc on
	// cancel), so a timed-out wait means ctx is done or about to be: the
	// poller's timer may fire a moment before the context's own.
	ctxErr := func(err error) error {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			<-ctx.Done()
			return ctx.Err()
		}
		return err
	}

	var opErr error
	err := c.rc.Write(func(fd uintptr) bool {
		opErr = unix.Sendto(int(fd), msg, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK})
		return opErr != unix.EAGAIN
	})
	if err == nil {
		err = opErr
	}
	if err != nil {
		return nil, fmt.Errorf("sending netlink request: %w", ctxErr(err))
	}

	var reply []byte
	for {
		var n int
		var from unix.Sockaddr
		err := c.rc.Read(func(fd uintptr) bool {
			n, from, opErr = unix.Recvfrom(int(fd), c.buf, 0)
			return opErr != unix.EAGAIN
		})
		if err == nil {
			err = opErr
		}
		if err != nil {
			return nil, fmt.Errorf("receiving netlink reply: %w", ctxErr(err))
		}
		if nl, ok := from.(*unix.SockaddrNetlink); !ok || nl.Pid != 0 {
			continue // not from the kernel
		}
		msgs, err := nlwire.SplitMessages(c.buf[:n])
		if err != nil {
			return nil, fmt.Errorf("receiving netlink reply: %w", err)
		}
		done := false
		for _, m := range msgs {
			if order.Uint32(m[8:]) != seq {
				continue // a late answer to an abandoned request
			}
			reply = append(reply, m...)
			for len(reply)%4 != 0 {
				reply = append(reply, 0)
			}
			if t := order.Uint16(m[4:]); t == nlwire.TypeError || t == nlwire.TypeDone {
				done = true
			}
		}
		if done {
			return reply, nil
		}
	}
}
