package main

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fabricctl/fabricctl/checks/report"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/output"
	"github.com/fabricctl/fabricctl/switchcfg/sim"
)

// completeFunc completes one flag's value.
type completeFunc = func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective)

// registerCompletions walks the built command tree and gives every flag it
// knows by name a function that completes its values in the shells of
// `fabricctl completion`: --target and --host the names in the fabric of -f
// on the same command line, --platform the registered platforms,
// --suite the check suites, -o the formats of the command, and the other
// enumerations and paths. Cobra's hidden __complete command shows what a
// shell gets: fabricctl __complete plan -f lab.yaml --target "".
func registerCompletions(root *cobra.Command) {
	byName := map[string]completeFunc{
		"target":      completeTargets,
		"host":        completeHosts,
		"platform":    completePlatforms,
		"model":       completeModels,
		"suite":       completeList(suiteNames()),
		"output":      completeOutput,
		"output-kind": completeWords(outputKindNames()),
		"launcher":    completeWords([]string{"ssh", "slurm"}),
		"color":       completeWords([]string{"auto", "always", "never"}),
		"file":        completeExt("yaml", "yml"),
		"desired":     completeExt("json"),
		"from-dir":    completeDirs,
		"out":         completeDirs,
		"state-dir":   completeDirs,
		"ib-lab":      completeDirs,
	}
	register := func(c *cobra.Command, fs *pflag.FlagSet) {
		fs.VisitAll(func(f *pflag.Flag) {
			if fn, ok := byName[f.Name]; ok {
				// An error says the flag has its function already
				// (a persistent flag seen twice): keep it.
				_ = c.RegisterFlagCompletionFunc(f.Name, fn)
			}
		})
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		register(c, c.PersistentFlags())
		register(c, c.LocalNonPersistentFlags())
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// suiteNames are check's suites.
func suiteNames() []string {
	return []string{string(report.SuitePreflight), string(report.SuiteLoopback), string(report.SuitePairwise), string(report.SuiteIncast),
		string(report.SuiteNCCL), string(report.SuiteIB)}
}

// completeWords completes one of words.
func completeWords(words []string) completeFunc {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return words, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeList completes a comma-separated list of words, each once.
func completeList(words []string) completeFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return listCompletions(words, toComplete), cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	}
}

// listCompletions completes the last element of the comma-separated
// toComplete with words not given before it.
func listCompletions(words []string, toComplete string) []string {
	var given []string
	prefix := ""
	if i := strings.LastIndex(toComplete, ","); i >= 0 {
		prefix = toComplete[:i+1]
		given = strings.Split(toComplete[:i], ",")
	}
	var out []string
	for _, w := range words {
		if !slices.Contains(given, w) {
			out = append(out, prefix+w)
		}
	}
	return out
}

// completeExt completes files with one of exts, and directories.
func completeExt(exts ...string) completeFunc {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return exts, cobra.ShellCompDirectiveFilterFileExt
	}
}

// completeDirs completes directories.
func completeDirs(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return nil, cobra.ShellCompDirectiveFilterDirs
}

// completionFabric loads the fabric of -f on the command line being
// completed, quietly: nil when there is none, it is - (standard input
// is the shell's), or it does not load.
func completionFabric(cmd *cobra.Command) *fabric.Fabric {
	fl := cmd.Flags().Lookup("file")
	if fl == nil || fl.Value.String() == "" || fl.Value.String() == stdinArg {
		return nil
	}
	f, err := fabric.Load(fl.Value.String(), fabric.Options{Platforms: platforms()})
	if err != nil {
		return nil
	}
	return f
}

// completeTargets completes --target: the fabric's hosts, switches and
// subnet managers (check's and counters' hosts and switches only, what
// they reach), a comma-separated list for commands that take several.
func completeTargets(cmd *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	f := completionFabric(cmd)
	if f == nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var names []string
	for _, h := range f.Spec.Hosts {
		names = append(names, h.Name)
	}
	if cmd.Name() != "check" {
		for _, s := range f.Spec.Switches {
			names = append(names, s.Name)
		}
	}
	if cmd.Name() != "check" && cmd.Name() != "counters" {
		for _, s := range f.Spec.SubnetManagers {
			names = append(names, s.Name)
		}
	}
	if fl := cmd.Flags().Lookup("target"); fl != nil && fl.Value.Type() == "stringSlice" {
		return listCompletions(names, toComplete), cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	}
	return names, cobra.ShellCompDirectiveNoFileComp
}

// completeHosts completes --host: the fabric's hosts.
func completeHosts(cmd *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
	f := completionFabric(cmd)
	if f == nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var names []string
	for _, h := range f.Spec.Hosts {
		names = append(names, h.Name)
	}
	return names, cobra.ShellCompDirectiveNoFileComp
}

// completePlatforms completes --platform: the simulator's platforms for
// switchsim, the registered switch platforms (and, for switch parse, the
// subnet-manager kinds) elsewhere.
func completePlatforms(cmd *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
	var names []string
	switch cmd.Name() {
	case "switch-sim":
		names = sim.Platforms()
	case "parse":
		names = append(switchRegistry().Names(), switchRegistry().SubnetManagerKinds()...)
	default:
		names = switchRegistry().Names()
	}
	slices.Sort(names)
	return names, cobra.ShellCompDirectiveNoFileComp
}

// completeModels completes --model: the models of --platform's driver.
func completeModels(cmd *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
	fl := cmd.Flags().Lookup("platform")
	if fl == nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	d, err := switchRegistry().Driver(fl.Value.String())
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var names []string
	for _, m := range d.Info().Models {
		names = append(names, m.Name)
	}
	return names, cobra.ShellCompDirectiveNoFileComp
}

// outputFormats are the -o values each command takes beyond table, json
// and yaml's default, by command path without "fabricctl ".
var outputFormats = map[string][]string{
	"check":        {output.Table, output.JSON, "junit", "html", "nhc"},
	"drift":        {output.Table, output.JSON, output.YAML, "prometheus"},
	"k8s render":   {output.Table, output.YAML},
	"switch parse": {output.JSON, output.YAML},
	"lab status":   {output.Table, output.JSON},
}

// completeOutput completes -o with the formats of the command completed.
func completeOutput(cmd *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
	path := strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
	fs, ok := outputFormats[path]
	if !ok {
		fs = []string{output.Table, output.JSON, output.YAML}
	}
	if slices.Contains(fs, output.Table) {
		// -o wide is the table with every column (root's setTerm).
		fs = slices.Insert(slices.Clone(fs), 1, output.Wide)
	}
	return fs, cobra.ShellCompDirectiveNoFileComp
}
