package nccl

import (
	"context"
	"errors"
	"io"

	"github.com/fabricctl/fabricctl/internal/ctxio"
	"github.com/fabricctl/fabricctl/internal/infile"
)

// AnalyzeFiles analyses every log ("-" is stdin) together. Each file is
// opened only when its turn comes and closed after it, so that 50,000 logs
// need one descriptor at a time; only regular files are read (a FIFO or
// device is refused at once, as every user-named input is: infile). A log
// that cannot be read is listed among the analysis' errors, like one
// without NCCL output, and the others are analysed all the same; the error
// is the joined source errors when nothing could be analysed. Reading gives
// way to ctx, stdin included.
func AnalyzeFiles(ctx context.Context, stdin io.Reader, opt Options, paths []string) (*Analysis, error) {
	var srcs []Source
	for _, p := range paths {
		if p == "-" {
			srcs = append(srcs, Source{Name: "stdin", R: ctxio.NewReader(ctx, stdin)})
			continue
		}
		srcs = append(srcs, Source{Name: p, R: &fileSource{ctx: ctx, path: p}})
	}
	a, err := Analyze(opt, srcs...)
	if cerr := ctx.Err(); cerr != nil {
		return nil, cerr
	}
	if err != nil || len(srcs) == 0 {
		var errs []error
		for _, e := range a.Errors {
			errs = append(errs, e)
		}
		return nil, errors.Join(errs...)
	}
	return a, nil
}

// fileSource opens a log file when first read and closes it at its end.
type fileSource struct {
	ctx  context.Context
	path string
	r    io.ReadCloser
	done bool
}

func (l *fileSource) Read(p []byte) (int, error) {
	if l.done {
		return 0, io.EOF
	}
	if l.r == nil {
		r, err := infile.Open(l.ctx, l.path, -1)
		if e := (*infile.Error)(nil); errors.As(err, &e) {
			err = e.Err // the analysis names the log already
		}
		if err != nil {
			l.done = true
			return 0, err
		}
		l.r = r
	}
	n, err := l.r.Read(p)
	if err != nil {
		l.r.Close()
		l.done = true
	}
	return n, err
}
