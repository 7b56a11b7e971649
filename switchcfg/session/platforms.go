package session

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/fabricctl/fabricctl/switchcfg"
)

// profile is what the wrapper needs to know about one platform, built from
// the driver's switchcfg.SessionSpec.
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

// bashFailures are bash's own messages for a command that did not run.
var bashFailures = []*regexp.Regexp{
	regexp.MustCompile(`(?m)^-?bash: .*: command not found[ \t]*$`),
	regexp.MustCompile(`(?m)^-?bash: .*: (Permission denied|No such file or directory)[ \t]*$`),
}

// newProfile turns a platform's session spec into a profile; a spec naming
// no scrapligo definition is an unknown platform.
func newProfile(name string, spec switchcfg.SessionSpec) (profile, error) {
	p := profile{configPriv: spec.ConfigPrivilege, failures: lineStart(spec.ErrorPrefixes...)}
	switch {
	case len(spec.ScrapliYAML) > 0:
		p.definition = spec.ScrapliYAML
	case spec.Scrapli != "":
		p.definition = spec.Scrapli
	default:
		return profile{}, fmt.Errorf("%w %q: no session spec (take it from the driver: Info().Session)", ErrUnknownPlatform, name)
	}
	if spec.Shell {
		p.failures = append(p.failures, bashFailures...)
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
