package lab

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Faults: impairments injected on purpose, so that fabricctl check has
// something to find (`fabricctl lab fault add|clear|list`). A fault sits on
// a target of a kind:
//
//	host/NAME  everything the VM-host NAME sends over RoCE: netem on its
//	           eth0 (a bad transmitter: NIC, optics)
//	link/NAME  the cable between NAME and its switch, both ways: netem on
//	           the VM's eth0 and on the machine side of its tap (in the
//	           two-leaf lab: the leaf's port swpN, in the leaf's namespace)
//	link/A~B   the two-leaf lab's inter-leaf link, both ways: netem on the
//	           trunk port (swp49) of leaf A and of leaf B
//
// and one fault that is not netem: host/NAME pfc-off takes the lossless
// emulation off the leaf port facing NAME (a shallow queue that drops under
// congestion; lossless.go). It sits beside a netem fault of the same host.
//
// Only RoCE v2 (UDP 4791) is impaired — SSH and perftest's out-of-band TCP
// keep working, as they would over a management network — by a prio root
// qdisc whose fourth band holds the netem and a u32 filter that sends UDP
// dport 4791 there (the guest's lab-netem does the same inside the VM).
//
// A kind resolves a target name to the link ends (egress points) that carry
// its netem, so a lab with more links (two leaves joined by a trunk) adds a
// kind (link/leaf-01~leaf-02 → the two ends of the trunk's veth pair)
// without changing how faults are applied, recorded and cleared.

// ErrBadFault: a fault the lab cannot apply (unknown target, bad netem).
var ErrBadFault = errors.New("bad fault")

// ErrNoNetem: the machine's kernel has no prio or netem qdisc (sch_prio,
// sch_netem), so the machine side of a link fault cannot be set; host/NAME
// faults, which need only the guest's kernel, still work.
var ErrNoNetem = errors.New("this machine's kernel has no netem")

// FaultsFile is where the state directory records the faults in place.
const FaultsFile = "faults.json"

// Fault is one impairment in place.
type Fault struct {
	// Target is "host/NAME" or "link/NAME".
	Target string `json:"target"`
	// Netem are tc-netem's arguments, e.g. ["loss", "2%"], or ["pfc-off"]
	// (PFCOff: the leaf port's shallow queue, no netem).
	Netem []string  `json:"netem"`
	Added time.Time `json:"added"`
	// Points are where the netem sits, as applied.
	Points []FaultPoint `json:"points"`
}

// FaultPoint is one egress point of a fault: a device in a VM-host (Host
// set, reached over SSH) or in the lab namespace (Host empty).
type FaultPoint struct {
	Host string `json:"host,omitempty"`
	// Netns is the namespace holding Dev when it is not the lab namespace
	// (a leaf's port in the two-leaf lab).
	Netns string `json:"netns,omitempty"`
	Dev   string `json:"dev"`
}

func (p FaultPoint) String() string {
	if p.Host != "" {
		return p.Host + ":" + p.Dev
	}
	if p.Netns != "" {
		return p.Netns + ":" + p.Dev
	}
	return "netns:" + p.Dev
}

// Describe says what the fault does, for people: "netem loss 2% on RoCE v2
// (UDP 4791) leaving lab-h3:eth0" or "pfc-off: …".
func (f Fault) Describe() string {
	var pts []string
	for _, p := range f.Points {
		pts = append(pts, p.String())
	}
	if IsPFCOff(f.Netem) {
		return fmt.Sprintf("%s: the leaf port %s with a queue of %d packets instead of %d (lossless emulation off: it drops under congestion)",
			PFCOff, strings.Join(pts, ", "), PFCOffQueueLen, LosslessQueueLen)
	}
	return fmt.Sprintf("netem %s on RoCE v2 (UDP 4791) leaving %s", strings.Join(f.Netem, " "), strings.Join(pts, ", "))
}

// netns is the namespace of a point on the machine's side.
func (s *State) pointNetns(p FaultPoint) string {
	if p.Netns != "" {
		return p.Netns
	}
	return s.Netns
}

// faultKinds resolve a target name of each kind into its egress points.
var faultKinds = map[string]func(s *State, name string) ([]FaultPoint, error){
	"host": func(s *State, name string) ([]FaultPoint, error) {
		v, err := s.VM(name)
		if err != nil {
			return nil, err
		}
		return []FaultPoint{{Host: v.Name, Dev: "eth0"}}, nil
	},
	"link": func(s *State, name string) ([]FaultPoint, error) {
		if a, b, ok := strings.Cut(name, "~"); ok {
			return s.trunkPoints(a, b)
		}
		v, err := s.VM(name)
		if err != nil {
			return nil, err
		}
		return []FaultPoint{{Host: v.Name, Dev: "eth0"}, {Netns: v.Netns, Dev: v.Tap}}, nil
	},
}

// FaultKinds lists the target kinds, sorted.
func FaultKinds() []string {
	var k []string
	for n := range faultKinds {
		k = append(k, n)
	}
	slices.Sort(k)
	return k
}

// FaultTargets lists every target of the running lab, kind by kind.
func (s *State) FaultTargets() []string {
	var out []string
	for _, k := range FaultKinds() {
		for _, v := range s.VMs {
			out = append(out, k+"/"+v.Name)
		}
		if t := s.TrunkName(); k == "link" && t != "" {
			out = append(out, k+"/"+t)
		}
	}
	return out
}

// trunkPoints are the two ends of the inter-leaf link between leaves a and b.
func (s *State) trunkPoints(a, b string) ([]FaultPoint, error) {
	la, err := s.Leaf(a)
	if err != nil {
		return nil, err
	}
	lb, err := s.Leaf(b)
	if err != nil {
		return nil, err
	}
	if la.Name == lb.Name {
		return nil, fmt.Errorf("%s~%s joins a leaf to itself (the inter-leaf link is %s)", a, b, s.TrunkName())
	}
	return []FaultPoint{{Netns: la.Netns, Dev: TrunkPort}, {Netns: lb.Netns, Dev: TrunkPort}}, nil
}

// faultPoints resolves a target.
func (s *State) faultPoints(target string) ([]FaultPoint, error) {
	kind, name, ok := strings.Cut(target, "/")
	resolve := faultKinds[kind]
	if !ok || resolve == nil || name == "" {
		return nil, fmt.Errorf("fault target %q: %w: want KIND/NAME, KIND one of %s (e.g. host/%s)",
			target, ErrBadFault, strings.Join(FaultKinds(), ", "), firstVM(s))
	}
	pts, err := resolve(s, name)
	if err != nil {
		return nil, fmt.Errorf("fault target %q: %w: %w", target, ErrBadFault, err)
	}
	return pts, nil
}

func firstVM(s *State) string {
	if len(s.VMs) > 0 {
		return s.VMs[0].Name
	}
	return "lab-h1"
}

// netemWord is one netem argument: keywords and values such as loss, 2%,
// delay, 10ms, 25%; never anything a shell would read specially.
var netemWord = regexp.MustCompile(`^[a-z]+$|^[0-9]+(\.[0-9]+)?(%|ms|us|s|mbit|kbit|gbit)?$`)

// netemKeywords are the netem parameters a lab fault may set.
var netemKeywords = []string{"loss", "delay", "duplicate", "corrupt", "reorder", "rate"}

// ValidateNetem checks a fault's arguments: known netem keywords, each
// followed by plain values ("loss 2%", "delay 10ms 2ms", "corrupt 0.5%"),
// or PFCOff alone.
func ValidateNetem(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: no impairment given (e.g. loss 2%% or %s)", ErrBadFault, PFCOff)
	}
	if IsPFCOff(args) {
		if len(args) > 1 {
			return fmt.Errorf("%w: %s takes no arguments, got %q", ErrBadFault, PFCOff, strings.Join(args[1:], " "))
		}
		return nil
	}
	if !slices.Contains(netemKeywords, args[0]) {
		return fmt.Errorf("%w: netem %q: start with one of %s (or give %s alone)", ErrBadFault, args[0], strings.Join(netemKeywords, ", "), PFCOff)
	}
	for _, a := range args {
		if !netemWord.MatchString(a) {
			return fmt.Errorf("%w: netem argument %q is not a keyword or a value such as 2%% or 10ms", ErrBadFault, a)
		}
		if strings.HasSuffix(a, "%") {
			if v, err := strconv.ParseFloat(strings.TrimSuffix(a, "%"), 64); err != nil || v <= 0 || v > 100 {
				return fmt.Errorf("%w: netem argument %s is not a percentage in (0, 100]", ErrBadFault, a)
			}
		}
	}
	return nil
}

// Faults returns the faults in place (recorded in the state directory).
func (s *State) Faults() ([]Fault, error) {
	b, err := os.ReadFile(filepath.Join(s.StateDir, FaultsFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the lab's faults: %w", err)
	}
	var f []Fault
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", FaultsFile, err)
	}
	return f, nil
}

func (s *State) saveFaults(f []Fault) error {
	path := filepath.Join(s.StateDir, FaultsFile)
	if len(f) == 0 {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("recording the lab's faults: %w", err)
		}
		return nil
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the lab's faults: %w", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("recording the lab's faults: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("recording the lab's faults: %w", err)
	}
	return nil
}

// AddFault puts netem on target's egress points (replacing a netem fault
// already on the same target), or with PFCOff takes the lossless emulation
// off the leaf port facing a host/NAME target, and records it. A netem
// fault and pfc-off on one target sit at different points and stay side by
// side. When a point fails, the points already set are cleared again and
// nothing is recorded.
func (s *State) AddFault(ctx context.Context, target string, netem []string) (Fault, error) {
	if err := ValidateNetem(netem); err != nil {
		return Fault{}, err
	}
	var pts []FaultPoint
	var err error
	if IsPFCOff(netem) {
		var p FaultPoint
		p, err = s.hostPortPoint(target)
		pts = []FaultPoint{p}
	} else {
		pts, err = s.faultPoints(target)
	}
	if err != nil {
		return Fault{}, err
	}
	faults, err := s.Faults()
	if err != nil {
		return Fault{}, err
	}
	for i, p := range pts {
		if err := s.setFault(ctx, p, netem); err != nil {
			var undo []error
			for _, q := range pts[:i] {
				undo = append(undo, s.clearFault(context.WithoutCancel(ctx), q, netem))
			}
			return Fault{}, errors.Join(fmt.Errorf("adding fault %s at %s: %w", target, p, err), errors.Join(undo...))
		}
	}
	f := Fault{Target: target, Netem: slices.Clone(netem), Added: time.Now().UTC().Truncate(time.Second), Points: pts}
	return f, s.saveFaults(mergeFault(faults, f))
}

// mergeFault records f among the faults in place: it replaces the fault of
// its kind (netem, or pfc-off) on its target, and keeps the other kind.
// The result is sorted by target, netem before pfc-off.
func mergeFault(faults []Fault, f Fault) []Fault {
	out := slices.DeleteFunc(slices.Clone(faults), func(g Fault) bool {
		return g.Target == f.Target && IsPFCOff(g.Netem) == IsPFCOff(f.Netem)
	})
	out = append(out, f)
	slices.SortStableFunc(out, func(a, b Fault) int {
		if c := strings.Compare(a.Target, b.Target); c != 0 {
			return c
		}
		return compareBool(IsPFCOff(a.Netem), IsPFCOff(b.Netem))
	})
	return out
}

func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// setFault puts a fault's netem, or pfc-off's shallow queue, on point p.
func (s *State) setFault(ctx context.Context, p FaultPoint, netem []string) error {
	if IsPFCOff(netem) {
		return s.setPortQueue(ctx, p, PFCOffQueueLen)
	}
	return s.setNetem(ctx, p, netem)
}

// clearFault takes a fault off point p: its netem, or for pfc-off the
// shallow queue (the lossless emulation's depth comes back).
func (s *State) clearFault(ctx context.Context, p FaultPoint, netem []string) error {
	if IsPFCOff(netem) {
		return s.setPortQueue(ctx, p, LosslessQueueLen)
	}
	return s.clearNetem(ctx, p)
}

// ClearFaults removes the faults on the given targets (every recorded one
// when none is given) and returns those it cleared. A point that cannot be
// cleared keeps its fault recorded, and the error says where.
func (s *State) ClearFaults(ctx context.Context, targets ...string) ([]Fault, error) {
	faults, err := s.Faults()
	if err != nil {
		return nil, err
	}
	for _, t := range targets {
		if _, err := s.faultPoints(t); err != nil {
			return nil, err
		}
	}
	var cleared, kept []Fault
	var errs []error
	for _, f := range faults {
		if len(targets) > 0 && !slices.Contains(targets, f.Target) {
			kept = append(kept, f)
			continue
		}
		var ferr []error
		for _, p := range f.Points {
			if err := s.clearFault(ctx, p, f.Netem); err != nil {
				ferr = append(ferr, fmt.Errorf("clearing fault %s at %s: %w", f.Target, p, err))
			}
		}
		if len(ferr) > 0 {
			kept = append(kept, f)
			errs = append(errs, ferr...)
			continue
		}
		cleared = append(cleared, f)
	}
	return cleared, errors.Join(append(errs, s.saveFaults(kept))...)
}

// setNetem puts netem on RoCE v2 traffic leaving p.
func (s *State) setNetem(ctx context.Context, p FaultPoint, netem []string) error {
	if p.Host != "" {
		_, err := s.Output(ctx, p.Host, "lab-netem set "+p.Dev+" "+strings.Join(netem, " "))
		return err
	}
	ns := s.pointNetns(p)
	_ = command(ctx, "ip", "netns", "exec", ns, "tc", "qdisc", "del", "dev", p.Dev, "root")
	for _, args := range roceNetem(p.Dev, netem) {
		if err := command(ctx, "ip", append([]string{"netns", "exec", ns, "tc"}, args...)...); err != nil {
			_ = command(ctx, "ip", "netns", "exec", ns, "tc", "qdisc", "del", "dev", p.Dev, "root")
			if strings.Contains(err.Error(), "qdisc kind is unknown") && len(netem) == 2 && netem[0] == "loss" {
				return s.setBridgeLoss(ctx, ns, p.Dev, netem) // no netem/prio in this kernel: nftables
			}
			return machineTCError(p.Dev, err)
		}
	}
	return nil
}

// setBridgeLoss is the machine side of a fault where the kernel lacks
// netem and prio (seen here: a 6.18 kernel built without NET_SCH_NETEM):
// an nftables bridge rule drops the given share of the RoCE v2 packets
// the bridge forwards out of dev (a leaf port or a tap), so only "loss P%"
// can be had there. Its table is named after dev (bridgeLossTable).
func (s *State) setBridgeLoss(ctx context.Context, ns, dev string, netem []string) error {
	if len(netem) != 2 || netem[0] != "loss" || !strings.HasSuffix(netem[1], "%") {
		return fmt.Errorf("%w: this machine's kernel has no netem; %s takes loss P%% only (nftables), not %q",
			ErrBadFault, dev, strings.Join(netem, " "))
	}
	pct, err := strconv.ParseFloat(strings.TrimSuffix(netem[1], "%"), 64)
	if err != nil {
		return fmt.Errorf("%w: netem argument %s: %w", ErrBadFault, netem[1], err)
	}
	_ = command(ctx, "ip", "netns", "exec", ns, "nft", "delete", "table", "bridge", bridgeLossTable(dev))
	rules := fmt.Sprintf("table bridge %s {\n  chain impair {\n    type filter hook forward priority 0; policy accept;\n"+
		"    oifname %q ip protocol udp udp dport 4791 numgen random mod 10000 < %d counter drop\n  }\n}\n",
		bridgeLossTable(dev), dev, int(pct*100+0.5))
	cmd := exec.CommandContext(ctx, "ip", "netns", "exec", ns, "nft", "-f", "-")
	cmd.Stdin = strings.NewReader(rules)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("running nft -f - in %s: %w: %s (run lab/scripts/install-deps.sh)", ns, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// bridgeLossTable is the nftables table of setBridgeLoss for dev.
func bridgeLossTable(dev string) string {
	return "labfault_" + strings.NewReplacer("-", "_", ".", "_").Replace(dev)
}

// machineTCError names a missing qdisc kind on the machine (tc: "Specified
// qdisc kind is unknown") as ErrNoNetem, with what still works; other errors
// are returned as they are.
func machineTCError(dev string, err error) error {
	if !strings.Contains(err.Error(), "qdisc kind is unknown") {
		return err
	}
	return fmt.Errorf("%w (sch_prio, sch_netem) for %s: a link fault needs them on the machine's side; "+
		"host/NAME puts the fault inside the VM only: %w", ErrNoNetem, dev, err)
}

// clearNetem removes p's root qdisc (the kernel's default comes back).
func (s *State) clearNetem(ctx context.Context, p FaultPoint) error {
	if p.Host != "" {
		_, err := s.Output(ctx, p.Host, "lab-netem clear "+p.Dev)
		return err
	}
	ns := s.pointNetns(p)
	err := command(ctx, "ip", "netns", "exec", ns, "tc", "qdisc", "del", "dev", p.Dev, "root")
	if err != nil && (strings.Contains(err.Error(), "handle of zero") || strings.Contains(err.Error(), "No such file or directory")) {
		err = nil // no root qdisc of ours: cleared already
	}
	if _, lerr := exec.LookPath("nft"); lerr == nil {
		nerr := command(ctx, "ip", "netns", "exec", ns, "nft", "delete", "table", "bridge", bridgeLossTable(p.Dev))
		if nerr != nil && !strings.Contains(nerr.Error(), "No such file or directory") {
			err = errors.Join(err, nerr)
		}
	}
	return err
}

// roceNetem are the tc commands that put netem on the RoCE v2 traffic
// (UDP dport 4791) leaving dev, as the guest's lab-netem does: a prio root
// qdisc whose fourth band holds the netem, and a u32 filter into that band.
func roceNetem(dev string, netem []string) [][]string {
	return [][]string{
		{"qdisc", "add", "dev", dev, "root", "handle", "1:", "prio", "bands", "4", "priomap", "1", "2", "2", "2", "1", "2", "0", "0", "1", "1", "1", "1", "1", "1", "1", "1"},
		append([]string{"qdisc", "add", "dev", dev, "parent", "1:4", "handle", "40:", "netem"}, netem...),
		{"filter", "add", "dev", dev, "parent", "1:", "protocol", "ip", "prio", "1", "u32", "match", "ip", "protocol", "17", "0xff", "match", "ip", "dport", "4791", "0xffff", "flowid", "1:4"},
	}
}
