package ibcheck

import (
	"context"

	"fmt"
	"os"

	"strings"
	"time"

	"github.com/fabricctl/fabricctl/checks/ibdiag"
	"github.com/fabricctl/fabricctl/checks/ibfabric"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg/opensm"
)

// Options say how to run the diagnostics.
type Options struct {
	// Runner runs the tools (nil: an ExecRunner on Env and Dir, this
	// machine; an AgentRunner runs them on a vantage host).
	Runner Runner
	// Env is added to this process's environment for every tool
	// (KEY=VALUE), and Dir is their working directory ("": this one's),
	// when Runner is nil.
	Env []string
	Dir string
	// Timeout bounds one tool (60 s when zero): a umad2sim client whose
	// ibsim is gone retries forever.
	Timeout time.Duration
	// Parallel is how many P_Key tables are read at once (6 when zero:
	// ibsim serves 10 clients, and OpenSM holds one).
	Parallel int
	// Vantage names this node in messages ("" : this host's name).
	Vantage string
	// Progress, when set, receives one line per diagnostic with its time.
	Progress func(format string, args ...any)
	// Before is the error counters' reading taken before other suites ran
	// (Baseline); nil judges one reading.
	Before *ibdiag.QueryErrors
}

// Baseline reads the error counters (ibqueryerrors --skip-sl) before other
// suites run; Options.Before hands it to Run, which judges what grew.
func Baseline(ctx context.Context, o Options) (*ibdiag.QueryErrors, error) {
	out, err := o.run(ctx, "ibqueryerrors", "--skip-sl")
	if err != nil {
		return nil, err
	}
	return ibdiag.ParseIBQueryErrors(string(out))
}

// Run reads the fabric from here and judges it against f's declared
// InfiniBand side. The error is for a fabric without InfiniBand cabling;
// a tool that fails becomes an error result of its check.
func Run(ctx context.Context, f *fabric.Fabric, o Options) (ibfabric.Outcome, error) {
	d, err := ibfabric.Declare(f)
	if err != nil {
		return ibfabric.Outcome{}, err
	}
	r := Read(ctx, d, o)
	if err := ctx.Err(); err != nil {
		return ibfabric.Outcome{}, err
	}
	return ibfabric.Judge(d, r), nil
}

// Read runs the diagnostics and parses their outputs.
func Read(ctx context.Context, d *ibfabric.Declared, o Options) *ibfabric.Reading {
	if o.Vantage == "" {
		o.Vantage, _ = os.Hostname()
	}
	r := &ibfabric.Reading{Vantage: o.Vantage, ErrorsBefore: o.Before}
	var out []byte
	var err error
	if out, err = o.run(ctx, "sminfo"); err == nil {
		var s *ibdiag.SMInfo
		if s, err = ibdiag.ParseSMInfo(string(out)); err == nil {
			r.SMInfo = append(r.SMInfo, s)
		}
	}
	r.SMInfoErr = err
	if out, err = o.run(ctx, "ibnetdiscover", "-p"); err == nil {
		r.Ports, err = ibdiag.ParseIBNetDiscover(string(out))
	}
	r.PortsErr = err
	if out, err = o.run(ctx, "iblinkinfo"); err == nil {
		r.Links, err = ibdiag.ParseIBLinkInfo(string(out))
	}
	r.LinksErr = err
	if out, err = o.run(ctx, "saquery", "SMIR"); err == nil {
		r.SMRecords, err = ibfabric.ParseSMIR(string(out))
	}
	r.SMRecordsErr = err
	// --skip-sl: without it ibqueryerrors asks the SA for a path to every
	// node first, and one node that answers nothing voids the whole run.
	if out, err = o.run(ctx, "ibqueryerrors", "--skip-sl"); err == nil {
		r.Errors, err = ibdiag.ParseIBQueryErrors(string(out))
	}
	r.ErrorsErr = err
	if len(d.Partitions) > 0 {
		fr := &opensm.FabricReader{Diag: stdoutRunner{o}, Parallel: o.Parallel}
		if fr.Parallel == 0 {
			fr.Parallel = 6
		}
		t0 := time.Now()
		r.PKeys, r.PKeysErr = fr.Observe(ctx)
		if o.Progress != nil && r.PKeys != nil {
			o.Progress("ib: %d P_Key tables read in %v (%d at once)", len(r.PKeys.Tables), time.Since(t0).Round(time.Millisecond), fr.Parallel)
		}
	}
	// the second reading of the master, after the others: a master that
	// changed in between is flapping
	if len(r.SMInfo) == 1 {
		out, err := o.run(ctx, "sminfo")
		var s *ibdiag.SMInfo
		if err == nil {
			s, err = ibdiag.ParseSMInfo(string(out))
		}
		if err != nil {
			r.SMInfoAgainErr = err
		} else {
			r.SMInfo = append(r.SMInfo, s)
		}
	}
	return r
}

// run runs one tool and returns its stdout and stderr together, as the
// parsers read them (a tool's own complaints are on stderr). A tool that
// printed something and exited non-zero (ibqueryerrors does when it finds
// errors) is not an error: its output is read.
func (o Options) run(ctx context.Context, argv ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, o.timeout())
	defer cancel()
	if o.Progress != nil {
		defer func(t0 time.Time) {
			o.Progress("ib: %s in %v", strings.Join(argv, " "), time.Since(t0).Round(time.Millisecond))
		}(time.Now())
	}
	out, err := o.runner().RunDiag(ctx, argv)
	if err != nil {
		return nil, err
	}
	b := append(out.Stdout, out.Stderr...)
	if out.ExitCode != 0 && len(b) == 0 {
		return nil, fmt.Errorf("running %s: exit status %d", strings.Join(argv, " "), out.ExitCode)
	}
	return b, nil
}

func (o Options) timeout() time.Duration {
	if o.Timeout == 0 {
		return 60 * time.Second
	}
	return o.Timeout
}

// stdoutRunner is an opensm.Runner on Options: stdout only, as
// FabricReader parses it.
type stdoutRunner struct{ o Options }

func (s stdoutRunner) Run(ctx context.Context, argv []string, stdin []byte) ([]byte, error) {
	if len(stdin) > 0 {
		return nil, fmt.Errorf("running %s: the diagnostics take no input", strings.Join(argv, " "))
	}
	ctx, cancel := context.WithTimeout(ctx, s.o.timeout())
	defer cancel()
	out, err := s.o.runner().RunDiag(ctx, argv)
	if err != nil {
		return out.Stdout, err
	}
	if out.ExitCode != 0 {
		return out.Stdout, &diagExit{argv: argv, code: out.ExitCode, stderr: strings.TrimSpace(string(out.Stderr))}
	}
	return out.Stdout, nil
}

// WithBaseline is o with Before read now (Baseline) unless it holds one:
// what other suites run next, the ib suite then judges by what grew. A
// failed reading leaves Before nil (one reading is judged) and says why on
// progress, when set.
func (o Options) WithBaseline(ctx context.Context, progress func(format string, args ...any)) Options {
	if o.Before != nil {
		return o
	}
	b, err := Baseline(ctx, o)
	if err != nil {
		if progress != nil {
			progress("ib: reading the error counters before the other suites: %v (judging one reading)", err)
		}
		return o
	}
	o.Before = b
	return o
}
