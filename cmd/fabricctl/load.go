package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/fabricctl/fabricctl/fabric"
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

// loadFabric loads and validates path with the registered switch platforms.
// Its warnings go to stderr before the command's results. On invalid input
// it prints every located error to stderr and returns an
// invalidFabricError, which makes the command exit 1 without printing it again.
func loadFabric(stderr io.Writer, path string) (*fabric.Fabric, error) {
	if path == "" {
		return nil, errors.New("no fabric file: give -f FILE")
	}
	f, err := fabric.Load(path, fabric.Options{Platforms: platforms()})
	if err == nil {
		for _, w := range f.Warnings() {
			fmt.Fprintln(stderr, w.String())
		}
		return f, nil
	}
	var errs fabric.Errors
	if errors.As(err, &errs) && len(errs) > 0 {
		for _, e := range errs {
			fmt.Fprintln(stderr, e.Error())
		}
		fmt.Fprintf(stderr, "%s: %d error(s)\n", path, len(errs))
		return nil, invalidFabricError{path, errs}
	}
	return nil, err
}
