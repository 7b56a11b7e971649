package ctxio

import (
	"context"
	"io"
	"os"
)

// Reader reads from an io.Reader until its context is done.
type Reader struct {
	ctx     context.Context
	r       io.Reader
	pending chan result // the read in flight, if any
	buf     []byte      // what it read beyond the caller's buffer
}

type result struct {
	data []byte
	err  error
}

// NewReader returns a Reader of r that gives up when ctx is done.
func NewReader(ctx context.Context, r io.Reader) *Reader {
	return &Reader{ctx: ctx, r: r}
}

// Read reads into p; it returns ctx.Err() as soon as the context is done,
// even while the underlying read blocks.
func (r *Reader) Read(p []byte) (int, error) {
	if len(r.buf) > 0 {
		n := copy(p, r.buf)
		r.buf = r.buf[n:]
		return n, nil
	}
	if err := r.ctx.Err(); err != nil {
		return 0, err
	}
	if r.pending == nil {
		ch := make(chan result, 1)
		size := len(p)
		go func() {
			b := make([]byte, size)
			n, err := r.r.Read(b)
			ch <- result{b[:n], err}
		}()
		r.pending = ch
	}
	select {
	case res := <-r.pending:
		r.pending = nil
		n := copy(p, res.data)
		r.buf = res.data[n:]
		return n, res.err
	case <-r.ctx.Done():
		return 0, r.ctx.Err()
	}
}

// Open opens path for reading; it returns ctx.Err() as soon as the context
// is done, even while the open blocks (a named pipe without a writer). A
// file opened after that is closed.
func Open(ctx context.Context, path string) (*os.File, error) {
	type opened struct {
		f   *os.File
		err error
	}
	ch := make(chan opened, 1)
	go func() {
		f, err := os.Open(path)
		ch <- opened{f, err}
	}()
	select {
	case o := <-ch:
		return o.f, o.err
	case <-ctx.Done():
		go func() {
			if o := <-ch; o.f != nil {
				o.f.Close()
			}
		}()
		return nil, ctx.Err()
	}
}
