package captured

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/analyze"
	"github.com/fabricctl/fabricctl/checks/nccl"
)

// Options tune the evaluation.
type Options struct {
	// Host names files placed directly in the root (default "captured").
	Host string
	// MaxFileSize skips larger files (default 16 MiB).
	MaxFileSize int64
	// Analyze holds the yardsticks figures are judged against (a fabric's
	// portRate, maxLatency); without them a figure is a skip.
	Analyze analyze.Options
}

// Evaluate reads every file under fsys, tells each one's tool from its
// content (analyze.Detect, never its name) and returns the results, sorted.
// A file that cannot be parsed becomes an error result naming it; files no
// tool printed are skipped. The NCCL logs of the whole tree are analysed
// together, so that versions are compared across hosts.
func Evaluate(fsys fs.FS, opt Options) ([]checks.Result, error) {
	if opt.Host == "" {
		opt.Host = "captured"
	}
	if opt.MaxFileSize == 0 {
		opt.MaxFileSize = 16 << 20
	}
	var files []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading the captures: %w", err)
	}
	var out []checks.Result
	var ncclSources []nccl.Source
	recognised := 0
	for _, p := range files {
		host := opt.Host
		if dir := path.Dir(p); dir != "." {
			host = strings.SplitN(dir, "/", 2)[0]
		}
		fi, err := fs.Stat(fsys, p)
		if err != nil {
			return nil, err
		}
		if fi.Size() > opt.MaxFileSize {
			out = append(out, checks.Result{ID: "captured/file", Target: host + "/" + path.Base(p), Status: checks.StatusSkip,
				Summary: fmt.Sprintf("%s is larger than %d bytes; skipped", p, opt.MaxFileSize)})
			continue
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil, err
		}
		kind := analyze.Detect(data)
		switch kind {
		case analyze.KindUnknown:
			continue
		case analyze.KindNCCL, analyze.KindNCCLTests:
			ncclSources = append(ncclSources, nccl.Source{Name: p, R: bytes.NewReader(data)})
		default:
			out = append(out, results(host, opt.Analyze.AnalyzeAs(p, kind, data))...)
		}
		recognised++
	}
	if recognised == 0 {
		return nil, fmt.Errorf("no capture found: no file holds output of ibv_devinfo, ibstat, show_gids, ibdev2netdev, nvidia-smi, lspci, perftest or NCCL")
	}
	if len(ncclSources) > 0 {
		a, err := nccl.Analyze(nccl.Options{}, ncclSources...)
		if err != nil {
			out = append(out, errorResult("captured/nccl", "nccl", err))
		} else {
			out = append(out, a.Results()...)
			for _, e := range a.Errors {
				out = append(out, errorResult("captured/nccl", e.Source, e))
			}
		}
	}
	checks.Sort(out)
	return out, nil
}

// results turns one analysed file into check results on host: ID
// "captured/<kind>/<check>", target host/<subject> (host/<file> for
// perftest runs, whose file is the run).
func results(host string, f analyze.File) []checks.Result {
	var out []checks.Result
	for _, x := range f.Findings {
		target := host
		switch {
		case f.Kind == analyze.KindPerftest || f.Kind == analyze.KindPerftestJSON:
			target = host + "/" + path.Base(f.File)
		case x.Subject != "":
			target = host + "/" + x.Subject
		}
		r := checks.Result{ID: "captured/" + x.ID, Target: target, Status: x.Status, Class: x.Class, Summary: x.Summary, Measurements: x.Measurements, Evidence: x.Evidence}
		if x.Status != checks.StatusPass {
			r.Evidence = append([]string{f.File}, x.Evidence...)
		}
		out = append(out, r)
	}
	return out
}

func errorResult(id, target string, err error) checks.Result {
	return checks.Result{ID: id, Target: target, Status: checks.StatusError, Summary: err.Error()}
}
