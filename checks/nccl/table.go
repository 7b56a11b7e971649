package nccl

import (
	"fmt"
	"sort"
	"strings"

	"github.com/fabricctl/fabricctl/internal/intset"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/output"
)

// Report is what `fabricctl nccl analyze` prints: the analysis of Logs, with Clean set when
// nothing was found.
type Report struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Logs       []string `json:"logs"`
	Clean      bool     `json:"clean"`
	*Analysis
}

// NewReport wraps the analysis of logs for printing.
func NewReport(logs []string, a *Analysis) Report {
	return Report{APIVersion: fabric.APIVersion, Kind: ReportKind, Logs: logs, Clean: a.Clean(), Analysis: a}
}

// Table prints one line per host, then one per finding ("no findings" when clean). The lists
// of IB devices, OOB interfaces and transports are shortened to fit the terminal (-o wide
// shows them all); a finding's MESSAGE wraps.
func (a *Analysis) Table(t *output.TableWriter) {
	t.Row("HOST", "VERSION", "NETWORK", "IB DEVICES", "OOB", "TRANSPORTS", "GDRDMA", "RANKS")
	t.CutToFit(3, 4, 5)
	for _, h := range a.Hosts {
		var devs, oob []string
		for _, d := range h.IBDevices {
			devs = append(devs, d.String())
		}
		for _, i := range h.OOB {
			oob = append(oob, i.String())
		}
		var tr []string
		for name, n := range h.Transports {
			tr = append(tr, fmt.Sprintf("%s×%d", name, n))
		}
		sort.Strings(tr)
		if len(devs) > 4 && !t.Wide() {
			devs = append(devs[:3], fmt.Sprintf("+%d more", len(devs)-3))
		}
		t.Row(h.Name, dash(h.Versions), dash(h.Networks), dash(devs), dash(oob), dash(tr), h.GDRDMA, ranks(h.Ranks))
	}
	t.Flush() // the findings' columns are not cut (an error writing shows at the last Flush)
	t.Row()
	if a.Clean() {
		t.Row("no findings")
		return
	}
	t.Row("STATUS", "FINDING", "HOST", "WHERE", "MESSAGE")
	for _, f := range a.Findings {
		host := f.Host
		if host == "" {
			host = "(all)"
		}
		msg := f.Message
		if f.Count > 1 {
			msg += fmt.Sprintf(" (%d times)", f.Count)
		}
		t.Row(strings.ToUpper(string(f.Status)), f.Kind, host, f.Where, msg)
	}
}

// dash joins s with commas, "-" when empty.
func dash(s []string) string {
	if len(s) == 0 {
		return "-"
	}
	return strings.Join(s, ",")
}

// ranks prints 0,1,2,5 as "0-2,5".
func ranks(r []int) string {
	if len(r) == 0 {
		return "-"
	}
	return intset.Format(r)
}
