package ctxio

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// IsTerminal reports whether v is an *os.File on a terminal (a character device).
func IsTerminal(v any) bool {
	f, ok := v.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// Confirm asks question (with " [y/N] ") on prompt and reads the answer, one line, from in: true
// for y or yes. A non-terminal file as in is refused rather than guessed (pass --yes), as is an
// in that ends without an answer; reading gives way to ctx.
func Confirm(ctx context.Context, in io.Reader, prompt io.Writer, question string) (bool, error) {
	if f, ok := in.(*os.File); ok && !IsTerminal(f) {
		return false, errors.New("refusing to apply without confirmation: stdin is not a terminal; pass --yes")
	}
	fmt.Fprintf(prompt, "%s [y/N] ", question)
	line, err := bufio.NewReader(NewReader(ctx, in)).ReadString('\n')
	if ctx.Err() != nil {
		return false, fmt.Errorf("waiting for confirmation: %w", ctx.Err())
	}
	if err != nil && line == "" {
		return false, errors.New("refusing to apply: no confirmation on stdin; pass --yes")
	}
	a := strings.ToLower(strings.TrimSpace(line))
	return a == "y" || a == "yes", nil
}
