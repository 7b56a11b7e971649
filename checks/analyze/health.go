package analyze

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/fabricctl/fabricctl/checks"
)

// NHC's own vocabulary (LBNL Node Health Check, mej/nhc: the nhc script's
// die() and log() texts, node-mark-offline/online, its watchdog; Azure's
// aznhc and distributed NHC print the same ERROR/SUCCESS lines, the latter
// behind "host | "). Spacing varies between releases and log paths, so the
// patterns allow any run of blanks.
var (
	nhcHostRe    = regexp.MustCompile(`^(\S+)\s*\|\s*(.*)$`)
	nhcSyslogRe  = regexp.MustCompile(`^\S+\s+(\S+)\s+nhc\[\d+\]:\s*(.*)$`)
	nhcHealthyRe = regexp.MustCompile(`^Healthy\b`)
	// nhcFailRe: a check failed, in every form NHC reports it.
	nhcFailRe = regexp.MustCompile(`^(?:ERROR:\s+(?:nhc:\s+)?(?:Health check failed:\s*)?|Health check failed:\s*|Node Health Check failed\.\s*)(.*)$`)
	// nhcOfflineRe: node-mark-offline names the host and the reason.
	nhcOfflineRe = regexp.MustCompile(`node-mark-offline\s+(\S+?)\.?\s+(\S.*)$`)
	nhcPassedRe  = regexp.MustCompile(`^SUCCESS:\s+(?:nhc:\s+)?(?:Health check passed:\s*)?(.*)$|Node Health Check completed successfully`)
	nhcRunRe     = regexp.MustCompile(`(?:^|[#$%>]\s*)nhc(?:\s+-\w+)*\s*$|^DEBUG:\s+Debugging activated|^Running check:`)
	nhcExitRe    = regexp.MustCompile(`echo \$\?\s*$`)
	nhcValueRe   = regexp.MustCompile(`(?i)(check_\w+|IB BW|NCCL|BW|bandwidth)\b.*?([\d.]+ ?(?:Gbps|GB/s))`)
	nhcPassRe    = regexp.MustCompile(`(?i)\b(check_\w+)\b.*\b(?:pass(?:ed)?|ok)\b`)
)

// evalHealth reads node-health-check output: NHC's log and console (ERROR
// lines, "Health check failed", "Node Health Check failed", node-mark-
// offline, its syslog lines), nhc -d/-v runs, Azure's aznhc and distributed
// NHC's "host | verdict" lines. Every failure NHC reports fails, once per
// host and reason; a run that reports none passes when it shows NHC ran
// (a "completed successfully", SUCCESS lines, Healthy, or the command with
// exit status 0).
func evalHealth(opt Options, name string, data []byte) ([]Finding, any, error) {
	var out []Finding
	facts := map[string][]string{}
	seen := map[string]bool{}
	ran, exit0, passed := false, false, 0
	lines := strings.Split(string(data), "\n")
	for i, raw := range lines {
		s := strings.TrimSpace(raw)
		host := ""
		if m := nhcSyslogRe.FindStringSubmatch(s); m != nil {
			host, s = m[1], m[2]
		} else if m := nhcHostRe.FindStringSubmatch(s); m != nil && !strings.Contains(m[1], ":") {
			host, s = m[1], m[2]
		}
		switch {
		case s == "":
		case nhcHealthyRe.MatchString(s):
			out = append(out, pass("health/node", host, "healthy"))
		case nhcOfflineRe.MatchString(s):
			m := nhcOfflineRe.FindStringSubmatch(s)
			out = addNHCFailure(out, seen, m[1], "node marked offline: "+m[2])
		case nhcFailRe.MatchString(s):
			reason := strings.TrimSpace(nhcFailRe.FindStringSubmatch(s)[1])
			if reason == "" {
				reason = s
			}
			out = addNHCFailure(out, seen, host, reason)
		case nhcPassedRe.MatchString(s):
			passed++
			ran = true
		case nhcRunRe.MatchString(s):
			ran = true
		case nhcExitRe.MatchString(s) && i+1 < len(lines):
			exit0 = strings.TrimSpace(lines[i+1]) == "0"
		case nhcValueRe.MatchString(s):
			facts["measurements"] = append(facts["measurements"], s)
		case nhcPassRe.MatchString(s):
			facts["passed"] = append(facts["passed"], s)
		}
	}
	if len(out) > 0 {
		return out, facts, nil
	}
	switch {
	case passed > 0:
		return []Finding{pass("health/node", "", fmt.Sprintf("%d checks passed, no failure reported", passed))}, facts, nil
	case ran && exit0:
		return []Finding{pass("health/node", "", "NHC ran and exited 0: no check failed")}, facts, nil
	case len(facts) > 0:
		return []Finding{pass("health/node", "", fmt.Sprintf("%d measurements, no failure reported", len(facts["measurements"])+len(facts["passed"])))}, facts, nil
	case ran:
		return []Finding{bad("health/node", "", checks.StatusSkip, "", "NHC ran, but the capture shows neither a failure nor how it ended")}, facts, nil
	}
	return nil, nil, fmt.Errorf("no health-check verdict or measurement found")
}

// addNHCFailure adds one failing finding per host and reason.
func addNHCFailure(out []Finding, seen map[string]bool, host, reason string) []Finding {
	key := host + "\x00" + reason
	if seen[key] {
		return out
	}
	seen[key] = true
	return append(out, bad("health/node", host, checks.StatusFail, "", reason))
}
