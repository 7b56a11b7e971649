package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/ctxio"
	"github.com/fabricctl/fabricctl/internal/infile"
)

// -f - reads the fabric from standard input; messages name it stdinName,
// and its includes resolve relative to the working directory.
const (
	stdinArg  = "-"
	stdinName = "<stdin>"
)

// invalidFabricError: the fabric file did not load; its located errors went to stderr already.
// It makes the command exit 1 without printing it again (it unwraps to exitCodeError); -o nhc
// reads it for its one line.
type invalidFabricError struct {
	path string
	errs fabric.Errors
}

func (e invalidFabricError) Error() string {
	return fmt.Sprintf("%s: %d error(s), the first %s", e.path, len(e.errs), e.errs[0].Error())
}

func (e invalidFabricError) Unwrap() error { return exitCodeError{exitError} }

// fabricSource names the fabric of -f path in messages: path, or <stdin>.
func fabricSource(path string) string {
	if path == stdinArg {
		return stdinName
	}
	return path
}

// readStdinFabric reads the fabric of -f - from standard input, giving way
// to ctx, within infile.MaxDocument (the fabric's own input limit, smaller,
// is then checked as for a file).
func readStdinFabric(ctx context.Context, g *globals) ([]byte, error) {
	if g.stdin == nil {
		return nil, errors.New("reading the fabric: -f - names standard input, and there is none")
	}
	data, err := infile.ReadAll(ctx, stdinName, ctxio.NewReader(ctx, g.stdin), infile.MaxDocument)
	if err != nil {
		return nil, fmt.Errorf("reading the fabric: %w", err)
	}
	return data, nil
}

// loadFabric loads and validates the fabric of -f path ("-": standard
// input) with the registered switch platforms; every command that takes a
// fabric loads it here. Its warnings go to stderr before the command's
// results. On invalid input it prints every located error to stderr and
// returns an invalidFabricError, which makes the command exit 1 without
// printing it again.
func (g *globals) loadFabric(ctx context.Context, path string) (*fabric.Fabric, error) {
	if path == "" {
		return nil, errors.New("no fabric file: give -f FILE (- reads standard input)")
	}
	if ctx == nil {
		ctx = context.Background()
	}
	opts := fabric.Options{Platforms: platforms()}
	var f *fabric.Fabric
	var err error
	if path == stdinArg {
		data, rerr := readStdinFabric(ctx, g)
		if rerr != nil {
			return nil, rerr
		}
		f, err = fabric.LoadBytes(stdinName, data, opts)
	} else {
		f, err = fabric.Load(path, opts)
	}
	if err == nil {
		for _, w := range f.Warnings() {
			fmt.Fprintln(g.stderr, w.String())
		}
		return f, nil
	}
	var errs fabric.Errors
	if errors.As(err, &errs) && len(errs) > 0 {
		for _, e := range errs {
			fmt.Fprintln(g.stderr, e.Error())
		}
		fmt.Fprintf(g.stderr, "%s: %d error(s)\n", fabricSource(path), len(errs))
		return nil, invalidFabricError{fabricSource(path), errs}
	}
	return nil, err
}

// stdinTaken refuses -f - where the command reads standard input for
// something else too: other says what, remedy what to do instead.
func stdinTaken(path, other, remedy string) error {
	if path == stdinArg {
		return fmt.Errorf("-f - reads the fabric from standard input, where %s: %s", other, remedy)
	}
	return nil
}
