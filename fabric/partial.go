package fabric

import "strings"

// Validation of what decoded. A file with a decode error and a semantic
// error reports both in one run: validation runs on whatever decoded, and
// stays quiet where the decoder already spoke. A value that did not decode
// is left zero, so a semantic rule about it, about what lies under it, or
// about what holds it (a sum over classes, "required") would only repeat
// the decode error in other words; those paths are recorded here and the
// validator drops its findings on them. Unknown fields and duplicate keys
// leave the value whole and record nothing (except the field an unknown
// key most likely misspells: "mtus" marks "mtu", whose "required" would
// repeat the hint). References across the document (a profile's name, a
// class name, a host's labels) are checked only where what they point at
// decoded whole.

// lossyPaths holds, per positions document, the paths whose values did not
// decode.
type lossyPaths struct {
	byDoc map[string][]string
}

func (l *lossyPaths) add(doc, path string) {
	if l == nil {
		return
	}
	if l.byDoc == nil {
		l.byDoc = map[string][]string{}
	}
	if len(l.byDoc[doc]) < maxErrors { // bounded like the errors that made them
		l.byDoc[doc] = append(l.byDoc[doc], path)
	}
}

// quiet reports whether a finding at path of doc would repeat a decode
// error: path is a value that did not decode or lies under one, or holds
// one directly (the "required: …" of a mapping whose field did not decode).
// Findings further up (a sum over every class) stand unless their own
// inputs did not decode; they ask related.
func (l *lossyPaths) quiet(doc, path string) bool {
	if l == nil {
		return false
	}
	for _, p := range l.byDoc[doc] {
		if within(path, p) || parent(p) == path {
			return true
		}
	}
	return false
}

// parent is the path holding path ("a.b[2]" holds "a.b[2].c", "a.b" holds
// "a.b[2]"), "" at the top.
func parent(path string) string {
	i := strings.LastIndexAny(path, ".[")
	if i < 0 {
		return ""
	}
	return path[:i]
}

// related reports whether anything at or under path of doc, or holding
// it, did not decode: what a finding that reads all of path depends on.
func (l *lossyPaths) related(doc, path string) bool {
	if l == nil {
		return false
	}
	for _, p := range l.byDoc[doc] {
		if within(path, p) || within(p, path) {
			return true
		}
	}
	return false
}

// within reports whether path is base or lies under it ("a.b[2].c" is
// within "a.b" and "a.b[2]", not within "a.bc"); every path is within "".
func within(path, base string) bool {
	if base == "" || path == base {
		return true
	}
	if !strings.HasPrefix(path, base) {
		return false
	}
	c := path[len(base)]
	return c == '.' || c == '['
}
