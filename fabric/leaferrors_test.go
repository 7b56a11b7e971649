package fabric

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// sliceError cannot be compared with ==: leafErrors must not compare
// errors (that panicked when a renderer's error held a slice).
type sliceError struct{ lines []string }

func (e sliceError) Error() string { return fmt.Sprint(e.lines) }

func TestLeafErrorsOfUncomparableErrors(t *testing.T) {
	single := fmt.Errorf("sonic: %w", sliceError{[]string{"a"}})
	if got := leafErrors(single); len(got) != 1 || got[0] != single {
		t.Fatalf("one wrapped error: %v", got)
	}
	joined := fmt.Errorf("junos: %w", errors.Join(sliceError{[]string{"a"}}, AtField("pfc.watchdog.pollInterval", errors.New("b"))))
	got := leafErrors(joined)
	if len(got) != 2 || got[0].Error() != "junos: [a]" || got[1].Error() != "junos: b" {
		t.Fatalf("joined: %q", got)
	}
	var fe *FieldError
	if !errors.As(got[1], &fe) || fe.Field != "pfc.watchdog.pollInterval" {
		t.Fatalf("the field error is lost: %v", got[1])
	}
}

// A flow list left open is reported at the line whose token did not fit
// (yaml.v3's own line), not at an earlier line inside the list that a
// prefix search would pick (a prefix cut inside the list fails alike).
func TestYAMLFlowListErrorNotMislocated(t *testing.T) {
	data := []byte("a: [1,\n  2,\n  3\nb: 1\n")
	var v any
	err := yaml.Unmarshal(data, &v)
	if err == nil {
		t.Fatal("yaml.v3 accepted a broken flow list")
	}
	e := yamlError("f.yaml", data, err)
	if e.Pos.Line != 4 || !strings.Contains(e.Msg, "a flow list above is missing a ',' or its closing bracket") {
		t.Fatalf("got %d:%d %s", e.Pos.Line, e.Pos.Col, e.Msg)
	}
}
