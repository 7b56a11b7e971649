package switchcfg

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/fabric"
)

// ErrNotThisFormat is wrapped when a capture is not the output a reader
// takes: the reader refuses it rather than read nothing from it and report
// an empty, plausible switch.
var ErrNotThisFormat = errors.New("unrecognised format")

// CheckCLIFormat checks that text is a CLI configuration of the NOS whose
// top-level commands are topLevel: at least one unindented line, not a
// comment (lines starting with one of comments), must begin with one of
// them. A file with no such line ("foo = bar", another vendor's syntax) is
// refused with an error wrapping ErrNotThisFormat that quotes its first
// line; an empty configuration is accepted.
func CheckCLIFormat(nos, text string, comments string, topLevel map[string]bool) error {
	first, firstLine := "", 0
	for i, raw := range strings.Split(text, "\n") {
		t := strings.TrimSpace(raw)
		if t == "" || strings.ContainsRune(comments, rune(t[0])) {
			continue
		}
		if raw[0] == ' ' || raw[0] == '\t' {
			continue
		}
		if firstLine == 0 {
			first, firstLine = t, i+1
		}
		if topLevel[strings.Fields(t)[0]] {
			return nil
		}
	}
	if firstLine == 0 {
		return nil
	}
	return fmt.Errorf("%w: no line is a configuration command of %s (line %d: %q)", ErrNotThisFormat, nos, firstLine, first)
}

// OtherCLIs are unindented lines that only other network operating
// systems print in a running configuration, for CLI readers whose syntax
// they resemble (EOS, NX-OS): a file with one is refused, never read as a
// switch without QoS.
var OtherCLIs = map[string]*regexp.Regexp{
	// Dell OS9 (FTOS): its version banner, stack units, protocol blocks,
	// interface names and DCB maps.
	"Dell OS9": regexp.MustCompile(`^(! Version \d+\.\d+\(|boot system stack-unit|protocol (lldp|spanning-tree)\b|vlt domain |dcb-map |interface (TenGigabitEthernet|fortyGigE|FortyGigabitEthernet|hundredGigE|ManagementEthernet) )`),
	// Cisco IOS, IOS-XE and ASA: their interface names, globals and
	// object groups.
	"Cisco IOS": regexp.MustCompile(`^(interface (GigabitEthernet|FastEthernet|TenGigabitEthernet|TwentyFiveGigE|FortyGigabitEthernet|HundredGigE)\d|ip cef$|version 1[25]\.\d+$|object-group |object network |policy-map type inspect )`),
	// Dell OS10 (SmartFabric OS): DCBX, trust and QoS maps, its
	// three-level lower-case port names.
	"Dell OS10": regexp.MustCompile(`^(dcbx enable$|trust-map |qos-map traffic-class |interface (ethernet|mgmt)\d+/\d+/\d+)`),
	// Broadcom FASTPATH / EFOS: slot/port interface names and DCB globals.
	"Broadcom EFOS": regexp.MustCompile(`^(interface \d+/\d+$|datacenter-bridging$|classofservice )`),
}

// CheckForeign refuses text that has a line of another NOS (others: the
// NOS's name → its lines), naming the line and the NOS, with an error
// wrapping ErrNotThisFormat.
func CheckForeign(nos, text string, others map[string]*regexp.Regexp) error {
	for i, raw := range strings.Split(text, "\n") {
		line := strings.TrimRight(raw, "\r \t")
		for name, re := range others {
			if re.MatchString(line) {
				return fmt.Errorf("%w: line %d: %q is %s syntax, not %s", ErrNotThisFormat, i+1, line, name, nos)
			}
		}
	}
	return nil
}

// promptRE matches a shell or CLI prompt with its command, as captures
// pasted from a terminal begin and end with ("cumulus@leaf01:~$ nv config
// show", "admin@sonic:~$ show runningconfiguration all").
var promptRE = regexp.MustCompile(`^\S+@[\w.-]+(:\S*)?[$#>]( .*)?$`)

// TrimPrompts drops the prompt lines before and after a pasted capture.
func TrimPrompts(data []byte) []byte {
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	for len(lines) > 0 && promptRE.MatchString(strings.TrimSpace(lines[0])) {
		lines = lines[1:]
	}
	for len(lines) > 0 && promptRE.MatchString(strings.TrimSpace(lines[len(lines)-1])) {
		lines = lines[:len(lines)-1]
	}
	return []byte(strings.Join(lines, "\n"))
}

// Dedent removes the indentation every non-blank line shares: a
// configuration pasted as an indented block (documentation, e-mail) reads
// as the switch printed it.
func Dedent(text string) string {
	lines := strings.Split(text, "\n")
	common := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " "))
		if common < 0 || n < common {
			common = n
		}
	}
	if common <= 0 {
		return text
	}
	for i, l := range lines {
		if len(l) >= common {
			lines[i] = l[common:]
		} else {
			lines[i] = strings.TrimLeft(l, " ")
		}
	}
	return strings.Join(lines, "\n")
}

// ExpandEthernetRange expands the names of an interface statement —
// "Ethernet1/1", "Ethernet 1/1", "ethernet1/1-4", "Ethernet 1/1 - 1/16",
// "Eth1/1/1-4", "Ethernet1-4" (EOS), lists joined by commas with or
// without the prefix repeated ("Ethernet1,3,5-6", "Ethernet1/1, Ethernet1/3")
// — into Ethernet port names that valid accepts; false when a name is not
// an Ethernet port or a range is malformed or larger than 1024 ports.
func ExpandEthernetRange(words []string, valid func(string) bool) ([]string, bool) {
	var out []string
	for _, part := range strings.Split(strings.Join(words, ""), ",") {
		lower := strings.ToLower(part)
		switch {
		case strings.HasPrefix(lower, "ethernet"):
			part = part[len("ethernet"):]
		case strings.HasPrefix(lower, "eth"):
			part = part[len("eth"):]
		case len(out) > 0 && part != "" && part[0] >= '0' && part[0] <= '9':
			// the prefix written once for the whole list
		default:
			return nil, false
		}
		lo, hi, isRange := strings.Cut(part, "-")
		cut := strings.LastIndex(lo, "/") + 1
		prefix, first := lo[:cut], lo[cut:]
		if !isRange {
			hi = first
		} else if i := strings.LastIndex(hi, "/"); i >= 0 {
			if hi[:i+1] != prefix {
				return nil, false
			}
			hi = hi[i+1:]
		}
		a, err1 := strconv.Atoi(first)
		b, err2 := strconv.Atoi(hi)
		if err1 != nil || err2 != nil || b < a || b-a > 1024 {
			return nil, false
		}
		for n := a; n <= b; n++ {
			name := "Ethernet" + prefix + strconv.Itoa(n)
			if !valid(name) {
				return nil, false
			}
			out = append(out, name)
		}
	}
	return out, len(out) > 0
}

// WordSet returns the set of words.
func WordSet(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// ErrUnparsed is wrapped when a reading holds input that can affect QoS
// which its reader did not understand: the switch cannot be judged to
// match (drift exits 1, unknown) unless the caller allows it.
var ErrUnparsed = errors.New("QoS input not understood")

// CheckUnparsed returns nil when got has no Unparsed input or allow is
// set, else an error wrapping ErrUnparsed that lists the first lines.
func CheckUnparsed(got fabric.SwitchIntent, allow bool) error {
	if len(got.Unparsed) == 0 || allow {
		return nil
	}
	const show = 5
	var lines []string
	for i, u := range got.Unparsed {
		if i == show {
			lines = append(lines, fmt.Sprintf("… and %d more", len(got.Unparsed)-show))
			break
		}
		lines = append(lines, fmt.Sprintf("line %d: %q: %s", u.Line, u.Text, u.Reason))
	}
	return fmt.Errorf("%w (%d lines; --allow-unparsed judges the rest anyway):\n  %s", ErrUnparsed, len(got.Unparsed), strings.Join(lines, "\n  "))
}
