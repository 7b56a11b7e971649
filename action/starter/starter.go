package starter

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/atomicfile"
	"github.com/fabricctl/fabricctl/switchcfg"
)

// Defaults of Options.
const (
	DefaultName      = "my-fabric"
	DefaultPlatform  = "cumulus-nvue"
	DefaultHosts     = 2
	DefaultInterface = "ens1f0np0"
	// MaxHosts bounds Options.Hosts: the placeholder addresses are one /24.
	MaxHosts = 200
)

// File names of the directory layout.
const (
	FabricFile  = "fabric.yaml"
	ProfileFile = "roce-lossless.yaml"
)

// Stdout is the out path that means standard output (one file, profile inline).
const Stdout = "-"

// Options say what the starter holds. Zero values take the defaults.
type Options struct {
	// Name is the fabric's metadata.name (DefaultName).
	Name string
	// Platform is the leaf's switch platform, one registered in the
	// registry Files is given (DefaultPlatform).
	Platform string
	// Hosts is how many hosts (DefaultHosts, 1..MaxHosts); one host gets
	// no pairwise check.
	Hosts int
	// Interfaces are the RoCE netdevs of every host ([DefaultInterface]).
	Interfaces []string
	// SwitchPorts are the leaf's ports, ranges allowed (the platform's
	// Info.PortRange). Host interfaces are cabled to them in order.
	SwitchPorts []string
}

// File is one document of the starter: Path is where it goes (Stdout for
// standard output).
type File struct {
	Path string
	Data []byte
}

// Result is what `fabricctl init` reports: the fabric file to give -f and
// every file written.
type Result struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Fabric     string   `json:"fabric"`
	Files      []string `json:"files"`
}

// ResultKind is Result.Kind.
const ResultKind = "InitResult"

// NewResult describes files, the first of which is the fabric.
func NewResult(files []File) Result {
	r := Result{APIVersion: fabric.APIVersion, Kind: ResultKind, Files: []string{}}
	for _, f := range files {
		r.Files = append(r.Files, f.Path)
	}
	if len(files) > 0 {
		r.Fabric = files[0].Path
	}
	return r
}

// Single reports whether out gets one file with the profile inline rather
// than a directory.
func Single(out string) bool {
	ext := strings.ToLower(filepath.Ext(out))
	return out == Stdout || ext == ".yaml" || ext == ".yml"
}

// ifnameRE is what Linux takes as an interface name (and YAML needs no
// quoting for): at most 15 bytes, no slash, blank or colon.
var ifnameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.@-]{0,14}$`)

// rdmaDevRE matches NVIDIA RDMA device names (mlx5_0), which are never netdevs.
var rdmaDevRE = regexp.MustCompile(`^mlx[45]_[0-9]+$`)

// Files returns the starter's files for out, the fabric first, after loading
// them with fabric.Load and reg: they validate, or Files returns the error.
func Files(reg *switchcfg.Registry, out string, opt Options) ([]File, error) {
	if out == "" {
		out = "."
	}
	opt, err := opt.withDefaults(reg)
	if err != nil {
		return nil, err
	}
	d, _ := reg.Driver(opt.Platform) // withDefaults checked it
	ports, err := expand(opt.SwitchPorts)
	if err != nil {
		return nil, err
	}
	if need := opt.Hosts * len(opt.Interfaces); need > len(ports) {
		return nil, fmt.Errorf("cabling %d host interfaces to leaf-01: the leaf has %d ports; give more with --switch-ports", need, len(ports))
	}
	var files []File
	if Single(out) {
		name := out
		if out == Stdout {
			name = FabricFile
		}
		files = []File{{Path: out, Data: fabricDoc(name, opt, d.Info(), reg.Names(), ports, "")}}
	} else {
		out = filepath.Clean(out)
		fab := filepath.Join(out, FabricFile)
		files = []File{
			{Path: fab, Data: fabricDoc(fab, opt, d.Info(), reg.Names(), ports, ProfileFile)},
			{Path: filepath.Join(out, ProfileFile), Data: []byte(profileHeader + profileDoc)},
		}
	}
	if err := check(reg, files); err != nil {
		return nil, err
	}
	return files, nil
}

// withDefaults fills in o's zero fields and checks the rest.
func (o Options) withDefaults(reg *switchcfg.Registry) (Options, error) {
	if o.Name == "" {
		o.Name = DefaultName
	}
	if o.Platform == "" {
		o.Platform = DefaultPlatform
	}
	d, err := reg.Driver(o.Platform)
	if err != nil {
		return o, fmt.Errorf("choosing the leaf's platform: %w", err)
	}
	if o.Hosts == 0 {
		o.Hosts = DefaultHosts
	}
	if o.Hosts < 1 || o.Hosts > MaxHosts {
		return o, fmt.Errorf("counting hosts: %d is outside 1..%d", o.Hosts, MaxHosts)
	}
	if len(o.Interfaces) == 0 {
		o.Interfaces = []string{DefaultInterface}
	}
	seen := map[string]bool{}
	for _, n := range o.Interfaces {
		if !ifnameRE.MatchString(n) {
			return o, fmt.Errorf("naming interfaces: %q is not a Linux interface name", n)
		}
		if rdmaDevRE.MatchString(n) {
			return o, fmt.Errorf("naming interfaces: %s is an RDMA device, not a netdev; give its netdev (rdma link shows it: \"link %s/1 ... netdev ens1f0np0\")", n, n)
		}
		if seen[n] {
			return o, fmt.Errorf("naming interfaces: %s is given twice", n)
		}
		seen[n] = true
	}
	if len(o.SwitchPorts) == 0 {
		o.SwitchPorts = []string{d.Info().PortRange}
	}
	for _, p := range o.SwitchPorts {
		if p == "" || strings.ContainsAny(p, "\"\\\n\x00") {
			return o, fmt.Errorf("naming switch ports: %q is not a port or range", p)
		}
	}
	return o, nil
}

// expand lists the ports of ranges, in order.
func expand(ranges []string) ([]string, error) {
	var out []string
	for _, r := range ranges {
		ps, err := fabric.ExpandPorts(r)
		if err != nil {
			return nil, fmt.Errorf("expanding switch ports %q: %w", r, err)
		}
		out = append(out, ps...)
	}
	return out, nil
}

// check loads the fabric of files (files[0]) from memory.
func check(reg *switchcfg.Registry, files []File) error {
	name := files[0].Path
	if name == Stdout {
		name = FabricFile
	}
	mem := map[string]string{name: string(files[0].Data)}
	for _, f := range files[1:] {
		mem[f.Path] = string(f.Data)
	}
	_, err := fabric.Load(name, fabric.Options{Platforms: reg, ReadFile: fabric.FilesIn(mem)})
	if err != nil {
		return fmt.Errorf("checking the starter fabric (the flags give it values it refuses): %w", err)
	}
	return nil
}

// Write writes files, creating the directories they go in. Unless force,
// it refuses, before writing anything, when one of them exists already.
// Each file is written atomically. A file whose Path is Stdout is an error:
// the caller prints it.
func Write(files []File, force bool) error {
	if !force {
		var exist []string
		for _, f := range files {
			if _, err := os.Lstat(f.Path); err == nil {
				exist = append(exist, f.Path)
			} else if !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("checking %s: %w", f.Path, err)
			}
		}
		if len(exist) > 0 {
			return fmt.Errorf("writing the starter fabric: %s already exist(s); give --force to overwrite, or another --out", strings.Join(exist, ", "))
		}
	}
	for _, f := range files {
		if f.Path == Stdout {
			return errors.New("writing the starter fabric: standard output is the caller's to print")
		}
		if err := os.MkdirAll(filepath.Dir(f.Path), 0o755); err != nil {
			return fmt.Errorf("creating the directory of %s: %w", f.Path, err)
		}
		if err := atomicfile.WriteFile(f.Path, f.Data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// quote writes s as a YAML (JSON) double-quoted string.
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// plainRE matches the scalars written without quotes.
var plainRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// scalar writes s plain when it can be, else quoted.
func scalar(s string) string {
	if plainRE.MatchString(s) {
		return s
	}
	return quote(s)
}

// hostName is the i-th host's name (from 0).
func hostName(i int) string { return fmt.Sprintf("gpu-%02d", i+1) }

// leaf is the starter's switch.
const leaf = "leaf-01"

// fabricDoc is the Fabric document; include names the profile file, or ""
// to inline the profile. name is how the steps in its comment name it.
func fabricDoc(name string, o Options, info switchcfg.Info, platforms, ports []string, include string) []byte {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	canary := hostName(0)
	hosts := "one host"
	if o.Hosts > 1 {
		hosts = fmt.Sprintf("%d hosts", o.Hosts)
	}
	w("# A starter fabric written by `fabricctl init`: %s cabled to one %s leaf,", hosts, info.Name)
	w("# lossless RoCE v2 (profile roce-lossless). Lines marked EDIT, and the entries under")
	w("# them, hold placeholders: put your own names, addresses, interfaces and ports there.")
	w("# The addresses are documentation addresses (RFC 5737): they reach nothing.")
	w("#")
	w("# Then bring it up in this order; nothing changes on a device before apply:")
	w("#   fabricctl validate -f %s                   # offline: every mistake, located", name)
	w("#   fabricctl render   -f %s --target %s  # offline: the leaf's native config", name, leaf)
	w("#   fabricctl plan     -f %s --target %s   # reads the canary over SSH, changes nothing", name, canary)
	w("#   fabricctl apply    -f %s --target %s   # the canary; rolled back if it fails", name, canary)
	w("#   fabricctl check    -f %s --target %s --suite preflight,loopback", name, canary)
	w("#   fabricctl plan     -f %s                   # then the leaf and the other hosts", name)
	w("#   fabricctl apply    -f %s", name)
	w("#   fabricctl check    -f %s                   # preflight, loopback, pairwise", name)
	w("# Every field: docs/fabric-yaml.md in fabricctl's repository; `fabricctl schema`")
	w("# prints a JSON Schema for editors.")
	w("apiVersion: %s", fabric.APIVersion)
	w("kind: Fabric")
	w("metadata:")
	w("  name: %s%s# EDIT: your fabric's name", scalar(o.Name), pad(len(scalar(o.Name)), 24))
	w("spec:")
	if include != "" {
		w("  include: [%s]   # the profile: how RoCE traffic is treated (edit it there)", include)
	} else {
		w("  # The profile: how RoCE traffic is treated on hosts and the leaf.")
		w("  profiles:")
		for i, line := range strings.Split(strings.TrimSuffix(profileDoc, "\n"), "\n") {
			switch {
			case i == 0:
				w("    - %s", line)
			case line == "":
				w("")
			default:
				w("      %s", line)
			}
		}
	}
	w("  defaults:")
	w("    # How fabricctl logs in to the hosts over SSH: it copies itself there and runs as")
	w("    # the agent, which changes kernel settings, so log in as root. Host keys are checked")
	w("    # against knownHostsFile: ssh to each host once (or ssh-keyscan) before plan.")
	w("    ssh: {user: root, port: 22, identityFile: ~/.ssh/id_ed25519, knownHostsFile: ~/.ssh/known_hosts}   # EDIT")
	w("  hosts:")
	w("    # EDIT: one entry per host. address: where SSH reaches it (IP or host name).")
	w("    # interfaces: its RoCE netdevs as Linux names them: `rdma link` prints")
	w("    # \"link mlx5_0/1 ... netdev ens1f0np0\"; write ens1f0np0, not mlx5_0.")
	w("    # links: the leaf port each interface is cabled to; check compares it with")
	w("    # LLDP. Delete the line if you do not know the cabling.")
	pi := 0
	for h := 0; h < o.Hosts; h++ {
		var ifs, links []string
		for _, n := range o.Interfaces {
			ifs = append(ifs, n)
			links = append(links, fmt.Sprintf("%s: %s", n, quote(leaf+":"+ports[pi])))
			pi++
		}
		w("    - name: %s", hostName(h))
		w("      address: 192.0.2.%d", 11+h)
		w("      profile: roce-lossless")
		w("      interfaces: [%s]", strings.Join(ifs, ", "))
		w("      links: {%s}", strings.Join(links, ", "))
		w("      labels: {leaf: %s, role: gpu}", leaf)
	}
	w("  switches:")
	w("    # EDIT: the leaf the hosts are cabled to, a %s switch.", info.Description)
	w("    # platform: one of %s.", strings.Join(platforms, ", "))
	w("    # ports: the ports that carry RoCE (hosts and uplinks); ranges expand.")
	w("    - name: %s", leaf)
	w("      platform: %s", info.Name)
	if len(info.Models) > 0 {
		var ms []string
		for _, m := range info.Models {
			ms = append(ms, m.Name)
		}
		w("      # model: %s   # the hardware family where it matters: %s (docs/switches.md)", ms[0], strings.Join(ms, ", "))
	}
	w("      address: 192.0.2.1")
	w("      profile: roce-lossless")
	var qp []string
	for _, p := range o.SwitchPorts {
		qp = append(qp, quote(p))
	}
	w("      ports: [%s]", strings.Join(qp, ", "))
	user := "admin"
	if info.Name == "cumulus-nvue" {
		user = "cumulus"
	}
	w("      # The password is read from $LEAF_PASSWORD when fabricctl logs in; it never goes in this file.")
	w("      ssh: {user: %s, passwordEnv: LEAF_PASSWORD}", user)
	w("  # What `fabricctl check` runs and how it judges. The thresholds describe a healthy")
	w("  # fabric: measure yours and adjust (docs/fabric-yaml.md, Checks).")
	w("  checks:")
	w("    preflight: {}")
	w("    loopback: {test: write_bw, duration: 5s, minPercentOfPortRate: 90}")
	if o.Hosts > 1 {
		w("    pairwise: {schedule: all-pairs, test: write_bw, duration: 5s, minPercentOfPortRate: 90, retestOutliers: true}")
	}
	return []byte(b.String())
}

// pad is the blanks that line a comment up at column col after n characters.
func pad(n, col int) string {
	if n >= col-1 {
		return " "
	}
	return strings.Repeat(" ", col-n)
}

// profileHeader opens roce-lossless.yaml.
const profileHeader = `# The standard lossless RoCE v2 profile (NVIDIA's recipe, as profiles/roce-lossless.yaml
# of fabricctl): RoCE on priority 3 (DSCP 26), lossless with PFC and ECN/DCQCN; CNPs
# on priority 6 (DSCP 48) with strict priority; everything else best effort.
# Hosts and switches get the same classes, so they agree by construction. Change
# it only to match what your NICs, switches and NCCL (NCCL_IB_TC) already use.
`

// profileDoc is the standard lossless RoCE v2 profile; a test keeps it
// equal to profiles/roce-lossless.yaml but for switchMtu, which is max
// here so that every platform takes it (Arista EOS tops out at 9214).
const profileDoc = `apiVersion: fabricctl.io/v1alpha1
kind: Profile
metadata:
  name: roce-lossless
  description: RoCE v2 on priority 3, lossless with DCQCN; CNP on priority 6
spec:
  ethernet:
    mtu: 9000                 # host netdev MTU
    switchMtu: max            # switch ports: each model's largest MTU (9216; Arista EOS 9214)
    trust: dscp               # classify by DSCP (dscp | pcp)
    globalPause: false        # 802.3x pause must be off where PFC is on
    classes:
      - name: roce            # RDMA data: lossless (PFC) and ECN-marked
        priority: 3
        dscp: [26]
        lossless: true
        ets: {bandwidthPercent: 50}
        ecn: {minThreshold: 150KB, maxThreshold: 1500KB, maxMarkProbability: 100}
      - name: cnp             # congestion notification packets: strict priority
        priority: 6
        dscp: [48]
        ets: {strict: true}
      - name: default         # everything else: best effort
        priority: 0
        dscp: rest
        ets: {bandwidthPercent: 50}
    pfc:
      cableLength: 5m         # PFC headroom: your longest host cable
      watchdog: {enabled: true, pollInterval: 100ms, detectionTime: 200ms, restorationTime: 400ms, action: drop}
    roce:
      mode: v2
      class: roce
      tos: 106                # DSCP 26 << 2 | ECT(0)
      cnpClass: cnp
      dcqcn: {enabled: true}
`
