package lab

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteTable prints the running lab for people: one line per VM and switch simulator, then the
// namespace, the SSH material, the switches' password file and Slurm, when the lab runs them.
func (s *State) WriteTable(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "HOST\tADDRESS\tPID\tBOOT\tCONSOLE\n")
	for _, v := range s.VMs {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.1fs\t%s\n", v.Name, v.Address, v.Pid, v.BootSeconds, v.Console)
	}
	for _, sw := range s.Switches {
		fmt.Fprintf(tw, "%s\t%s\t%d\tswitch-sim %s\t%s\n", sw.Name, sw.Address, sw.Pid, sw.Platform, sw.Log)
	}
	tw.Flush()
	fmt.Fprintf(w, "netns %s  controller %s  user %s\nkey %s\nknown_hosts %s\n",
		s.Netns, s.Topology.Controller, s.User, s.KeyPath, s.KnownHosts)
	if len(s.Switches) > 0 {
		fmt.Fprintf(w, "switch password %s (export %s=$(cat %s))\n", s.SwitchPasswordPath(), SwitchPasswordEnv, s.SwitchPasswordPath())
	}
	if s.Slurm != nil {
		fmt.Fprintf(w, "slurm: slurmctld pid %d, log %s\n  ip netns exec %s env SLURM_CONF=%s PATH=%s:$PATH sinfo\n",
			s.Slurm.CtldPid, s.Slurm.CtldLog, s.Netns, s.Slurm.Conf, s.Slurm.Bin)
	}
}

// WriteStatusTable prints what State.Status found, one line per VM.
func WriteStatusTable(w io.Writer, st []HostStatus) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "HOST\tADDRESS\tPID\tQEMU\tSSH\tERROR\n")
	for _, h := range st {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\n", h.Name, h.Address, h.Pid, either(h.Running, "running", "stopped"), either(h.SSH, "ok", "-"), h.Error)
	}
	tw.Flush()
}

// WriteTable prints the scenario's checks, one PASS or FAIL line each, then its outcome and
// where its JSON was written (path).
func (r *Result) WriteTable(w io.Writer, path string) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, c := range r.Checks {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", either(c.Passed, "PASS", "FAIL"), c.Name, c.Detail)
	}
	tw.Flush()
	fmt.Fprintf(w, "scenario %s: %s in %.1fs (%s)\n", r.Scenario, either(r.Passed, "passed", "FAILED"),
		float64(r.DurationMS)/1000, path)
}

// ScenarioHelp lists the scenarios with their bounds, for `fabricctl lab run --help`.
func ScenarioHelp() string {
	var b strings.Builder
	b.WriteString("Scenarios (results: STATE-DIR/results/NAME.json; -o json prints them):\n")
	for _, s := range Scenarios() {
		fmt.Fprintf(&b, "  %-9s %s (bound %s)\n", s.Name, s.Description, s.Timeout)
	}
	return b.String()
}

func either(b bool, y, n string) string {
	if b {
		return y
	}
	return n
}
