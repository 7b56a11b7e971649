package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/fabricctl/fabricctl/internal/output"
	"github.com/fabricctl/fabricctl/internal/remote"
	"github.com/spf13/cobra"
)

// Exit codes of DESIGN.md §3.
const (
	exitOK      = 0
	exitError   = 1
	exitChanges = 2 // plan: changes pending; drift: drift found; check: failures
)

// exitCodeError carries a specific exit code out of a command without printing
// anything more (the command already reported what it found).
type exitCodeError struct{ code int }

func (e exitCodeError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// globals are the flags every command shares.
type globals struct {
	output   string
	color    string // --color: auto, always or never
	parallel int
	timeout  time.Duration
	verbose  bool

	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	log    *slog.Logger
	// dial, when set, opens every TCP connection to targets (tests and the
	// lab reach namespaces through it).
	dial remote.DialFunc
}

// commands lists every subcommand; add new ones here (explicit, no init()).
func commands(g *globals) []*cobra.Command {
	return []*cobra.Command{
		newVersionCmd(g),
		newInitCmd(g),
		newValidateCmd(g),
		newRenderCmd(g),
		newSchemaCmd(g),
		newPlanCmd(g),
		newApplyCmd(g),
		newDriftCmd(g),
		newRecoverCmd(g),
		newLabCmd(g),
		newNCCLCmd(g),
		newAnalyzeCmd(g),
		newHostCmd(g), newAgentCmd(g),
		newSwitchSimCmd(g), newSwitchCmd(g),
		newCheckCmd(g),
		newCountersCmd(g),
		newTaskCmd(g),
		newK8sCmd(g),
	}
}

func newRootCmd(g *globals) *cobra.Command {
	root := &cobra.Command{
		Use:           "fabricctl",
		Short:         "Configure and validate RDMA fabrics (RoCE v2 and InfiniBand) from one YAML source of truth",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			level := slog.LevelWarn
			if g.verbose {
				level = slog.LevelDebug
			}
			g.log = slog.New(slog.NewTextHandler(g.stderr, &slog.HandlerOptions{Level: level}))
			g.log.Debug("starting", "command", cmd.CommandPath()) // signals are handled from here on
			return g.setTerm()
		},
	}
	root.SetIn(g.stdin)
	root.SetOut(g.stdout)
	root.SetErr(g.stderr)
	pf := root.PersistentFlags()
	pf.StringVarP(&g.output, "output", "o", "table", "output format: table|wide|json|yaml (wide: every column, nothing wrapped or cut); check adds junit|html, drift prometheus")
	pf.StringVar(&g.color, "color", output.ColorAuto, "colour status words: auto (when stdout is a terminal and NO_COLOR is unset)|always|never")
	pf.IntVar(&g.parallel, "parallel", 32, "how many targets to work on at once")
	pf.DurationVar(&g.timeout, "timeout", 10*time.Minute, "overall time limit of the command (0: none); check derives its own from its schedule unless this is given")
	pf.BoolVarP(&g.verbose, "verbose", "v", false, "log progress and debug detail to stderr")
	for _, c := range commands(g) {
		root.AddCommand(c)
	}
	decorateHelp(root)        // help.go: examples; internal commands hidden
	registerCompletions(root) // completion.go: flag values for the shells
	return root
}

// setTerm lays out the tables printed on stdout (output.DetectTerm: the terminal's width,
// --color, NO_COLOR) and makes -o wide a table that is wide, so that every command taking
// -o table takes -o wide too.
func (g *globals) setTerm() error {
	term, err := output.DetectTerm(g.stdout, g.color, os.Getenv)
	if err != nil {
		return err
	}
	if g.output == output.Wide {
		g.output, term.Wide = output.Table, true
	}
	if term != (output.Term{}) {
		g.stdout = &output.Terminal{Writer: g.stdout, Term: term}
	}
	return nil
}

// run executes fabricctl with args and returns the process exit code. The first
// SIGINT/SIGTERM cancels the command's context; a second one exits 130 at once.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	g := &globals{stdin: stdin, stdout: stdout, stderr: stderr,
		log: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go func() {
		n := 0
		for range sigs {
			n++
			if n == 1 {
				fmt.Fprintln(stderr, "fabricctl: interrupted; finishing cleanly (press Ctrl-C again to exit now)")
				cancel()
				continue
			}
			os.Exit(130)
		}
	}()
	return execute(ctx, g, args)
}

// execute runs the command tree without signal handling; tests call it directly.
func execute(ctx context.Context, g *globals, args []string) int {
	root := newRootCmd(g)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	var ec exitCodeError
	if errors.As(err, &ec) {
		return ec.code
	}
	// Errors quote file names and input: shown escaped, never raw.
	fmt.Fprintf(g.stderr, "fabricctl: %s\n", output.PrintableLines(err.Error()))
	return exitError
}
