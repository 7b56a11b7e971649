package textutil

import (
	"regexp"
	"strings"
)

// ansiRe matches ECMA-48 control sequences: CSI ("ESC [" parameters,
// intermediates, a final byte: colours, underline, cursor moves), OSC
// ("ESC ]" … BEL or ESC \), and two-byte escapes ("ESC (B", "ESC =").
var ansiRe = regexp.MustCompile("\x1b(?:\\[[0-?]*[ -/]*[@-~]|\\][^\x07\x1b]*(?:\x07|\x1b\\\\)|[ -/]*[0-~])")

// StripANSI returns s without terminal escape sequences. A lone ESC that
// starts no sequence is dropped too.
func StripANSI(s string) string {
	if !strings.ContainsRune(s, '\x1b') {
		return s
	}
	s = ansiRe.ReplaceAllString(s, "")
	return strings.ReplaceAll(s, "\x1b", "")
}
