package sim

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// This file applies RFC 6902 JSON patches (what SONiC's generic config
// updater takes) to a JSON document held as map[string]any / []any.

// patchOp is one operation of a JSON patch.
type patchOp struct {
	Op    string          `json:"op"`
	Path  string          `json:"path"`
	From  string          `json:"from,omitempty"`
	Value json.RawMessage `json:"value,omitempty"`
}

// parsePatch decodes a JSON patch document.
func parsePatch(b []byte) ([]patchOp, error) {
	var ops []patchOp
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ops); err != nil {
		return nil, fmt.Errorf("decoding JSON patch: %w", err)
	}
	if dec.More() {
		return nil, errors.New("decoding JSON patch: trailing data after the patch")
	}
	for i, op := range ops {
		switch op.Op {
		case "add", "replace", "test":
			if op.Value == nil {
				return nil, fmt.Errorf("operation %d (%s %s) has no value", i, op.Op, op.Path)
			}
		case "remove":
		case "move", "copy":
			if op.From == "" {
				return nil, fmt.Errorf("operation %d (%s %s) has no from", i, op.Op, op.Path)
			}
		default:
			return nil, fmt.Errorf("operation %d has unknown op %q", i, op.Op)
		}
	}
	return ops, nil
}

// pointer splits a JSON pointer into unescaped tokens.
func pointer(p string) ([]string, error) {
	if p == "" {
		return nil, nil
	}
	if !strings.HasPrefix(p, "/") {
		return nil, fmt.Errorf("path %q does not start with /", p)
	}
	toks := strings.Split(p[1:], "/")
	for i, t := range toks {
		toks[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	return toks, nil
}

// applyPatch returns doc with ops applied; doc itself is not modified.
func applyPatch(doc map[string]any, ops []patchOp) (map[string]any, error) {
	var root any = deepCopyAny(doc)
	for i, op := range ops {
		var err error
		root, err = applyOp(root, op)
		if err != nil {
			return nil, fmt.Errorf("operation %d (%s %s): %w", i, op.Op, op.Path, err)
		}
	}
	m, ok := root.(map[string]any)
	if !ok {
		return nil, errors.New("the patch replaced the document with a non-object")
	}
	return m, nil
}

func applyOp(root any, op patchOp) (any, error) {
	path, err := pointer(op.Path)
	if err != nil {
		return nil, err
	}
	var value any
	if op.Value != nil {
		if err := json.Unmarshal(op.Value, &value); err != nil {
			return nil, fmt.Errorf("decoding value: %w", err)
		}
	}
	switch op.Op {
	case "add":
		return addAt(root, path, value)
	case "remove":
		return removeAt(root, path)
	case "replace":
		if _, err := getAt(root, path); err != nil {
			return nil, err
		}
		root, err = removeAt(root, path)
		if err != nil {
			return nil, err
		}
		return addAt(root, path, value)
	case "test":
		got, err := getAt(root, path)
		if err != nil {
			return nil, err
		}
		if !reflect.DeepEqual(got, value) {
			return nil, errors.New("test failed: value differs")
		}
		return root, nil
	case "move", "copy":
		from, err := pointer(op.From)
		if err != nil {
			return nil, err
		}
		v, err := getAt(root, from)
		if err != nil {
			return nil, err
		}
		v = deepCopyAny(v)
		if op.Op == "move" {
			if root, err = removeAt(root, from); err != nil {
				return nil, err
			}
		}
		return addAt(root, path, v)
	}
	return nil, fmt.Errorf("unknown op %q", op.Op)
}

func getAt(root any, path []string) (any, error) {
	cur := root
	for _, t := range path {
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[t]
			if !ok {
				return nil, fmt.Errorf("member %q does not exist", t)
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(c) {
				return nil, fmt.Errorf("index %q is out of range", t)
			}
			cur = c[i]
		default:
			return nil, fmt.Errorf("cannot descend into a scalar at %q", t)
		}
	}
	return cur, nil
}

// addAt adds value at path (RFC 6902 "add": replaces an object member,
// inserts into an array).
func addAt(root any, path []string, value any) (any, error) {
	if len(path) == 0 {
		return value, nil
	}
	parent, err := getAt(root, path[:len(path)-1])
	if err != nil {
		return nil, err
	}
	last := path[len(path)-1]
	switch p := parent.(type) {
	case map[string]any:
		p[last] = value
		return root, nil
	case []any:
		i := len(p)
		if last != "-" {
			i, err = strconv.Atoi(last)
			if err != nil || i < 0 || i > len(p) {
				return nil, fmt.Errorf("index %q is out of range", last)
			}
		}
		p = append(p, nil)
		copy(p[i+1:], p[i:])
		p[i] = value
		return setAt(root, path[:len(path)-1], p)
	}
	return nil, fmt.Errorf("cannot add under a scalar at %q", last)
}

func removeAt(root any, path []string) (any, error) {
	if len(path) == 0 {
		return nil, errors.New("cannot remove the whole document")
	}
	parent, err := getAt(root, path[:len(path)-1])
	if err != nil {
		return nil, err
	}
	last := path[len(path)-1]
	switch p := parent.(type) {
	case map[string]any:
		if _, ok := p[last]; !ok {
			return nil, fmt.Errorf("member %q does not exist", last)
		}
		delete(p, last)
		return root, nil
	case []any:
		i, err := strconv.Atoi(last)
		if err != nil || i < 0 || i >= len(p) {
			return nil, fmt.Errorf("index %q is out of range", last)
		}
		p = append(p[:i:i], p[i+1:]...)
		return setAt(root, path[:len(path)-1], p)
	}
	return nil, fmt.Errorf("cannot remove under a scalar at %q", last)
}

// setAt replaces the value at path (used to store a resized array).
func setAt(root any, path []string, v any) (any, error) {
	if len(path) == 0 {
		return v, nil
	}
	parent, err := getAt(root, path[:len(path)-1])
	if err != nil {
		return nil, err
	}
	last := path[len(path)-1]
	switch p := parent.(type) {
	case map[string]any:
		p[last] = v
	case []any:
		i, _ := strconv.Atoi(last)
		p[i] = v
	}
	return root, nil
}

func deepCopyAny(v any) any {
	switch t := v.(type) {
	case map[string]any:
		c := make(map[string]any, len(t))
		for k, x := range t {
			c[k] = deepCopyAny(x)
		}
		return c
	case []any:
		c := make([]any, len(t))
		for i, x := range t {
			c[i] = deepCopyAny(x)
		}
		return c
	}
	return v
}

// leafChanges lists the minimal operations that turn a into b, one per
// changed leaf or whole added/removed subtree, as GCU prints its changes.
func leafChanges(a, b map[string]any, prefix string) []string {
	var out []string
	for _, k := range sortedMapKeys(b) {
		p := prefix + "/" + strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
		av, ok := a[k]
		bm, bIsObj := b[k].(map[string]any)
		am, aIsObj := av.(map[string]any)
		switch {
		case !ok:
			out = append(out, changeText("add", p, b[k]))
		case bIsObj && aIsObj:
			out = append(out, leafChanges(am, bm, p)...)
		case !reflect.DeepEqual(av, b[k]):
			out = append(out, changeText("replace", p, b[k]))
		}
	}
	for _, k := range sortedMapKeys(a) {
		if _, ok := b[k]; !ok {
			p := prefix + "/" + strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
			out = append(out, changeText("remove", p, nil))
		}
	}
	return out
}

func changeText(op, path string, v any) string {
	m := map[string]any{"op": op, "path": path}
	if op != "remove" {
		m["value"] = v
	}
	b, _ := json.Marshal([]any{m})
	return string(b)
}
