package captured

import (
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/analyze"
	"github.com/fabricctl/fabricctl/checks/nccl"
)

// MaxFileSize is the default size above which a capture is skipped: real
// captures are kilobytes; a whole tree is read one file at a time.
const MaxFileSize = 16 << 20

// Options tune the evaluation.
type Options struct {
	// Host names files placed directly in the root (default "captured").
	Host string
	// MaxFileSize skips larger files (default MaxFileSize).
	MaxFileSize int64
	// Analyze holds the yardsticks figures are judged against (a fabric's
	// portRate, maxLatency); without them a figure is a skip.
	Analyze analyze.Options
}

// Evaluate reads every file under fsys, tells each one's tool from its
// content (analyze.Detect, never its name) and returns the results, sorted.
// A file that cannot be parsed becomes an error result naming it; files no
// tool printed are listed in one skip result (captured/unrecognised). A file
// that cannot be read is one error result naming it, and the others are
// judged all the same; give a user's tree as an infile.Dir, which refuses
// FIFOs, devices and links out of the tree without blocking. The NCCL logs
// of the whole tree are analysed together, so that versions are compared
// across hosts; each is read again when analysed, never held.
func Evaluate(fsys fs.FS, opt Options) ([]checks.Result, error) {
	if opt.Host == "" {
		opt.Host = "captured"
	}
	if opt.MaxFileSize == 0 {
		opt.MaxFileSize = MaxFileSize
	}
	var files []string
	var out []checks.Result
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == "." {
				return err
			}
			// An unreadable folder is one error; the rest is read.
			out = append(out, errorResult("captured/file", hostOf(opt.Host, p)+"/"+path.Base(p), err))
			return nil
		}
		if !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading the captures: %w", err)
	}
	var ncclSources []nccl.Source
	var unrecognised []string
	recognised := 0
	for _, p := range files {
		host := hostOf(opt.Host, p)
		target := host + "/" + path.Base(p)
		// A file that cannot be read (a FIFO, a device, a link out of the
		// tree, over the budget) is one error result: the others' results
		// stand.
		fi, err := fs.Stat(fsys, p)
		if err != nil {
			out = append(out, errorResult("captured/file", target, err))
			continue
		}
		if fi.Size() > opt.MaxFileSize {
			out = append(out, checks.Result{ID: "captured/file", Target: target, Status: checks.StatusSkip,
				Summary: fmt.Sprintf("%s is larger than %d bytes; skipped", p, opt.MaxFileSize)})
			continue
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			out = append(out, errorResult("captured/file", target, err))
			continue
		}
		kind := analyze.Detect(data)
		switch kind {
		case analyze.KindUnknown:
			unrecognised = append(unrecognised, p)
			continue
		case analyze.KindNCCL, analyze.KindNCCLTests:
			// Read again when analysed, not held: a tree of large logs
			// costs one log's memory at a time.
			ncclSources = append(ncclSources, nccl.Source{Name: p, R: &lazyFile{fsys: fsys, name: p}})
		default:
			out = append(out, results(host, opt.Analyze.AnalyzeAs(p, kind, data))...)
		}
		recognised++
	}
	if recognised == 0 && len(out) == 0 {
		return nil, fmt.Errorf("no capture found: no file holds output of ibv_devinfo, ibstat, show_gids, ibdev2netdev, nvidia-smi, lspci, perftest or NCCL")
	}
	if len(unrecognised) > 0 {
		out = append(out, unrecognisedResult(opt.Host, unrecognised))
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

// hostOf is the host a file of the tree belongs to: its first folder, or
// root for files directly in the root.
func hostOf(root, p string) string {
	if dir := path.Dir(p); dir != "." {
		return strings.SplitN(dir, "/", 2)[0]
	}
	return root
}

// maxListed bounds the files one result lists.
const maxListed = 20

// unrecognisedResult accounts for the files no tool's output was found in:
// one skip naming them (the first maxListed), so that a capture left out of
// the verdict is seen.
func unrecognisedResult(root string, files []string) checks.Result {
	ev := files
	if len(ev) > maxListed {
		ev = append(slices.Clone(ev[:maxListed]), fmt.Sprintf("… and %d more", len(files)-maxListed))
	}
	return checks.Result{ID: "captured/unrecognised", Target: root, Status: checks.StatusSkip,
		Summary: fmt.Sprintf("%d file(s) hold no output fabricctl reads; not judged", len(files)), Evidence: ev}
}

// lazyFile opens a file of a tree when first read and closes it at its end.
type lazyFile struct {
	fsys fs.FS
	name string
	f    fs.File
	done bool
}

func (l *lazyFile) Read(p []byte) (int, error) {
	if l.done {
		return 0, io.EOF
	}
	if l.f == nil {
		f, err := l.fsys.Open(l.name)
		if err != nil {
			l.done = true
			return 0, err
		}
		l.f = f
	}
	n, err := l.f.Read(p)
	if err != nil {
		l.f.Close()
		l.done = true
	}
	return n, err
}

func errorResult(id, target string, err error) checks.Result {
	return checks.Result{ID: id, Target: target, Status: checks.StatusError, Summary: err.Error()}
}
