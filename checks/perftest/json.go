package perftest

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// maxDepth bounds the nesting ParseJSON accepts; perftest writes two levels.
const maxDepth = 32

// ParseJSON reads the file perftest writes with --out_json --out_json_file=F:
// {"test_info": {...}, "results": {...}}. perftest releases before the fix for
// linux-rdma/perftest issue #216 (Debian 12's 4.5 among them) wrote keys and
// values without quotes; those files are read leniently and the Report says so
// (Lenient, plus a warning). The JSON does not record the BW unit (Gb/s with
// --report_gbits, MiB/s without); ParseJSON derives it from MsgRate × MsgSize,
// which perftest computes from the same measurement. When nothing tells (no
// message rate), BWUnit stays empty with a warning, and GbpsOf refuses to
// convert.
func ParseJSON(data []byte) (*Report, error) {
	p := &relaxed{s: string(data), line: 1}
	v, err := p.value(0)
	if err == nil {
		p.skipSpace()
		if p.i < len(p.s) {
			err = p.errorf("unexpected %q after the document", p.s[p.i:min(p.i+10, len(p.s))])
		}
	}
	if err != nil {
		return nil, fmt.Errorf("parsing perftest JSON: %w", err)
	}
	top, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("parsing perftest JSON: %w: top level is not an object", ErrBadJSON)
	}
	r := &Report{}
	if !json.Valid(data) {
		r.Lenient = true
		r.Warnings = append(r.Warnings, "invalid JSON (unquoted keys or values, as perftest before issue #216 wrote it) read leniently")
	}
	found := false
	for k, v := range top {
		switch headerKey(k) {
		case "testinfo":
			info, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("parsing perftest JSON: %w: test_info is not an object", ErrBadJSON)
			}
			r.jsonInfo(info)
			found = true
		case "results":
			if err := r.jsonResults(v); err != nil {
				return nil, fmt.Errorf("parsing perftest JSON: %w", err)
			}
			found = true
		}
	}
	if !found {
		return nil, fmt.Errorf("parsing perftest JSON: %w: neither test_info nor results present", ErrBadJSON)
	}
	if len(r.BW) > 0 {
		if u, ok := unitFromRate(r.BW[len(r.BW)-1]); ok {
			r.BWUnit = u
		} else {
			r.Warnings = append(r.Warnings, "the JSON does not say the bandwidth unit (Gb/s with --report_gbits, MiB/s without) and MsgRate × MsgSize cannot tell it")
		}
	}
	return r, nil
}

func (r *Report) jsonInfo(info map[string]any) {
	for _, k := range sortedKeys(info) {
		s := scalarString(info[k])
		if headerKey(k) == "test" {
			r.Title = s
			if t, bidir, postList, ok := testFromTitle(s); ok {
				r.Test, r.Bidirectional, r.PostList = t, bidir, postList
			}
			continue
		}
		r.Header.set(k, s)
	}
}

func (r *Report) jsonResults(v any) error {
	var rows []map[string]any
	switch x := v.(type) {
	case map[string]any:
		rows = append(rows, x)
	case []any:
		for i, e := range x {
			m, ok := e.(map[string]any)
			if !ok {
				return fmt.Errorf("%w: results[%d] is not an object", ErrBadJSON, i)
			}
			rows = append(rows, m)
		}
	default:
		return fmt.Errorf("%w: results is neither an object nor a list", ErrBadJSON)
	}
rows:
	for i, m := range rows {
		var bw BWRow
		var lat LatRow
		isLat := false
		for _, k := range sortedKeys(m) {
			f, ok := m[k].(float64)
			if !ok {
				if _, known := setValue(nil, nil, headerKey(k), 0); known {
					// A result figure that is no number is not absent: the row is not read.
					r.NotNumbers = append(r.NotNumbers, fmt.Sprintf("results[%d].%s: %s", i, k, notNumber(m[k])))
					continue rows
				}
				continue
			}
			bad := notMeasured([]float64{f})
			if bad == "" && isCount(headerKey(k)) {
				bad = notCount(k, f)
			}
			if bad != "" {
				r.NotNumbers = append(r.NotNumbers, fmt.Sprintf("results[%d].%s: %s", i, k, bad))
				continue rows
			}
			l, known := setValue(&bw, &lat, headerKey(k), f)
			isLat = isLat || l
			if !known {
				if bw.Extra == nil {
					bw.Extra = map[string]float64{}
				}
				bw.Extra[k] = f
			}
		}
		if isLat {
			r.Lat = append(r.Lat, lat)
		} else {
			r.BW = append(r.BW, bw)
		}
	}
	return nil
}

// notNumber says why a result value that is not a float64 is no figure.
func notNumber(v any) string {
	if v == nil {
		return "null is not a number"
	}
	if w, ok := v.(string); ok {
		if _, err := strconv.ParseFloat(w, 64); errors.Is(err, strconv.ErrRange) {
			return fmt.Sprintf("%s does not fit a float64", clip(w))
		}
		return fmt.Sprintf("%q is not a number", clip(w))
	}
	return fmt.Sprintf("%s is not a number", clip(fmt.Sprint(v)))
}

// clip shortens a value quoted in a message.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

func scalarString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

// relaxed parses JSON and the near-JSON old perftest wrote: keys and string
// values may be bare words, commas may trail or be missing. Strict JSON is a
// subset, so one reader serves both.
type relaxed struct {
	s    string
	i    int
	line int
}

func (p *relaxed) errorf(format string, a ...any) error {
	return fmt.Errorf("line %d: %w: %s", p.line, ErrBadJSON, fmt.Sprintf(format, a...))
}

func (p *relaxed) skipSpace() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case '\n':
			p.line++
		case ' ', '\t', '\r', ',':
		default:
			return
		}
		p.i++
	}
}

func (p *relaxed) value(depth int) (any, error) {
	if depth > maxDepth {
		return nil, p.errorf("nested deeper than %d levels", maxDepth)
	}
	p.skipSpace()
	if p.i >= len(p.s) {
		return nil, p.errorf("unexpected end of input")
	}
	switch c := p.s[p.i]; c {
	case '{':
		return p.object(depth)
	case '[':
		return p.array(depth)
	case '"':
		return p.quoted()
	case '}', ']', ':':
		return nil, p.errorf("unexpected %q", c)
	default:
		return bareValue(p.word()), nil
	}
}

func (p *relaxed) object(depth int) (map[string]any, error) {
	p.i++ // '{'
	m := map[string]any{}
	for {
		p.skipSpace()
		if p.i >= len(p.s) {
			return nil, p.errorf("object not closed")
		}
		if p.s[p.i] == '}' {
			p.i++
			return m, nil
		}
		var key string
		if p.s[p.i] == '"' {
			k, err := p.quoted()
			if err != nil {
				return nil, err
			}
			key = k
		} else {
			at := p.i
			// word may consume blanks up to the end: name what stood here.
			if key = p.word(); key == "" {
				return nil, p.errorf("expected a key, found %q", p.s[at])
			}
		}
		p.skipBlank()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, p.errorf("expected ':' after key %q", key)
		}
		p.i++
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		m[key] = v
	}
}

func (p *relaxed) array(depth int) ([]any, error) {
	p.i++ // '['
	var a []any
	for {
		p.skipSpace()
		if p.i >= len(p.s) {
			return nil, p.errorf("list not closed")
		}
		if p.s[p.i] == ']' {
			p.i++
			return a, nil
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		a = append(a, v)
	}
}

// skipBlank skips spaces without consuming commas.
func (p *relaxed) skipBlank() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\r') {
		p.i++
	}
}

func (p *relaxed) quoted() (string, error) {
	start := p.i
	p.i++ // opening quote
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case '\\':
			p.i += 2
			continue
		case '\n':
			return "", p.errorf("string not closed before the end of the line")
		case '"':
			p.i++
			var out string
			if err := json.Unmarshal([]byte(p.s[start:p.i]), &out); err != nil {
				return "", p.errorf("bad string %s", p.s[start:p.i])
			}
			return out, nil
		}
		p.i++
	}
	return "", p.errorf("string not closed")
}

// word reads a bare token up to a delimiter or the end of the line.
func (p *relaxed) word() string {
	start := p.i
	for p.i < len(p.s) && !strings.ContainsRune("{}[]:,\"\n", rune(p.s[p.i])) {
		p.i++
	}
	return strings.TrimSpace(p.s[start:p.i])
}

func bareValue(w string) any {
	switch w {
	case "true":
		return true
	case "false":
		return false
	case "null":
		return nil
	}
	if f, err := strconv.ParseFloat(w, 64); err == nil {
		return f
	}
	return w
}
