package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/fabricctl/fabricctl/fabric"
)

// loadFabric loads and validates path with the registered switch platforms. On
// invalid input it prints every located error to stderr and returns an error
// that makes the command exit 1 without printing it again.
func loadFabric(stderr io.Writer, path string) (*fabric.Fabric, error) {
	if path == "" {
		return nil, errors.New("no fabric file: give -f FILE")
	}
	f, err := fabric.Load(path, fabric.Options{Platforms: platforms()})
	if err == nil {
		return f, nil
	}
	var errs fabric.Errors
	if errors.As(err, &errs) {
		for _, e := range errs {
			fmt.Fprintln(stderr, e.Error())
		}
		fmt.Fprintf(stderr, "%s: %d error(s)\n", path, len(errs))
		return nil, exitCodeError{exitError}
	}
	return nil, err
}
