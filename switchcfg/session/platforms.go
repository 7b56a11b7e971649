package session

import (
	_ "embed"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/scrapli/scrapligo/platform"
)

// sonicDefinition is our scrapligo platform definition for SONiC's bash shell;
// scrapligo v1 ships none.
//
//go:embed sonic_bash.yaml
var sonicDefinition []byte

// profile is what the wrapper needs to know about one platform beyond
// scrapligo's own definition.
type profile struct {
	// definition is a scrapligo platform name (built-in asset) or YAML bytes.
	definition any
	// configPriv is the scrapligo privilege level SendConfig enters when the
	// prompt is not already a configuration prompt; "" means the platform has
	// no configuration mode (shell platforms: lines run where they are).
	configPriv string
	// failures match device error messages at the start of an output line.
	failures []*regexp.Regexp
}

func lineStart(prefixes ...string) []*regexp.Regexp {
	out := make([]*regexp.Regexp, 0, len(prefixes))
	for _, p := range prefixes {
		out = append(out, regexp.MustCompile(`(?m)^[ \t]*`+regexp.QuoteMeta(p)))
	}
	return out
}

var (
	bashFailures = []*regexp.Regexp{
		regexp.MustCompile(`(?m)^-?bash: .*: command not found[ \t]*$`),
		regexp.MustCompile(`(?m)^-?bash: .*: (Permission denied|No such file or directory)[ \t]*$`),
	}

	profiles = map[string]profile{
		"cumulus-nvue": {
			definition: platform.CumulusLinux,
			failures:   append(lineStart("Error:", "ERROR:", "Invalid Command:"), bashFailures...),
		},
		"sonic": {
			definition: sonicDefinition,
			failures: append(lineStart("Error:", "Failed to apply patch", "Failed to rollback",
				"Failed to create checkpoint", "Root privileges are required"), bashFailures...),
		},
		"arista-eos": {
			definition: platform.AristaEos,
			configPriv: "configuration",
			failures: lineStart("% Invalid input", "% Incomplete command", "% Ambiguous command",
				"% Error", "% Cannot commit", "% Unavailable command", "% Not supported"),
		},
		"cisco-nxos": {
			definition: platform.CiscoNxos,
			configPriv: "configuration",
			failures: lineStart("% Invalid command", "% Invalid parameter", "% Incomplete command",
				"% Ambiguous command", "% Invalid input detected", "% Unknown command", "ERROR:"),
		},
		"junos": {
			definition: platform.JuniperJunos,
			configPriv: "configuration-private",
			failures: lineStart("syntax error", "unknown command", "error:", "is ambiguous",
				"No valid completions"),
		},
	}
)

// Platforms returns the fabric platform names a session can be opened for, sorted.
func Platforms() []string {
	names := make([]string, 0, len(profiles))
	for n := range profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func lookupProfile(name string) (profile, error) {
	p, ok := profiles[name]
	if !ok {
		return profile{}, fmt.Errorf("%w %q (valid: %s)", ErrUnknownPlatform, name, strings.Join(Platforms(), ", "))
	}
	return p, nil
}

// failure returns the first output line that reports a device error, or "".
func (p profile) failure(output string) string {
	first := -1
	for _, re := range p.failures {
		if loc := re.FindStringIndex(output); loc != nil && (first < 0 || loc[0] < first) {
			first = loc[0]
		}
	}
	if first < 0 {
		return ""
	}
	line, _, _ := strings.Cut(output[first:], "\n")
	return strings.TrimSpace(line)
}
