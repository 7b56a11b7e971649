package fabric

// estimateNodes bounds, without parsing, how many nodes yaml.v3 builds from
// data, so that a file of millions of tiny nodes is refused before the
// parser spends gigabytes on it. For every input yaml.v3 accepts the result
// is at least the number of nodes of its trees (documents and aliases
// included; FuzzEstimateNodes holds it so), and for fabric files it is close
// to it. It stops counting once the count passes limit, and then also
// returns the 1-based line and column where it did.
//
// It is a lexer of YAML's indicators, not a parser: each plain, quoted or
// block scalar, alias and flow collection counts one; a block sequence
// entry counts one (the node it holds may be a mapping that nothing else
// marks); a value indicator with nothing after it on its line, or before
// the next flow separator, counts the null value or nested block
// collection that follows; a flow mapping entry without a value counts
// its null value; every document counts two (the document and its root).
func estimateNodes(data []byte, limit int) (n, line, col int, over bool) {
	var stack []flowCtx
	ln, lineStart := 1, 0
	// On the current line: whether a token was seen, the column of the
	// first scalar (a key) and of the last block sequence indicator, and
	// whether the last token was that indicator.
	tokOnLine, keyCol, dashCol, afterDash := false, -1, -1, false
	// A plain scalar that ran to the end of its line may go on on the next
	// lines (more indented than its parent, any in flow context): there a
	// quote or bracket is text, not a new node. plainParent is the column
	// its continuation lines must pass; structCol that of the last line's
	// key or block sequence entry.
	plainOpen, plainParent, structCol, valueOnLine := false, -1, -1, false
	count := func(at, k int) bool {
		n += k
		if n > limit && !over {
			over, line, col = true, ln, at-lineStart+1
		}
		return over
	}
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' }
	isBreak := func(c byte) bool { return c == '\n' || c == '\r' }
	isBlank := func(i int) bool { return i >= len(data) || isSpace(data[i]) || isBreak(data[i]) }
	isFlowInd := func(c byte) bool { return c == ',' || c == '[' || c == ']' || c == '{' || c == '}' }
	newline := func(i int) int { // i at a break; returns the index after it
		if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			i++
		}
		if valueOnLine && keyCol >= 0 {
			structCol = keyCol
		} else if dashCol >= 0 {
			structCol = dashCol
		}
		ln, lineStart = ln+1, i+1
		tokOnLine, keyCol, dashCol, afterDash, valueOnLine = false, -1, -1, false, false
		return i + 1
	}
	toEOL := func(i int) int {
		for i < len(data) && !isBreak(data[i]) {
			i++
		}
		return i
	}
	// emptyAfter reports whether only spaces, node properties (anchors,
	// tags) and a comment follow i on its line, or, in flow context, before
	// the next flow separator.
	emptyAfter := func(i int, inFlow bool) bool {
		for i < len(data) {
			c := data[i]
			switch {
			case isSpace(c):
				i++
			case isBreak(c):
				if !inFlow {
					return true
				}
				i++
			case c == '#' && (i == 0 || isSpace(data[i-1]) || isBreak(data[i-1]) || data[i-1] == ']' || data[i-1] == '}'):
				i = toEOL(i)
			case c == '&' || c == '!':
				for i < len(data) && !isBlank(i) && !(inFlow && isFlowInd(data[i])) {
					i++
				}
			case inFlow && (c == ',' || c == '}' || c == ']'):
				return true
			default:
				return false
			}
		}
		return true
	}
	entry := func() *flowCtx {
		if len(stack) == 0 {
			return nil
		}
		return &stack[len(stack)-1]
	}
	if count(0, 2) { // the first document
		return n, line, col, over
	}
	i := 0
	for i < len(data) {
		c := data[i]
		inFlow := len(stack) > 0
		switch {
		case isBreak(c):
			i = newline(i)
			continue
		case isSpace(c):
			i++
			continue
		case c == '#' && (i == 0 || isSpace(data[i-1]) || isBreak(data[i-1]) || data[i-1] == ']' || data[i-1] == '}'):
			i = toEOL(i)
			continue
		case i == lineStart && !inFlow && c == '%':
			i = toEOL(i)
			continue
		case i == lineStart && !inFlow && (hasMarker(data[i:], "---") || hasMarker(data[i:], "...")):
			if data[i] == '-' && count(i, 2) {
				return n, line, col, over
			}
			i += 3
			continue
		}
		e := entry()
		atLineStart := !tokOnLine
		tokOnLine = true
		continued := false // this line goes on with the plain scalar of the line before
		if plainOpen && atLineStart {
			continued = inFlow || i-lineStart > plainParent
		}
		plainOpen = false
		wasDash := afterDash
		afterDash = false
		if keyCol < 0 && c != '-' && c != '?' && c != ':' && c != '&' && c != '!' {
			keyCol = i - lineStart
		}
		switch {
		case continued:
			// text of the plain scalar of the line before (whatever its
			// first character: a quote, a bracket, a tag sign): below
		case c == '"' || c == '\'':
			if count(i, 1) {
				return n, line, col, over
			}
			i++
			for i < len(data) {
				if data[i] == '\\' && c == '"' && i+1 < len(data) {
					if isBreak(data[i+1]) {
						i = newline(i + 1)
					} else {
						i += 2
					}
					continue
				}
				if data[i] == c {
					if c == '\'' && i+1 < len(data) && data[i+1] == '\'' {
						i += 2
						continue
					}
					i++
					break
				}
				if isBreak(data[i]) {
					i = newline(i)
					continue
				}
				i++
			}
			if e != nil {
				e.content = true
			}
			// A JSON-like key: ':' right after the quote is an indicator in flow.
			if inFlow && i < len(data) && data[i] == ':' {
				e.hasPair = true
				if count(i, flowColon(e, emptyAfter(i+1, true))) {
					return n, line, col, over
				}
				i++
			}
			continue
		case c == '[' || c == '{':
			if e != nil {
				e.content = true
			}
			if count(i, 1) {
				return n, line, col, over
			}
			stack = append(stack, flowCtx{mapping: c == '{'})
			i++
			continue
		case c == ']' || c == '}' || (c == ',' && inFlow):
			if e != nil && e.mapping && e.content && !e.hasPair {
				if count(i, 1) { // {a, b}: a's null value
					return n, line, col, over
				}
			}
			if e != nil {
				e.content, e.hasPair = false, false
			}
			if c != ',' && len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			i++
			continue
		case (c == '-' || c == '?') && !inFlow && isBlank(i+1):
			k := 1
			if c == '?' {
				k = 2 // a null key and a null value
			}
			if count(i, k) {
				return n, line, col, over
			}
			dashCol, afterDash = i-lineStart, true
			i++
			continue
		case c == '?' && inFlow:
			if count(i, 3) { // a null key, a null value, a single-pair mapping
				return n, line, col, over
			}
			e.content, e.hasPair = true, true
			i++
			continue
		case c == ':' && (isBlank(i+1) || inFlow && i+1 < len(data) && isFlowInd(data[i+1])):
			k := 0
			switch {
			case inFlow:
				e.hasPair = true
				k = flowColon(e, emptyAfter(i+1, true))
				e.content = true
			case emptyAfter(i+1, false) || atLineStart:
				k = 1 // null value or nested block collection; or a null key
			}
			valueOnLine = true
			if count(i, k) {
				return n, line, col, over
			}
			i++
			continue
		case (c == '|' || c == '>') && !inFlow:
			if count(i, 1) {
				return n, line, col, over
			}
			// The content: from the first non-empty line, indented more than
			// the node holding the scalar, every line indented at least as
			// much (or empty).
			parent := keyCol
			if wasDash || parent < 0 {
				parent = dashCol
			}
			i = toEOL(i)
			m := -1
			for i < len(data) {
				next := newline(i)
				j := next
				for j < len(data) && data[j] == ' ' {
					j++
				}
				if j >= len(data) {
					i = j
					break
				}
				if !isBreak(data[j]) {
					if m < 0 {
						m = j - next
					}
					if m <= parent || j-next < m {
						i = next
						break
					}
				}
				i = toEOL(j)
			}
			continue
		case c == '&' || c == '!':
			// A property: the node it belongs to may be an empty (null) one.
			if count(i, 1) {
				return n, line, col, over
			}
			if e != nil {
				e.content = true
			}
			for i < len(data) && !isBlank(i) && !(inFlow && isFlowInd(data[i])) && !(data[i] == ':' && isBlank(i+1)) {
				i++
			}
			continue
		}
		// A plain scalar (or an alias): count it and skip to its end.
		if e != nil {
			e.content = true
		}
		if count(i, 1) {
			return n, line, col, over
		}
		start := i - lineStart
		switch {
		case continued:
			// the same scalar goes on: the same parent
		case keyCol >= 0 && keyCol < start:
			plainParent = keyCol // a value after its key
		case dashCol >= 0:
			plainParent = dashCol
		case structCol >= 0 && structCol < start:
			plainParent = structCol
		default:
			plainParent = -1 // the document's root
		}
		for i < len(data) && !isBreak(data[i]) {
			d := data[i]
			if d == ':' && (isBlank(i+1) || inFlow && i+1 < len(data) && isFlowInd(data[i+1])) {
				break
			}
			if d == '#' && isSpace(data[i-1]) {
				break
			}
			if inFlow && isFlowInd(d) {
				break
			}
			i++
		}
		plainOpen = i >= len(data) || isBreak(data[i])
	}
	return n, line, col, over
}

// flowCtx is an open flow collection and the state of its current entry.
type flowCtx struct {
	mapping          bool
	content, hasPair bool // the current entry has a key / a ':' indicator
}

// flowColon is what a ':' indicator in a flow collection adds: one for a
// null value after it, one for the single-pair mapping a flow sequence
// entry "a: b" makes, one for a missing key.
func flowColon(e *flowCtx, empty bool) int {
	k := 0
	if empty {
		k++
	}
	if !e.mapping {
		k++
	}
	if !e.content {
		k++
	}
	return k
}

func hasMarker(b []byte, m string) bool {
	return len(b) >= 3 && string(b[:3]) == m && (len(b) == 3 || b[3] == ' ' || b[3] == '\t' || b[3] == '\n' || b[3] == '\r')
}
