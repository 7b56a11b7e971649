package textutil

import (
	"regexp"
	"strings"
)

// ansiRe matches ECMA-48 control sequences: CSI ("ESC [" parameters,
// intermediates, a final byte: colours, underline, cursor moves), OSC
// ("ESC ]" … BEL or ESC \), and two-byte escapes ("ESC (B", "ESC =").
var ansiRe = regexp.MustCompile("\x1b(?:\\[[0-?]*[ -/]*[@-~]|\\][^\x07\x1b]*(?:\x07|\x1b\\\\)|[ -/]*[0-~])")

// orphanSGRRe is a colour (SGR) sequence whose escape byte a copy and
// paste lost, at the start of the line or after a blank: " [36m(Ray …) [0m".
var orphanSGRRe = regexp.MustCompile(`(^|\s)\[(?:\d{1,3}(?:;\d{1,3})*)?m`)

// StripANSI returns s without terminal escape sequences. A lone ESC that
// starts no sequence is dropped too, and so are colour sequences that lost
// their ESC.
func StripANSI(s string) string {
	if strings.Contains(s, "m") && strings.Contains(s, "[") {
		s = orphanSGRRe.ReplaceAllString(s, "$1")
	}
	if !strings.ContainsRune(s, '\x1b') {
		return s
	}
	s = ansiRe.ReplaceAllString(s, "")
	return strings.ReplaceAll(s, "\x1b", "")
}
