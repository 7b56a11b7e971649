package slurm

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode"
)

// jobID is a Slurm job id as SLURM_JOB_ID holds it, or a job array's task (1234_7).
var jobID = regexp.MustCompile(`^[0-9]+(_[0-9]+)?$`)

// Validate refuses settings srun or squeue would read as something else, each named by the flag
// of `fabricctl check --launcher slurm` that sets it: a partition or reservation with white
// space or control characters (or an empty name in the partition list), a node binary that
// starts with '-' (srun would take it for an option) or holds a control character, a job id
// that is no number, a negative preflight bound. Sweep calls it first.
func (l *Launcher) Validate() error {
	var errs []error
	for _, f := range [2]struct{ flag, v string }{{"--partition", l.Partition}, {"--reservation", l.Reservation}} {
		if f.v == "" {
			continue
		}
		for _, name := range strings.Split(f.v, ",") {
			if why := nameProblem(name); why != "" {
				if name == "" {
					why = "an empty name in the list"
				}
				errs = append(errs, fmt.Errorf("%s %+q: %s", f.flag, f.v, why))
				break
			}
		}
	}
	switch {
	case strings.HasPrefix(l.Bin, "-"):
		errs = append(errs, fmt.Errorf("--node-bin %+q: starts with '-' (srun would read an option)", l.Bin))
	case strings.ContainsFunc(l.Bin, unicode.IsControl):
		errs = append(errs, fmt.Errorf("--node-bin %+q: a control character", l.Bin))
	}
	if l.Allocation != "" && !jobID.MatchString(l.Allocation) {
		errs = append(errs, fmt.Errorf("--slurm-job %+q: not a job id (digits, or 1234_7 for an array's task)", l.Allocation))
	}
	if l.PreflightBound < 0 {
		errs = append(errs, fmt.Errorf("preflight bound %s is negative", l.PreflightBound))
	}
	return errors.Join(errs...)
}

// CheckNodeName refuses a name scontrol or srun would read as more than one node, or as no
// node: empty, a hostlist's ',' '[' ']', '=' (scontrol's key=value), white space or control
// characters. The error is ErrBadName.
func CheckNodeName(node string) error {
	if why := nameProblem(node); why != "" || strings.ContainsAny(node, ",[]=") {
		return fmt.Errorf("%w: %+q", ErrBadName, node)
	}
	return nil
}

// nameProblem says what keeps s from being one name on srun's command line.
func nameProblem(s string) string {
	switch {
	case s == "":
		return "empty"
	case strings.ContainsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }):
		return "white space or a control character"
	}
	return ""
}
