package report

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/fabricctl/fabricctl/fabric"
)

// document is the JSON form of a Report: the report plus its summary.
type document struct {
	*Report
	Summary Summary `json:"summary"`
}

// WriteJSON writes r as indented JSON with apiVersion and kind, its lists
// sorted (see Report) and a summary of the counts, so that two runs over the
// same fabric diff cleanly.
func WriteJSON(w io.Writer, r *Report) error {
	s, err := r.sorted()
	if err != nil {
		return fmt.Errorf("writing JSON report: %w", err)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(document{Report: s, Summary: s.Summary()}); err != nil {
		return fmt.Errorf("writing JSON report: %w", err)
	}
	return nil
}

// ReadJSON reads a report written by WriteJSON (for instance to render it as
// HTML later). Unknown fields, another apiVersion and invalid entries are
// errors; the summary is recomputed, not trusted.
func ReadJSON(rd io.Reader) (*Report, error) {
	var d document
	d.Report = &Report{}
	dec := json.NewDecoder(rd)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		return nil, fmt.Errorf("reading JSON report: %w", err)
	}
	if d.APIVersion != fabric.APIVersion || d.Kind != Kind {
		return nil, fmt.Errorf("reading JSON report: apiVersion %q kind %q, want %s %s: %w",
			d.APIVersion, d.Kind, fabric.APIVersion, Kind, ErrInvalid)
	}
	if err := d.Validate(); err != nil {
		return nil, fmt.Errorf("reading JSON report: %w", err)
	}
	return d.Report, nil
}
