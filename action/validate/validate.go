package validate

import (
	"errors"
	"fmt"
	"sort"

	"github.com/fabricctl/fabricctl/action/render"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"
)

// Kind is the kind of the Result document.
const Kind = "ValidationResult"

// Result is the outcome of validating one file. Fabric, Profiles and the
// target counts describe a file that loaded (valid, perhaps with
// warnings); Diagnostics lists every error and warning sorted by position.
type Result struct {
	APIVersion     string              `json:"apiVersion"`
	Kind           string              `json:"kind"`
	File           string              `json:"file"`
	Valid          bool                `json:"valid"`
	Fabric         string              `json:"fabric,omitempty"`
	Profiles       []string            `json:"profiles"`
	Hosts          int                 `json:"hosts"`
	Switches       int                 `json:"switches"`
	SubnetManagers int                 `json:"subnetManagers"`
	ErrorCount     int                 `json:"errorCount"`
	WarningCount   int                 `json:"warningCount"`
	Diagnostics    []fabric.Diagnostic `json:"diagnostics"`
}

// Options are what Run checks against.
type Options struct {
	// Registry holds the switch and subnet-manager drivers: the platforms
	// ports and models are checked against, and the renderers of the
	// subnet managers' partitions. Nil checks neither.
	Registry *switchcfg.Registry
	// ReadFile reads the file and its includes (nil: the file system);
	// see fabric.Options.
	ReadFile func(path string) ([]byte, error)
	// Data, when not nil, is the file's content, already read (from
	// standard input, say): the file argument only names it in messages,
	// and its includes resolve relative to that name's directory.
	Data []byte
}

// Run validates file and returns every finding.
func Run(file string, o Options) Result {
	res := Result{APIVersion: fabric.APIVersion, Kind: Kind, File: file, Profiles: []string{}, Diagnostics: []fabric.Diagnostic{}}
	if file == "" {
		res.add(fabric.Diagnostics(errors.New("no fabric file: give -f FILE"), nil))
		return res
	}
	fo := fabric.Options{ReadFile: o.ReadFile}
	if o.Registry != nil {
		fo.Platforms = o.Registry
	}
	var f *fabric.Fabric
	var ws fabric.Warnings
	var err error
	if o.Data != nil {
		f, ws, err = fabric.CheckBytes(file, o.Data, fo)
	} else {
		f, ws, err = fabric.Check(file, fo)
	}
	if err == nil && o.Registry != nil {
		// What OpenSM would read: a partition that renders wrong is an
		// error of the file, though not of one line of it.
		if serr := render.CheckSubnetManagers(f, o.Registry); serr != nil {
			err = fabric.Errors{{Pos: fabric.Pos{File: file}, Msg: serr.Error()}}
		}
	}
	res.add(fabric.Diagnostics(err, ws))
	if res.ErrorCount > 0 {
		return res
	}
	res.Valid = true
	res.Fabric = f.Metadata.Name
	res.Hosts, res.Switches, res.SubnetManagers = len(f.Spec.Hosts), len(f.Spec.Switches), len(f.Spec.SubnetManagers)
	for n := range f.Profiles {
		res.Profiles = append(res.Profiles, n)
	}
	sort.Strings(res.Profiles)
	return res
}

func (r *Result) add(ds []fabric.Diagnostic) {
	for _, d := range ds {
		if d.Severity == fabric.SeverityWarning {
			r.WarningCount++
		} else {
			r.ErrorCount++
		}
	}
	r.Diagnostics = append(r.Diagnostics, ds...)
}

// Summary is the one line that closes the text report: "FILE: valid",
// "FILE: valid with 2 warning(s)" or "FILE: 3 error(s)[, 1 warning(s)]".
func (r Result) Summary() string {
	switch {
	case r.Valid && r.WarningCount == 0:
		return fmt.Sprintf("%s: valid", r.File)
	case r.Valid:
		return fmt.Sprintf("%s: valid with %d warning(s)", r.File, r.WarningCount)
	case r.WarningCount == 0:
		return fmt.Sprintf("%s: %d error(s)", r.File, r.ErrorCount)
	}
	return fmt.Sprintf("%s: %d error(s), %d warning(s)", r.File, r.ErrorCount, r.WarningCount)
}
