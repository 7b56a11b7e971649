package output

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"gopkg.in/yaml.v3"
)

// Formats shared by every command.
const (
	Table = "table"
	// Wide is the table with every column, in full: nothing wraps or is
	// cut (kubectl's -o wide). Wherever Table is accepted, so is Wide.
	Wide = "wide"
	JSON = "json"
	YAML = "yaml"
)

// Check returns an error when format is not one of allowed (default: table, wide, json, yaml).
func Check(format string, extra ...string) error {
	allowed := append([]string{Table, Wide, JSON, YAML}, extra...)
	for _, a := range allowed {
		if a == format {
			return nil
		}
	}
	return fmt.Errorf("unknown output format %q (valid: %s)", format, strings.Join(allowed, ", "))
}

// Write prints v as JSON or YAML, or calls table for the table formats
// (Wide: a table whose Term is Wide), then flushes the table.
func Write(w io.Writer, format string, v any, table func(t *TableWriter)) error {
	v = WithKind(v) // kind.go: a Kinded document's "kind" next to its apiVersion
	switch format {
	case JSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	case YAML:
		// Round-trip through JSON so json tags (the documented field names)
		// apply, keeping the JSON's field order (the struct's) and its
		// numbers as written: 2097152, not 2.097152e+06.
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		node, err := yamlNode(dec)
		if err != nil {
			return fmt.Errorf("converting to YAML: %w", err)
		}
		enc := yaml.NewEncoder(w)
		enc.SetIndent(2)
		if err := enc.Encode(node); err != nil {
			return err
		}
		return enc.Close()
	default:
		term := TermOf(w)
		term.Wide = term.Wide || format == Wide
		t := NewTableFor(w, term)
		table(t)
		return t.Flush()
	}
}

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

// yamlNode reads one JSON value from dec into a YAML node: objects keep
// their key order, numbers their literal text, strings stay strings.
func yamlNode(dec *json.Decoder) (*yaml.Node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, _ := k.(string)
				v, err := yamlNode(dec)
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, v)
			}
			_, err := dec.Token() // '}'
			return n, err
		case '[':
			n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
			for dec.More() {
				v, err := yamlNode(dec)
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, v)
			}
			if len(n.Content) == 0 {
				n.Style = yaml.FlowStyle // []
			}
			_, err := dec.Token() // ']'
			return n, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	case json.Number:
		tag := "!!int"
		if strings.ContainsAny(t.String(), ".eE") {
			tag = "!!float"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: t.String()}, nil
	case string:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: t}, nil
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: fmt.Sprint(t)}, nil
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}, nil
	}
	return nil, fmt.Errorf("unexpected JSON token %v", tok)
}
