package main

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
)

// internalCommands are run by fabricctl itself or by its lab and launchers,
// not by people: hidden from help and completion, still runnable.
var internalCommands = map[string]string{
	"fabricctl agent":      "the controller runs it on each host over SSH",
	"fabricctl task":       "srun and the Kubernetes Jobs run it on every node",
	"fabricctl switch-sim": "the lab and the tests run it as a switch simulator",
}

// examples are the help examples of every command, by command path. A
// command that sets its own Example keeps it. TestHelpExamples requires one
// on every command people run.
var examples = map[string]string{
	"fabricctl init": `  fabricctl init --out my-fabric                              # my-fabric/fabric.yaml + roce-lossless.yaml
  fabricctl init --out my-fabric --platform sonic --hosts 4   # a SONiC leaf, four hosts
  fabricctl init --out lab.yaml --interfaces ens1f0np0,ens2f0np0
  fabricctl init --out - | less                               # one file, on stdout`,
	"fabricctl validate": `  fabricctl validate -f my-fabric/fabric.yaml        # exit 0 valid, 1 invalid
  fabricctl validate -f profiles/roce-lossless.yaml  # a profile alone
  fabricctl validate -f fabric.yaml -o json`,
	"fabricctl render": `  fabricctl render -f fabric.yaml --target leaf-01   # the leaf's intent and native config
  fabricctl render -f fabric.yaml --target gpu-01    # a host's desired state
  fabricctl render -f fabric.yaml --out rendered     # one file per artifact under rendered/`,
	"fabricctl schema": `  fabricctl schema > fabricctl.schema.json
  fabricctl schema -o yaml`,
	"fabricctl version": `  fabricctl version
  fabricctl version -o json   # with the binary's sha256`,
	"fabricctl plan": `  fabricctl plan -f fabric.yaml --target gpu-01   # one canary host first
  fabricctl plan -f fabric.yaml                   # every target; exit 2 when something would change
  fabricctl plan -f fabric.yaml -o json`,
	"fabricctl apply": `  fabricctl apply -f fabric.yaml --target gpu-01   # the canary: plan, confirm, apply, verify
  fabricctl apply -f fabric.yaml --dry-run         # what would be done, nothing changed
  fabricctl apply -f fabric.yaml --yes             # everything, without asking`,
	"fabricctl drift": `  fabricctl drift -f fabric.yaml                   # exit 0 none, 2 drift, 1 error
  fabricctl drift -f fabric.yaml -o prometheus --textfile /var/lib/node_exporter/fabricctl.prom
  fabricctl drift -f fabric.yaml --from-dir captured/   # switches' saved read-backs, offline`,
	"fabricctl recover": `  fabricctl recover -f fabric.yaml
  fabricctl recover -f fabric.yaml --target gpu-01,gpu-02`,
	"fabricctl check": `  fabricctl check -f fabric.yaml --target gpu-01 --suite preflight,loopback
  fabricctl check -f fabric.yaml --report report.html          # preflight, loopback, pairwise
  fabricctl check -f fabric.yaml --suite ib --vantage ib-h1     # the InfiniBand subnet, read from ib-h1
  fabricctl check --local                                       # this host, no SSH
  fabricctl check --local -o nhc --budget 50s                   # a Slurm node health check
  fabricctl check -f fabric.yaml --launcher slurm --partition gpu
  fabricctl check --from-dir captured/                          # judge saved tool outputs`,
	"fabricctl counters": `  fabricctl counters -f fabric.yaml                       # ports with loss or errors; clean ones summed up
  fabricctl counters -f fabric.yaml --interval 10s --all  # movements and rates over 10 s, every port
  fabricctl counters -f fabric.yaml --target gpu-01 -o json   # every counter with the file or command it came from`,
	"fabricctl analyze": `  fabricctl analyze rank0.log all_reduce_perf.txt ib_write_bw.txt
  fabricctl analyze nvidia-smi-topo.txt ibstat.txt -o json
  fabricctl analyze all_reduce_perf.txt --expect busbw=180`,
	"fabricctl nccl analyze": `  fabricctl nccl analyze rank*.log
  fabricctl nccl analyze --hcas mlx5_0,mlx5_1 --interfaces ens1f0np0 job.log`,
	"fabricctl host show": `  fabricctl host show                  # every RDMA netdev of this host
  fabricctl host show ens1f0np0 -o json`,
	"fabricctl host plan": `  fabricctl host plan -f fabric.yaml --host gpu-01
  fabricctl host plan --desired rendered/hosts/gpu-01.json`,
	"fabricctl host apply": `  fabricctl host apply -f fabric.yaml --host gpu-01 --dry-run
  fabricctl host apply -f fabric.yaml --host gpu-01`,
	"fabricctl host recover": `  fabricctl host recover
  fabricctl host recover --host gpu-01`,
	"fabricctl switch parse": `  fabricctl switch parse --platform cumulus-nvue nv-config-show.json
  ssh admin@leaf-02 show runningconfiguration all | fabricctl switch parse --platform sonic -
  fabricctl switch parse --platform junos --model qfx5120 config.txt -o yaml`,
	"fabricctl k8s render": `  fabricctl k8s render -f fabric.yaml --out k8s/ && kubectl apply -f k8s/health.yaml
  fabricctl k8s render -f fabric.yaml --image registry.example.com/fabricctl:v1 --node-selector gpu=true`,
	"fabricctl lab build": `  fabricctl lab build`,
	"fabricctl lab up": `  fabricctl lab up -f profiles/lab/fabric.yaml
  fabricctl lab up -f profiles/lab/fabric.yaml --slurm
  fabricctl lab up --ib -f profiles/lab/ib.yaml`,
	"fabricctl lab down": `  fabricctl lab down
  fabricctl lab down --ib`,
	"fabricctl lab status": `  fabricctl lab status`,
	"fabricctl lab run": `  fabricctl lab run smoke
  fabricctl lab run perftest lossy`,
	"fabricctl lab exec": `  fabricctl lab exec lab-h1 -- rdma link
  fabricctl lab exec lab-h2 -- ibv_devinfo -d rxe0`,
	"fabricctl lab fault clear": `  fabricctl lab fault clear host/lab-h1
  fabricctl lab fault clear               # every fault`,
	"fabricctl lab fault list": `  fabricctl lab fault list`,
}

// helpColumns is the width flag descriptions are wrapped to in help: a
// terminal of 120 columns shows every line of every command's help whole.
const helpColumns = 120

// decorateHelp hides the internal commands, gives every command its
// examples and wraps flag descriptions at helpColumns; it runs once over
// the whole tree.
func decorateHelp(root *cobra.Command) {
	root.SetUsageTemplate(strings.ReplaceAll(root.UsageTemplate(),
		".FlagUsages |", ".FlagUsagesWrapped "+strconv.Itoa(helpColumns)+" |"))
	walk(root, func(c *cobra.Command) {
		path := c.CommandPath()
		if _, ok := internalCommands[path]; ok {
			c.Hidden = true
		}
		if ex, ok := examples[path]; ok && strings.TrimSpace(c.Example) == "" {
			c.Example = ex
		}
		c.Long = wrapLines(c.Long, helpColumns)
	})
}

// hangRE finds where a line's text begins after a list item's name
// ("  smoke     every VM-host …"): continuation lines are indented to it.
var hangRE = regexp.MustCompile(`^\s*\S+\s{2,}`)

// wrapLines breaks each line of s longer than cols at blanks; the
// continuation lines are indented like the line's text (after a list
// item's name, else its own indentation). Shorter lines are kept as they are.
func wrapLines(s string, cols int) string {
	lines := strings.Split(s, "\n")
	var out []string
	for _, l := range lines {
		indent := len(l) - len(strings.TrimLeft(l, " "))
		if m := hangRE.FindString(l); m != "" && len(m) < cols/2 {
			indent = len(m)
		}
		for len([]rune(l)) > cols {
			r := []rune(l)
			cut := strings.LastIndex(string(r[:cols+1]), " ")
			if cut <= indent {
				break // one word longer than the line: leave it
			}
			out = append(out, strings.TrimRight(l[:cut], " "))
			l = strings.Repeat(" ", indent) + strings.TrimLeft(l[cut:], " ")
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// walk calls fn on c and every command below it.
func walk(c *cobra.Command, fn func(*cobra.Command)) {
	fn(c)
	for _, sub := range c.Commands() {
		walk(sub, fn)
	}
}
