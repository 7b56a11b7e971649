package main

import (
	"strings"
	"testing"
)

func TestCheckLocalFlagErrors(t *testing.T) {
	for name, c := range map[string]struct {
		args []string
		want string
	}{
		"host without fabric": {[]string{"check", "--local", "--host", "gpu-01"}, "--host NAME needs -f FABRIC"},
		"remote suite":        {[]string{"check", "--local", "--suite", "pairwise"}, "not available for --local"},
		"with from-dir":       {[]string{"check", "--local", "--from-dir", "."}, "exclude each other"},
		"bad output":          {[]string{"check", "--local", "-o", "xml"}, "not one of table, json, junit, html"},
	} {
		code, out, errs := runCLI(t, c.args...)
		if code != 1 || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("%s: exit %d stdout %q stderr %q, want %q", name, code, out, errs, c.want)
		}
	}
}
