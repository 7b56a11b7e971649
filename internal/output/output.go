package output

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"gopkg.in/yaml.v3"
)

// Formats shared by every command.
const (
	Table = "table"
	JSON  = "json"
	YAML  = "yaml"
)

// Check returns an error when format is not one of allowed (default: table, json, yaml).
func Check(format string, extra ...string) error {
	allowed := append([]string{Table, JSON, YAML}, extra...)
	for _, a := range allowed {
		if a == format {
			return nil
		}
	}
	return fmt.Errorf("unknown output format %q (valid: %s)", format, strings.Join(allowed, ", "))
}

// Write prints v as JSON or YAML, or calls table for the table format.
func Write(w io.Writer, format string, v any, table func(t *TableWriter)) error {
	switch format {
	case JSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	case YAML:
		// Round-trip through JSON so json tags (the documented field names) apply.
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		var generic any
		if err := json.Unmarshal(b, &generic); err != nil {
			return err
		}
		enc := yaml.NewEncoder(w)
		enc.SetIndent(2)
		if err := enc.Encode(generic); err != nil {
			return err
		}
		return enc.Close()
	default:
		t := NewTable(w)
		table(t)
		return t.Flush()
	}
}

// TableWriter aligns columns.
type TableWriter struct{ tw *tabwriter.Writer }

// NewTable returns a table writer on w.
func NewTable(w io.Writer) *TableWriter {
	return &TableWriter{tw: tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)}
}

// Row writes one row.
func (t *TableWriter) Row(cols ...any) {
	s := make([]string, len(cols))
	for i, c := range cols {
		s[i] = fmt.Sprint(c)
	}
	fmt.Fprintln(t.tw, strings.Join(s, "\t"))
}

// Flush writes the aligned table.
func (t *TableWriter) Flush() error { return t.tw.Flush() }

// OrDash is s, or "-" when s is empty (an empty table cell).
func OrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// LogErrors writes each line of err (located errors, joined) as its own "fabricctl: " line on w
// (stderr).
func LogErrors(w io.Writer, err error) {
	for _, l := range strings.Split(err.Error(), "\n") {
		fmt.Fprintf(w, "fabricctl: %s\n", l)
	}
}
