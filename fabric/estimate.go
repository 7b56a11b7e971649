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
	s := nodeEstimator{data: data, limit: limit, ln: 1, keyCol: -1, dashCol: -1, plainParent: -1, structCol: -1}
	s.run()
	return s.n, s.line, s.col, s.over
}

// nodeEstimator is the state of one estimateNodes: the input, the open flow
// collections, the bookkeeping of the current line, and the count.
type nodeEstimator struct {
	data  []byte
	limit int
	stack []flowCtx // the open flow collections, innermost last

	// n is the count so far; once it passes limit, over is set and line
	// and col say where.
	n, line, col int
	over         bool

	// ln is the current line (1-based), lineStart the index of its first byte.
	ln, lineStart int
	// On the current line: whether a token was seen, the column of the
	// first scalar (a key) and of the last block sequence indicator, and
	// whether the last token was that indicator.
	tokOnLine       bool
	keyCol, dashCol int
	afterDash       bool
	// A plain scalar that ran to the end of its line may go on on the next
	// lines (more indented than its parent, any in flow context): there a
	// quote or bracket is text, not a new node. plainParent is the column
	// its continuation lines must pass; structCol that of the last line's
	// key or block sequence entry. valueOnLine says the current line holds
	// a value indicator (so its key, not a dash, is the next lines' parent).
	plainOpen              bool
	plainParent, structCol int
	valueOnLine            bool
}

// count adds k nodes, found at index at; it reports whether the count has
// passed the limit, and records where it first did.
func (s *nodeEstimator) count(at, k int) bool {
	s.n += k
	if s.n > s.limit && !s.over {
		s.over, s.line, s.col = true, s.ln, at-s.lineStart+1
	}
	return s.over
}

func isSpace(c byte) bool   { return c == ' ' || c == '\t' }
func isBreak(c byte) bool   { return c == '\n' || c == '\r' }
func isFlowInd(c byte) bool { return c == ',' || c == '[' || c == ']' || c == '{' || c == '}' }

// isBlank reports whether i is past the end or at a space or a break.
func (s *nodeEstimator) isBlank(i int) bool {
	return i >= len(s.data) || isSpace(s.data[i]) || isBreak(s.data[i])
}

// newline starts the next line; i is at a break, and it returns the index
// after it.
func (s *nodeEstimator) newline(i int) int {
	if s.data[i] == '\r' && i+1 < len(s.data) && s.data[i+1] == '\n' {
		i++
	}
	if s.valueOnLine && s.keyCol >= 0 {
		s.structCol = s.keyCol
	} else if s.dashCol >= 0 {
		s.structCol = s.dashCol
	}
	s.ln, s.lineStart = s.ln+1, i+1
	s.tokOnLine, s.keyCol, s.dashCol, s.afterDash, s.valueOnLine = false, -1, -1, false, false
	return i + 1
}

// toEOL returns the index of the break ending i's line (or the end).
func (s *nodeEstimator) toEOL(i int) int {
	for i < len(s.data) && !isBreak(s.data[i]) {
		i++
	}
	return i
}

// emptyAfter reports whether only spaces, node properties (anchors,
// tags) and a comment follow i on its line, or, in flow context, before
// the next flow separator.
func (s *nodeEstimator) emptyAfter(i int, inFlow bool) bool {
	data := s.data
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
			i = s.toEOL(i)
		case c == '&' || c == '!':
			for i < len(data) && !s.isBlank(i) && !(inFlow && isFlowInd(data[i])) {
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

// entry returns the innermost open flow collection, nil outside flow context.
func (s *nodeEstimator) entry() *flowCtx {
	if len(s.stack) == 0 {
		return nil
	}
	return &s.stack[len(s.stack)-1]
}

// run lexes data, counting, until the end or until the count passes the limit.
func (s *nodeEstimator) run() {
	if s.count(0, 2) { // the first document
		return
	}
	data := s.data
	i := 0
	for i < len(data) {
		c := data[i]
		inFlow := len(s.stack) > 0
		switch {
		case isBreak(c):
			i = s.newline(i)
			continue
		case isSpace(c):
			i++
			continue
		case c == '#' && (i == 0 || isSpace(data[i-1]) || isBreak(data[i-1]) || data[i-1] == ']' || data[i-1] == '}'):
			i = s.toEOL(i)
			continue
		case i == s.lineStart && !inFlow && c == '%':
			i = s.toEOL(i)
			continue
		case i == s.lineStart && !inFlow && (hasMarker(data[i:], "---") || hasMarker(data[i:], "...")):
			if data[i] == '-' && s.count(i, 2) {
				return
			}
			// A document marker ends any plain scalar of the lines before.
			s.plainOpen = false
			i += 3
			continue
		}
		e := s.entry()
		atLineStart := !s.tokOnLine
		s.tokOnLine = true
		continued := false // this line goes on with the plain scalar of the line before
		if s.plainOpen && atLineStart {
			continued = inFlow || i-s.lineStart > s.plainParent
		}
		s.plainOpen = false
		wasDash := s.afterDash
		s.afterDash = false
		if s.keyCol < 0 && c != '-' && c != '?' && c != ':' && c != '&' && c != '!' {
			s.keyCol = i - s.lineStart
		}
		switch {
		case continued:
			// text of the plain scalar of the line before (whatever its
			// first character: a quote, a bracket, a tag sign): below
		case c == '"' || c == '\'':
			if s.count(i, 1) {
				return
			}
			i++
			for i < len(data) {
				if data[i] == '\\' && c == '"' && i+1 < len(data) {
					if isBreak(data[i+1]) {
						i = s.newline(i + 1)
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
					i = s.newline(i)
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
				if s.count(i, flowColon(e, s.emptyAfter(i+1, true))) {
					return
				}
				i++
			}
			continue
		case c == '[' || c == '{':
			if e != nil {
				e.content = true
			}
			if s.count(i, 1) {
				return
			}
			s.stack = append(s.stack, flowCtx{mapping: c == '{'})
			i++
			continue
		case c == ']' || c == '}' || (c == ',' && inFlow):
			if e != nil && e.mapping && e.content && !e.hasPair {
				if s.count(i, 1) { // {a, b}: a's null value
					return
				}
			}
			if e != nil {
				e.content, e.hasPair = false, false
			}
			if c != ',' && len(s.stack) > 0 {
				s.stack = s.stack[:len(s.stack)-1]
			}
			i++
			continue
		case (c == '-' || c == '?') && !inFlow && s.isBlank(i+1):
			k := 1
			if c == '?' {
				k = 2 // a null key and a null value
			}
			if s.count(i, k) {
				return
			}
			s.dashCol, s.afterDash = i-s.lineStart, true
			i++
			continue
		case c == '?' && inFlow:
			if s.count(i, 3) { // a null key, a null value, a single-pair mapping
				return
			}
			e.content, e.hasPair = true, true
			i++
			continue
		case c == ':' && (s.isBlank(i+1) || inFlow && i+1 < len(data) && isFlowInd(data[i+1])):
			k := 0
			switch {
			case inFlow:
				e.hasPair = true
				k = flowColon(e, s.emptyAfter(i+1, true))
				e.content = true
			case s.emptyAfter(i+1, false) || atLineStart:
				k = 1 // null value or nested block collection; or a null key
			}
			s.valueOnLine = true
			if s.count(i, k) {
				return
			}
			i++
			continue
		case (c == '|' || c == '>') && !inFlow:
			if s.count(i, 1) {
				return
			}
			// The content: from the first non-empty line, indented more than
			// the node holding the scalar, every line indented at least as
			// much (or empty).
			parent := s.keyCol
			if wasDash || parent < 0 {
				parent = s.dashCol
			}
			i = s.toEOL(i)
			m := -1
			for i < len(data) {
				next := s.newline(i)
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
				i = s.toEOL(j)
			}
			continue
		case c == '&' || c == '!':
			// A property: the node it belongs to may be an empty (null) one.
			if s.count(i, 1) {
				return
			}
			if e != nil {
				e.content = true
			}
			for i < len(data) && !s.isBlank(i) && !(inFlow && isFlowInd(data[i])) && !(data[i] == ':' && s.isBlank(i+1)) {
				i++
			}
			continue
		}
		// A plain scalar (or an alias): count it and skip to its end.
		if e != nil {
			e.content = true
		}
		if s.count(i, 1) {
			return
		}
		start := i - s.lineStart
		switch {
		case continued:
			// the same scalar goes on: the same parent
		case s.keyCol >= 0 && s.keyCol < start:
			s.plainParent = s.keyCol // a value after its key
		case s.dashCol >= 0:
			s.plainParent = s.dashCol
		case s.structCol >= 0 && s.structCol < start:
			s.plainParent = s.structCol
		default:
			s.plainParent = -1 // the document's root
		}
		for i < len(data) && !isBreak(data[i]) {
			d := data[i]
			if d == ':' && (s.isBlank(i+1) || inFlow && i+1 < len(data) && isFlowInd(data[i+1])) {
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
		s.plainOpen = i >= len(data) || isBreak(data[i])
	}
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
