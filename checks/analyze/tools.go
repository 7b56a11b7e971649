package analyze

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/nccl"
	"github.com/fabricctl/fabricctl/checks/perftest"
)

// perftestFindings judges one side's output: its failure cause, its
// warnings, its result.
func perftestFindings(rep *perftest.Report, exp Expect) []Finding {
	if f, bad := perftest.Cause(rep); bad {
		hints := perftest.Hints(nil, rep)
		if rep.ServerBanner {
			hints = perftest.Hints(rep, nil)
		}
		text := f.Text
		if f.Detail != "" && !strings.Contains(text, f.Detail) {
			text += " (" + f.Detail + ")"
		}
		var ev []string
		for _, g := range rep.Failures {
			line := fmt.Sprintf("line %d: %s", g.Line, g.Text)
			if g.Detail != "" && !strings.Contains(g.Text, g.Detail) {
				line += " (" + g.Detail + ")"
			}
			ev = append(ev, line)
		}
		return []Finding{{ID: "perftest/result", Status: checks.StatusFail, Class: f.Class, Subject: rep.Header.Device, Summary: fmt.Sprintf("%s: %s", f.Class, text),
			Evidence: append(ev, hints...)}}
	}
	var out []Finding
	if len(rep.NotNumbers) > 0 {
		out = append(out, Finding{ID: "perftest/numbers", Status: checks.StatusError, Evidence: rep.NotNumbers,
			Summary: fmt.Sprintf("%d result row(s) hold a figure that is no measurement (NaN, an infinity, a negative value, a number too large for its field) and were left out: %s", len(rep.NotNumbers), rep.NotNumbers[0])})
	}
	own := rep.ToolWarnings
	if len(own) > 0 {
		out = append(out, Finding{ID: "perftest/warnings", Status: checks.StatusWarn, Summary: "perftest warned about this run: " + own[0], Evidence: own})
	}
	if rep.ColumnMismatch {
		out = append(out, Finding{ID: "perftest/columns", Status: checks.StatusWarn, Summary: "result rows do not match their column header; those rows were left out", Evidence: rep.Warnings})
	}
	row, ok := rep.Final()
	switch {
	case ok && !measured(row.BWAverage):
		out = append(out, Finding{ID: "perftest/result", Status: checks.StatusError,
			Summary: fmt.Sprintf("the average bandwidth at %d bytes reads %v: not a measurement (a finite number ≥ 0)", row.Bytes, row.BWAverage)})
	case ok:
		g, known := perftest.GbpsOf(row.BWAverage, rep.BWUnit)
		m := []checks.Measurement{{Name: "bw_average", Value: g, Unit: checks.UnitGbps}}
		switch {
		case !known:
			out = append(out, Finding{ID: "perftest/result", Status: checks.StatusSkip, Summary: fmt.Sprintf("%g average at %d bytes (unit not recorded: Gb/s with --report_gbits, MiB/s without): not judged", row.BWAverage, row.Bytes)})
		case exp.BW <= 0:
			out = append(out, Finding{ID: "perftest/result", Status: checks.StatusSkip, Measurements: m,
				Summary: fmt.Sprintf("%.2f Gb/s average at %d bytes: no yardstick to judge it by (give --expect bw=…, or a fabric with a portRate)", g, row.Bytes)})
		case g < exp.BW:
			out = append(out, Finding{ID: "perftest/result", Status: checks.StatusFail, Class: checks.LowBandwidth, Measurements: m,
				Summary: fmt.Sprintf("%.2f Gb/s average at %d bytes is below the expected %g Gb/s", g, row.Bytes, exp.BW)})
		default:
			out = append(out, Finding{ID: "perftest/result", Status: checks.StatusPass, Measurements: m,
				Summary: fmt.Sprintf("%.2f Gb/s average at %d bytes, at least the expected %g Gb/s", g, row.Bytes, exp.BW)})
		}
	case len(rep.Lat) > 0:
		l := rep.Lat[len(rep.Lat)-1]
		name, v := "t_typical", l.TTypical
		if v <= 0 {
			name, v = "t_avg", l.TAvg
		}
		if !measured(v) {
			out = append(out, Finding{ID: "perftest/result", Status: checks.StatusError,
				Summary: fmt.Sprintf("%s at %d bytes reads %v: not a measurement (a finite number ≥ 0)", name, l.Bytes, v)})
			break
		}
		m := []checks.Measurement{{Name: name, Value: v, Unit: rep.LatUnit}}
		unit := string(rep.LatUnit)
		if unit == "" {
			unit = "(unit not recorded: µs, or cycles with -C)"
		}
		what := fmt.Sprintf("%s %g %s at %d bytes", name, v, unit, l.Bytes)
		switch {
		case exp.Lat <= 0 || rep.LatUnit != checks.UnitUsec:
			out = append(out, Finding{ID: "perftest/result", Status: checks.StatusSkip, Measurements: m, Summary: what + ": no yardstick to judge it by (give --expect lat=…µs, or a fabric with maxLatency)"})
		case v > exp.Lat:
			out = append(out, Finding{ID: "perftest/result", Status: checks.StatusFail, Class: checks.HighLatency, Measurements: m, Summary: fmt.Sprintf("%s is above the expected %g µs", what, exp.Lat)})
		default:
			out = append(out, Finding{ID: "perftest/result", Status: checks.StatusPass, Measurements: m, Summary: fmt.Sprintf("%s, within the expected %g µs", what, exp.Lat)})
		}
	case len(rep.Bare) > 0:
		out = append(out, Finding{ID: "perftest/result", Status: checks.StatusSkip, Summary: fmt.Sprintf("%g (--output value): its unit is not printed, not judged", rep.Bare[len(rep.Bare)-1])})
	default:
		out = append(out, Finding{ID: "perftest/result", Status: checks.StatusSkip, Summary: "no result rows (server side or a capture cut before them)"})
	}
	return out
}

func evalPerftest(opt Options, name string, data []byte) ([]Finding, any, error) {
	// A console capture may show an --out_json file too (cat'ed after the run).
	if block := jsonBlock(data); block != nil {
		if rep, err := perftest.ParseJSON(block); err == nil && (len(rep.BW) > 0 || len(rep.Lat) > 0) {
			if text, terr := perftest.Parse(bytes.NewReader(data)); terr == nil && text.Title != "" {
				rep.Failures = append(rep.Failures, text.Failures...)
			}
			return perftestFindings(rep, opt.Expect), rep, nil
		}
	}
	rep, err := perftest.Parse(bytes.NewReader(data))
	if err != nil {
		return nil, nil, err
	}
	return perftestFindings(rep, opt.Expect), rep, nil
}

func evalPerftestJSON(opt Options, name string, data []byte) ([]Finding, any, error) {
	block := jsonBlock(data)
	if block == nil {
		block = data
	}
	rep, err := perftest.ParseJSON(block)
	if err != nil {
		return nil, nil, err
	}
	return perftestFindings(rep, opt.Expect), rep, nil
}

// jsonBlock returns the lines from the first line that is "{" to the last
// that is "}" (an --out_json file shown between shell prompts), or nil.
func jsonBlock(b []byte) []byte {
	lines := bytes.Split(b, []byte("\n"))
	start, end := -1, -1
	for i, l := range lines {
		t := bytes.TrimSpace(l)
		if start < 0 && bytes.Equal(t, []byte("{")) {
			start = i
		}
		if bytes.Equal(t, []byte("}")) {
			end = i
		}
	}
	if start < 0 || end < start {
		return nil
	}
	return bytes.Join(lines[start:end+1], []byte("\n"))
}

// NCCLFacts is what an NCCL log says, host by host, for the analysis report.
type NCCLFacts struct {
	Hosts []nccl.Host `json:"hosts,omitempty"`
	Tests []nccl.Perf `json:"tests,omitempty"`
}

func evalNCCL(opt Options, name string, data []byte) ([]Finding, any, error) {
	a, err := nccl.Analyze(nccl.Options{}, nccl.Source{Name: name, R: bytes.NewReader(data)})
	if err != nil {
		return nil, nil, err
	}
	return NCCLFindings(a, opt.Expect), NCCLFacts{Hosts: a.Hosts, Tests: a.Tests}, nil
}

// NCCLFindings turns an NCCL analysis into findings: one per finding of the
// analysis, and a passing one per host without any.
func NCCLFindings(a *nccl.Analysis, exp Expect) []Finding {
	var out []Finding
	flagged := map[string]bool{}
	for _, f := range a.Findings {
		flagged[f.Host] = true
		x := Finding{ID: "nccl/" + string(f.Kind), Status: f.Status, Class: f.Class, Subject: f.Host, Summary: f.Message, Evidence: []string{f.Where}}
		if f.Line != "" {
			x.Evidence = append(x.Evidence, f.Line)
		}
		if f.Count > 1 {
			x.Summary += fmt.Sprintf(" (%d times)", f.Count)
		}
		out = append(out, x)
	}
	ras := false
	for _, f := range a.Findings {
		ras = ras || f.Kind == nccl.RASMismatch || f.Kind == nccl.RASError
	}
	if a.RASReports > 0 && !ras {
		out = append(out, Finding{ID: "nccl/ras", Status: checks.StatusPass, Summary: fmt.Sprintf("%d NCCL RAS report(s): no errors or warnings", a.RASReports)})
	}
	// Ranks another host's channels connected to have connected too.
	linked := map[int]bool{}
	for _, h := range a.Hosts {
		for _, l := range h.Links {
			linked[l.From], linked[l.To] = true, true
		}
	}
	for _, h := range a.Hosts {
		if flagged[h.Name] || (a.RASReports > 0 && h.Name == nccl.UnknownHost && len(h.Transports) == 0) {
			continue
		}
		var bits []string
		if len(h.Versions) > 0 {
			bits = append(bits, "NCCL "+strings.Join(h.Versions, ","))
		}
		if len(h.Networks) > 0 {
			bits = append(bits, "network "+strings.Join(h.Networks, ","))
		}
		if t := h.IntraTransports(); len(t) > 0 {
			bits = append(bits, "within the node "+strings.Join(t, " "))
		}
		if t := h.InterTransports(); len(t) > 0 {
			bits = append(bits, "across nodes "+strings.Join(t, " "))
		}
		bits = append(bits, "GPUDirect RDMA "+h.GDRDMA)
		if h.NVLS != "" {
			bits = append(bits, "NVLS "+h.NVLS)
		}
		if len(h.Transports) == 0 && !h.InitComplete && len(h.NICDistance) == 0 && !slices.ContainsFunc(h.Ranks, func(r int) bool { return linked[r] }) {
			// The capture ends before NCCL connected a channel or finished a
			// communicator: what it chose is reported, nothing is judged.
			out = append(out, Finding{ID: "nccl/host", Status: checks.StatusSkip, Subject: h.Name,
				Summary: strings.Join(bits, ", ") + ": the log ends before any channel connected or a communicator completed its set-up, nothing to judge"})
			continue
		}
		out = append(out, Finding{ID: "nccl/host", Status: checks.StatusPass, Subject: h.Name, Summary: strings.Join(bits, ", ")})
	}
	for _, p := range a.Tests {
		if len(p.NotNumbers) > 0 {
			continue // a bad-number finding of the analysis says so: the table is not judged
		}
		m := p.MaxBusBW()
		if m <= 0 {
			continue
		}
		f := Finding{ID: "nccl/busbw", Status: checks.StatusSkip, Evidence: []string{p.Where},
			Measurements: []checks.Measurement{{Name: "busbw", Value: m, Unit: checks.UnitGBps}},
			Summary:      fmt.Sprintf("best bus bandwidth %.2f GB/s over %d sizes: no yardstick to judge it by (give --expect busbw=…)", m, len(p.Rows))}
		switch {
		case exp.BusBW <= 0:
		case m < exp.BusBW:
			f.Status, f.Class = checks.StatusFail, checks.LowBandwidth
			f.Summary = fmt.Sprintf("best bus bandwidth %.2f GB/s over %d sizes is below the expected %g GB/s", m, len(p.Rows), exp.BusBW)
		default:
			f.Status = checks.StatusPass
			f.Summary = fmt.Sprintf("best bus bandwidth %.2f GB/s over %d sizes, at least the expected %g GB/s", m, len(p.Rows), exp.BusBW)
		}
		out = append(out, f)
	}
	return out
}

// measured reports whether v can be a measured figure: finite and not
// negative (NaN, infinities and negative rates are a tool's or a capture's
// fault, never a pass).
func measured(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) && v >= 0 }
