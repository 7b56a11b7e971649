package view

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/fabricctl/fabricctl/fabric"
)

// WritePrometheus prints a plan as drift gauges in the Prometheus text
// format, for node-exporter's textfile collector (`fabricctl drift -o
// prometheus`): whether each target could be observed, how many of its
// settings drifted, one gauge per drifted setting (sorted), and when the run
// was.
func WritePrometheus(w io.Writer, p *fabric.Plan, now time.Time) {
	bw := bufio.NewWriter(w)
	defer bw.Flush()
	esc := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	fmt.Fprintln(bw, "# HELP fabricctl_target_up Whether fabricctl could observe the target (1) or not (0).")
	fmt.Fprintln(bw, "# TYPE fabricctl_target_up gauge")
	for _, t := range p.Targets {
		up := 1
		if t.Error != "" {
			up = 0
		}
		fmt.Fprintf(bw, "fabricctl_target_up{target=\"%s\",tier=\"%s\"} %d\n", esc.Replace(t.Target), t.Tier, up)
	}
	fmt.Fprintln(bw, "# HELP fabricctl_drift_settings Settings of the target that differ from the fabric file.")
	fmt.Fprintln(bw, "# TYPE fabricctl_drift_settings gauge")
	for _, t := range p.Targets {
		fmt.Fprintf(bw, "fabricctl_drift_settings{target=\"%s\",tier=\"%s\"} %d\n", esc.Replace(t.Target), t.Tier, len(fabric.Actionable(t.Changes)))
	}
	fmt.Fprintln(bw, "# HELP fabricctl_drift Set to 1 for each setting that differs from the fabric file.")
	fmt.Fprintln(bw, "# TYPE fabricctl_drift gauge")
	var lines []string
	for _, t := range p.Targets {
		for _, c := range fabric.Actionable(t.Changes) {
			lines = append(lines, fmt.Sprintf("fabricctl_drift{target=\"%s\",component=\"%s\",setting=\"%s\"} 1",
				esc.Replace(t.Target), esc.Replace(c.Component), esc.Replace(c.Setting)))
		}
	}
	sort.Strings(lines)
	for _, l := range lines {
		fmt.Fprintln(bw, l)
	}
	fmt.Fprintln(bw, "# HELP fabricctl_drift_last_run_timestamp_seconds When fabricctl drift last ran.")
	fmt.Fprintln(bw, "# TYPE fabricctl_drift_last_run_timestamp_seconds gauge")
	fmt.Fprintf(bw, "fabricctl_drift_last_run_timestamp_seconds %d\n", now.Unix())
}
