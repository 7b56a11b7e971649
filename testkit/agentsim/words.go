package agentsim

import (
	"errors"
	"fmt"
	"strings"
)

// ErrShellSyntax is a command line the double refuses to split: unbalanced
// quotes, or a shell metacharacter outside quotes. A real shell would expand
// or interpret those, so seeing one means an argument reached the command line
// unquoted, which fabricctl must never do.
var ErrShellSyntax = errors.New("shell syntax the agent double does not accept")

// metachars are the characters a POSIX shell interprets outside quotes
// (expansion, redirection, command separation, globbing, comments).
const metachars = "\"$`;&|<>()*?[]{}!#~\n"

// SplitWords splits a command line, as remote.Command writes it, back into its
// argv: words separated by blanks, '…' taken literally, and a backslash
// escaping the next character outside quotes. It accepts only what quoting
// produces and rejects anything a shell would interpret, with the byte offset.
func SplitWords(line string) ([]string, error) {
	var (
		words []string
		cur   strings.Builder
		in    bool // inside a word
	)
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		case c == '\'':
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("splitting the command line: offset %d: %w: unterminated single quote", i, ErrShellSyntax)
			}
			cur.WriteString(line[i+1 : i+1+end])
			in = true
			i += end + 1
		case c == '\\':
			if i+1 >= len(line) {
				return nil, fmt.Errorf("splitting the command line: offset %d: %w: backslash at the end", i, ErrShellSyntax)
			}
			if line[i+1] == '\n' {
				return nil, fmt.Errorf("splitting the command line: offset %d: %w: line continuation", i, ErrShellSyntax)
			}
			cur.WriteByte(line[i+1])
			in = true
			i++
		case strings.IndexByte(metachars, c) >= 0:
			return nil, fmt.Errorf("splitting the command line: offset %d: %w: unquoted %q", i, ErrShellSyntax, c)
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, fmt.Errorf("splitting the command line: %w: no command", ErrShellSyntax)
	}
	return words, nil
}
