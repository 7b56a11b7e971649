package nccl

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/fabricctl/fabricctl/internal/ctxio"
)

// AnalyzeFiles opens every log ("-" is stdin) and analyses them together. A log that cannot be
// opened is listed among the analysis' errors, like one without NCCL output, and the others are
// analysed all the same; the error is the joined source errors when nothing could be analysed.
// Opening gives way to ctx (a named pipe may never get its writer).
func AnalyzeFiles(ctx context.Context, stdin io.Reader, opt Options, paths []string) (*Analysis, error) {
	var srcs []Source
	var unopened []SourceError
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if p == "-" {
			srcs = append(srcs, Source{Name: "stdin", R: ctxio.NewReader(ctx, stdin)})
			continue
		}
		f, err := ctxio.Open(ctx, p)
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr
		}
		if err != nil {
			err = fmt.Errorf("opening NCCL log: %w", err)
			unopened = append(unopened, SourceError{Source: p, Message: err.Error(), Err: err})
			continue
		}
		defer f.Close()
		srcs = append(srcs, Source{Name: p, R: f})
	}
	a, err := Analyze(opt, srcs...)
	a.Errors = append(unopened, a.Errors...)
	if err != nil || len(srcs) == 0 {
		var errs []error
		for _, e := range a.Errors {
			errs = append(errs, e)
		}
		return nil, errors.Join(errs...)
	}
	return a, nil
}
