package hostcfg

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/infile"
)

// ReadDesired reads a host's desired state from a HostIntent JSON file as
// `fabricctl render` writes it, decoded strictly (unknown fields, a second
// document, another apiVersion and nameless interfaces are errors); errors
// name FILE:LINE:COL where the decoder knows the offset. Only a regular
// file within infile.MaxDocument is read (a FIFO or device is refused at
// once), and reading gives way to ctx.
func ReadDesired(ctx context.Context, path string) (*fabric.HostIntent, error) {
	b, err := infile.ReadFile(ctx, path, infile.MaxDocument)
	if err != nil {
		return nil, fmt.Errorf("reading desired state: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var hi fabric.HostIntent
	if err := dec.Decode(&hi); err != nil {
		var off int64 = -1
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			off = se.Offset
		case errors.As(err, &te):
			off = te.Offset
		}
		if off >= 0 {
			line, col := position(b, off)
			return nil, fmt.Errorf("%s:%d:%d: decoding desired state: %w", path, line, col, err)
		}
		return nil, fmt.Errorf("%s: decoding desired state: %w", path, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%s: decoding desired state: more than one JSON document", path)
	}
	if hi.APIVersion != fabric.APIVersion {
		return nil, fmt.Errorf("%s: apiVersion %q is not %q", path, hi.APIVersion, fabric.APIVersion)
	}
	for i, in := range hi.Interfaces {
		if in.Name == "" {
			return nil, fmt.Errorf("%s: interfaces[%d]: no name", path, i)
		}
	}
	// Numbers and names as the agent checks them: a priority of 9 or a
	// netdev "../../etc" is refused here, not dropped or followed later.
	if err := hi.Check("desired"); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &hi, nil
}

// position turns a byte offset into a 1-based line and column.
func position(b []byte, off int64) (line, col int) {
	off = min(max(off, 0), int64(len(b)))
	before := b[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}
