package fabric

import (
	"bytes"
	"sync"

	"gopkg.in/yaml.v3"
)

// A fabric of thousands of hosts is one long block sequence under
// spec.hosts, and yaml.v3 parses about 6 MB/s: most of a large fabric's load
// time, on one CPU. parseSplit parses that sequence in pieces, in parallel,
// and grafts them into the rest of the document.
//
// It applies only where the pieces must parse as the whole would: a single
// document without directives, a "spec:" key at column 0 holding a block
// key "hosts:", whose block sequence items start at one indentation, with
// no anchor or alias in the sequence (an anchor or alias would tie pieces
// together). A line starting "- " at the items' indentation cannot continue
// a multi-line scalar or block scalar of the item before it (those must be
// more indented), so every piece boundary is a real item boundary; a flow
// collection spanning lines that a boundary cut would fail to parse, and
// any failure falls back to parsing the whole file, which also gives
// yaml.v3's own error. Line numbers are shifted back to the file's.

// Below these one parse is as fast (variables for the tests).
var (
	splitMinBytes = 64 << 10
	splitMinItems = 64
)

// parseSplit returns the document of data, or false when it does not have
// the shape above or any piece fails.
func parseSplit(data []byte, pieces int) (*yaml.Node, bool) {
	if pieces < 2 || len(data) < splitMinBytes {
		return nil, false
	}
	if otherBreaks(data) {
		return nil, false // lines here are split at "\n" only
	}
	lines := lineStarts(data)
	line := func(i int) []byte { // line i (0-based) without its newline
		end := len(data)
		if i+1 < len(lines) {
			end = lines[i+1] - 1
		}
		return bytes.TrimRight(data[lines[i]:end], "\r\n")
	}
	hostsLine, hostsInd, spec, specInd := -1, 0, false, -1
	for i := range lines {
		l := line(i)
		if bytes.HasPrefix(l, []byte("---")) || bytes.HasPrefix(l, []byte("...")) || bytes.HasPrefix(l, []byte("%")) {
			return nil, false // more than one document, or directives
		}
		ind, rest := indentOf(l)
		if !content(rest) {
			continue
		}
		if ind == 0 {
			spec, specInd = isKey(rest, "spec"), -1
			continue
		}
		if spec && specInd < 0 {
			specInd = ind // the indentation of spec's keys
		}
		if spec && ind == specInd && hostsLine < 0 && isKey(rest, "hosts") {
			hostsLine, hostsInd = i, ind
		}
	}
	if hostsLine < 0 {
		return nil, false
	}
	// The items: from the first content line after "hosts:" up to the first
	// content line less indented, or as indented but not an item.
	first, itemInd, end := -1, 0, len(lines)
	var items []int
	for i := hostsLine + 1; i < len(lines); i++ {
		ind, rest := indentOf(line(i))
		if !content(rest) {
			continue
		}
		if first < 0 {
			if !isItem(rest) || ind < hostsInd {
				return nil, false
			}
			first, itemInd = i, ind
		}
		if ind < itemInd || (ind == itemInd && rest[0] != '-') {
			if ind > hostsInd {
				return nil, false // neither an item nor a key of spec: let yaml.v3 judge
			}
			end = i
			break
		}
		if ind == itemInd {
			if !isItem(rest) {
				return nil, false // "-x" where an item should be
			}
			items = append(items, i)
		}
	}
	if first < 0 || len(items) < splitMinItems {
		return nil, false
	}
	regionStart, regionEnd := lines[first], len(data)
	if end < len(lines) {
		regionEnd = lines[end]
	}
	if bytes.ContainsAny(data[regionStart:regionEnd], "&*") {
		return nil, false
	}

	// Cut at the items nearest to equal shares of the bytes.
	cuts := []int{first}
	for k, j := 1, 0; k < pieces; k++ {
		target := regionStart + (regionEnd-regionStart)*k/pieces
		for j < len(items) && lines[items[j]] < target {
			j++
		}
		if j < len(items) && items[j] > cuts[len(cuts)-1] {
			cuts = append(cuts, items[j])
		}
	}
	type piece struct {
		seq *yaml.Node
		ok  bool
	}
	results := make([]piece, len(cuts))
	var rest yaml.Node
	restOK := false
	var wg sync.WaitGroup
	for k := range cuts {
		from := lines[cuts[k]]
		to := regionEnd
		if k+1 < len(cuts) {
			to = lines[cuts[k+1]]
		}
		wg.Go(func() {
			var doc yaml.Node
			if yaml.Unmarshal(data[from:to], &doc) != nil || doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 ||
				doc.Content[0].Kind != yaml.SequenceNode {
				return
			}
			shiftLines(doc.Content[0], cuts[k], -1)
			results[k] = piece{seq: doc.Content[0], ok: true}
		})
	}
	wg.Go(func() {
		// The document without the items: "hosts:" then holds null.
		text := make([]byte, 0, regionStart+len(data)-regionEnd)
		text = append(append(text, data[:regionStart]...), data[regionEnd:]...)
		if yaml.Unmarshal(text, &rest) == nil && rest.Kind == yaml.DocumentNode && len(rest.Content) == 1 {
			shiftLines(&rest, end-first, first+1)
			restOK = true
		}
	})
	wg.Wait()
	if !restOK {
		return nil, false
	}
	seq := results[0].seq
	for _, r := range results {
		if !r.ok {
			return nil, false
		}
		if r.seq != seq {
			seq.Content = append(seq.Content, r.seq.Content...)
		}
	}
	hosts := hostsValue(rest.Content[0], hostsLine+1)
	if hosts == nil {
		return nil, false
	}
	*hosts = *seq
	return &rest, true
}

// otherBreaks says whether data holds a line break besides "\n" and "\r\n"
// (yaml.v3 also breaks lines at a lone "\r", NEL, LS and PS).
func otherBreaks(data []byte) bool {
	for i := bytes.IndexByte(data, '\r'); i >= 0; {
		if i+1 == len(data) || data[i+1] != '\n' {
			return true
		}
		j := bytes.IndexByte(data[i+1:], '\r')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return bytes.Contains(data, []byte("\u0085")) || bytes.Contains(data, []byte("\u2028")) || bytes.Contains(data, []byte("\u2029"))
}

// lineStarts returns the offset of each line of data.
func lineStarts(data []byte) []int {
	starts := []int{0}
	for i := 0; ; {
		j := bytes.IndexByte(data[i:], '\n')
		if j < 0 || i+j+1 == len(data) {
			return starts
		}
		i += j + 1
		starts = append(starts, i)
	}
}

func indentOf(l []byte) (int, []byte) {
	i := 0
	for i < len(l) && l[i] == ' ' {
		i++
	}
	return i, l[i:]
}

// content says whether a line (without its indentation) holds YAML, not a
// comment or nothing.
func content(rest []byte) bool {
	r := bytes.TrimLeft(rest, " \t")
	return len(r) > 0 && r[0] != '#'
}

// isKey says whether rest is exactly "KEY:", maybe with a comment.
func isKey(rest []byte, key string) bool {
	after, ok := bytes.CutPrefix(rest, []byte(key+":"))
	if !ok {
		return false
	}
	after = bytes.TrimLeft(after, " \t")
	return len(after) == 0 || after[0] == '#'
}

func isItem(rest []byte) bool {
	return len(rest) > 0 && rest[0] == '-' && (len(rest) == 1 || rest[1] == ' ')
}

// shiftLines adds by to the line of n and every node below it whose line
// (1-based) is at least from.
func shiftLines(n *yaml.Node, by, from int) {
	if n.Line >= from {
		n.Line += by
	}
	for _, c := range n.Content {
		shiftLines(c, by, from)
	}
}

// hostsValue finds the null value of spec.hosts, whose key is at line.
func hostsValue(root *yaml.Node, line int) *yaml.Node {
	if root.Kind != yaml.MappingNode {
		return nil
	}
	var found *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value != "spec" {
			continue
		}
		spec := root.Content[i+1]
		if found != nil || spec.Kind != yaml.MappingNode {
			return nil // a second spec: let the decoder report it on the whole parse
		}
		for j := 0; j+1 < len(spec.Content); j += 2 {
			k, v := spec.Content[j], spec.Content[j+1]
			if k.Value == "hosts" && k.Line == line {
				if v.Kind != yaml.ScalarNode || v.Tag != "!!null" || v.Value != "" || v.Anchor != "" || found != nil {
					return nil
				}
				found = v
			}
		}
		if found == nil {
			return nil
		}
	}
	return found
}
