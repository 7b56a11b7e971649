package analyze

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/ctxio"
	"github.com/fabricctl/fabricctl/internal/infile"
	"github.com/fabricctl/fabricctl/internal/output"
)

// ReportKind is the kind written next to apiVersion in JSON reports.
const ReportKind = "AnalysisReport"

// Report is what `fabricctl analyze` prints: one entry per file, in the
// order given.
type Report struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Files      []File `json:"files"`
}

// File is one analysed file.
type File struct {
	File     string    `json:"file"`
	Kind     Kind      `json:"kind"`
	Findings []Finding `json:"findings"`
	// Facts is what the file says, parsed (devices, versions, hosts …),
	// as the tool's parser returns it.
	Facts any `json:"facts,omitempty"`
}

// Finding is one verdict about a file: Status is pass, warn, fail, skip or
// error (the file could not be read or parsed).
type Finding struct {
	ID      string              `json:"id"` // "<kind>/<check>": "ibstat/port-state", "nccl/socket-fallback"
	Status  checks.Status       `json:"status"`
	Class   checks.FailureClass `json:"class,omitempty"`
	Subject string              `json:"subject,omitempty"` // what inside the file: "mlx5_0/1", "GPU3", a host
	Summary string              `json:"summary"`
	// Measurements are the numbers behind the verdict (a port rate, a
	// bandwidth, a GID index).
	Measurements []checks.Measurement `json:"measurements,omitempty"`
	Evidence     []string             `json:"evidence,omitempty"`
}

// Worst returns the worst status of the file's findings (pass for none).
func (f File) Worst() checks.Status {
	w := checks.StatusPass
	for _, x := range f.Findings {
		if x.Status.Worse(w) {
			w = x.Status
		}
	}
	return w
}

// MaxFileSize bounds what ReadFiles reads of one file.
const MaxFileSize = infile.MaxLog

// ReadFiles analyses every file, one by one: a file that cannot be read is
// one error entry and the others are analysed all the same. "-" reads stdin.
func ReadFiles(ctx context.Context, stdin io.Reader, paths []string, opt Options) (*Report, error) {
	rep := &Report{APIVersion: fabric.APIVersion, Kind: ReportKind}
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		data, err := readFile(ctx, stdin, p)
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr
		}
		if err != nil {
			rep.Files = append(rep.Files, File{File: p, Kind: KindUnknown,
				Findings: []Finding{{ID: "file/read", Status: checks.StatusError, Summary: err.Error()}}})
			continue
		}
		rep.Files = append(rep.Files, opt.Analyze(p, data))
	}
	return rep, nil
}

// readFile reads one file named on the command line ("-": stdin) as every
// user-named input is read (infile): regular files only, refused at once
// otherwise, within MaxFileSize, giving way to ctx.
func readFile(ctx context.Context, stdin io.Reader, path string) ([]byte, error) {
	if path == "-" {
		stdin = ctxio.NewReader(ctx, stdin)
	}
	data, err := infile.ReadArg(ctx, stdin, path, MaxFileSize)
	if err != nil {
		return nil, fmt.Errorf("reading %w", err)
	}
	return data, nil
}

// evaluator turns one kind's output into findings and facts.
type evaluator func(opt Options, name string, data []byte) ([]Finding, any, error)

// evaluators is the registry of kinds Analyze can judge.
var evaluators = map[Kind]evaluator{
	KindNCCL:         evalNCCL,
	KindNCCLTests:    evalNCCL,
	KindPerftest:     evalPerftest,
	KindPerftestJSON: evalPerftestJSON,
	KindTopo:         evalTopo,
	KindSMIQuery:     evalSMIQuery,
	KindSMI:          evalSMI,
	KindNVLink:       evalNVLink,
	KindDevInfo:      evalDevInfo,
	KindIBStat:       evalIBStat,
	KindShowGIDs:     evalShowGIDs,
	KindIBDev2Netdev: evalIBDev2Netdev,
	KindIBLinkInfo:   evalIBLinkInfo,
	KindLSPCI:        evalLSPCI,
	KindHealth:       evalHealth,
	KindP2P:          evalP2P,
	KindKernelLog:    evalKernelLog,

	// the InfiniBand diagnostics (checks/ibdiag)
	KindIBNetDiscover: evalIBNetDiscover,
	KindPerfQuery:     evalPerfQuery,
	KindSMPQuery:      evalSMPQuery,
	KindSMInfo:        evalSMInfo,
	KindIBTracert:     evalIBTracert,
	KindIBRoute:       evalIBRoute,
	KindIBQueryErrors: evalIBQueryErrors,
}

// Analyze detects what data is (Detect) and judges it. It never fails: a
// file nothing recognises is one skip finding, a parse error one error
// finding, both located by the file name.
func Analyze(name string, data []byte) File { return Options{}.Analyze(name, data) }

// AnalyzeAs judges data as output of kind k, without yardsticks.
func AnalyzeAs(name string, k Kind, data []byte) File { return Options{}.AnalyzeAs(name, k, data) }

// Analyze is the package's Analyze with o's yardsticks. A capture no kind
// is told in whose lines carry launcher prefixes (pdsh, srun, mpirun,
// kubectl, Ray, timestamps) is taken apart by machine and read again.
func (o Options) Analyze(name string, data []byte) File {
	k := Detect(data)
	if k != KindUnknown {
		return o.AnalyzeAs(name, k, data)
	}
	parts, ok := demux(data)
	if !ok {
		return o.AnalyzeAs(name, k, data)
	}
	if len(parts) == 1 {
		f := o.AnalyzeAs(name, Detect(parts[0].data), parts[0].data)
		for i := range f.Findings {
			if parts[0].source != "" {
				f.Findings[i].Subject = strings.TrimSuffix(parts[0].source+"/"+f.Findings[i].Subject, "/")
			}
		}
		return f
	}
	return o.analyzeParts(name, parts)
}

// AnalyzeAs judges data as output of kind k with o's yardsticks.
func (o Options) AnalyzeAs(name string, k Kind, data []byte) File {
	out := File{File: name, Kind: k}
	ev, ok := evaluators[k]
	if !ok {
		out.Findings = []Finding{unknownKind(data)}
		return out
	}
	findings, facts, err := ev(o, name, bytes.Clone(data))
	if err != nil {
		findings = append(findings, Finding{ID: string(k) + "/parse", Status: checks.StatusError, Summary: fmt.Sprintf("%s: %v", name, err)})
	}
	if b, ok := facts.(interface{ BadNumberLines() []string }); ok {
		findings = append(findings, numbersFindings(k, b.BadNumberLines())...)
	}
	if len(findings) == 0 {
		findings = []Finding{{ID: string(k) + "/summary", Status: checks.StatusPass, Summary: "nothing wrong found"}}
	}
	slices.SortStableFunc(findings, func(a, b Finding) int {
		if a.ID != b.ID {
			if a.ID < b.ID {
				return -1
			}
			return 1
		}
		switch {
		case a.Subject < b.Subject:
			return -1
		case a.Subject > b.Subject:
			return 1
		}
		return 0
	})
	out.Findings, out.Facts = findings, facts
	return out
}

// numbersFindings is the error finding of the figures a capture holds that
// are no number their field can hold (a counter of 1e23, a negative count,
// a NaN rate): they were left out, never read as zero, so what they would
// have shown is unknown. None for none.
func numbersFindings(k Kind, lines []string) []Finding {
	if len(lines) == 0 {
		return nil
	}
	return []Finding{{ID: string(k) + "/numbers", Status: checks.StatusError, Evidence: lines,
		Summary: fmt.Sprintf("%d figure(s) are no number their field can hold and were left out, not read as zero: %s", len(lines), lines[0])}}
}

// unknownKind is the finding of a file no kind was told in: which kinds
// were tried, and which came closest with what score of the minScore a
// kind needs.
func unknownKind(data []byte) Finding {
	if len(bytes.TrimSpace(data)) == 0 {
		return Finding{ID: "file/kind", Status: checks.StatusSkip, Summary: "the file is empty: nothing to judge (some tools print nothing at all, e.g. nvidia-smi nvlink on a GPU whose NVLinks the system cannot see)"}
	}
	tried, closest, score := Closest(data)
	names := make([]string, len(tried))
	for i, k := range tried {
		names[i] = string(k)
	}
	f := Finding{ID: "file/kind", Status: checks.StatusSkip, Evidence: []string{"tried: " + strings.Join(names, ", ")}}
	if closest == KindUnknown {
		f.Summary = "no tool output fabricctl recognises: no line of any kind it reads"
		return f
	}
	f.Summary = fmt.Sprintf("no tool output fabricctl recognises: closest %s (score %d of the %d a kind needs)", closest, score, minScore)
	return f
}

// Table writes one row per finding, grouped by file, for people; a long
// path is cut in its middle to fit the terminal, except in -o wide, and the
// SUMMARY wraps.
func (r *Report) Table(t *output.TableWriter) {
	t.Row("FILE", "KIND", "STATUS", "CHECK", "SUBJECT", "SUMMARY")
	t.CutToFit(0)
	for _, f := range r.Files {
		for _, x := range f.Findings {
			t.Row(f.File, string(f.Kind), strings.ToUpper(string(x.Status)), x.ID, output.OrDash(x.Subject), x.Summary)
		}
	}
}

// Worst is the worst status of every file's findings.
func (r *Report) Worst() checks.Status {
	var all []checks.Result
	for _, f := range r.Files {
		all = append(all, checks.Result{Status: f.Worst()})
	}
	return checks.Worst(all)
}
