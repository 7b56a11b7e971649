package kfs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Join joins elem below root.
func Join(root string, elem ...string) string {
	return filepath.Join(append([]string{root}, elem...)...)
}

// ValidName reports whether name is one path element: not empty, no slash
// or NUL, not "." or "..". Names from plans and intents go through it
// before they become paths.
func ValidName(name string) bool {
	return name != "" && !strings.ContainsAny(name, "/\x00") && name != "." && name != ".."
}

// ReadLine reads a one-value attribute and trims surrounding blanks and the newline.
func ReadLine(ctx context.Context, path string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	return strings.TrimSpace(string(b)), nil
}

// WriteLine writes value and a newline to an existing attribute in one
// write(2). A missing attribute wraps fs.ErrNotExist; the kernel's refusal
// (EINVAL, EROFS, EPERM…) is wrapped as it comes.
func WriteLine(ctx context.Context, path, value string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	_, werr := f.WriteString(value + "\n")
	if err := errors.Join(werr, f.Close()); err != nil {
		return fmt.Errorf("writing %q to %s: %w", value, path, err)
	}
	return nil
}
