package vendorcheck

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg/eos"
)

// Arista AVD's eos_cli_config_gen is the reference for the EOS renders:
// the switch intent is written as AVD structured configuration (the qos,
// priority_flow_control, qos_profiles and ethernet_interfaces keys), checked
// against AVD's schema fragments, rendered with AVD's Jinja2 templates, and
// AVD's lines are compared with fabricctl's, context by context (global,
// interface, queue block). avd.py is the driver: the schema checker and the
// few Jinja2 filters and tests of AVD's plugins the templates call.
//
// Known equivalences: where AVD and fabricctl write the same EOS state in
// different, equally valid ways. Each is accounted for, never ignored:
//
//   - Queue scheduling (`priority strict`, `no priority`, `bandwidth percent
//     N` in a uc-tx-queue/tx-queue block) and the port's PFC watchdog
//     (`priority-flow-control pause watchdog`, `… port action notify-only`)
//     exist in AVD's model only inside a `qos profile` (qos_profiles[]);
//     AVD's ethernet_interfaces[].uc_tx_queues/tx_queues carry only the
//     queue id and random-detect, and ethernet_interfaces[] has no watchdog.
//     fabricctl writes them on each interface, which EOS also accepts: a qos
//     profile is a block of the same interface commands (AVD's templates
//     render both from the same queue include) that `service-profile NAME`
//     applies to an interface, whose own lines win over the profile's
//     (switchcfg/eos reads both ways). So every case is checked twice:
//     AVDInterfaces puts on each interface what AVD's interface model
//     carries, and the lines above are EOSDiff.Equivalent there; AVDProfile
//     puts everything but the MTU in one qos profile applied with
//     service-profile, as AVD's own designs do, and there every fabricctl
//     line, those above included, must equal one of AVD's (the test checks
//     each equivalence is matched so).
//   - fabricctl's `no service-profile` on each port versus AVD's
//     `service-profile FABRICCTL` (AVDProfile): fabricctl configures the
//     port directly and detaches any profile that could override it; AVD
//     attaches the profile. CompareEOS applies the profile to the interfaces
//     that name it (as EOS does) and the `no` line is a reset.
//   - Resets: fabricctl's rendering is the full state of what it manages,
//     so it removes map entries, PFC priorities, queues, bandwidth and ECN
//     the intent does not use with `no …` lines. AVD renders a whole
//     configuration, where absence is the default, so those lines have no
//     AVD counterpart: they are listed apart (EOSDiff.Resets), never a
//     failure. A `no` line that is a setting AVD writes too (`no priority`)
//     is compared like any other.
//   - Off is absence: an intent without PFC priorities, or with a disabled
//     watchdog, gives AVD no priority_flow_control (a disabled watchdog in
//     a profile is `watchdog: {enabled: false}`, which AVD renders as
//     nothing); fabricctl's `no priority-flow-control on` and `no
//     priority-flow-control pause watchdog` are resets.
//   - Line order within a context is not compared (the commands compared
//     are independent settings, and switchcfg/eos reads them in any
//     order); EOSDiff.Order says where it differs.

//go:embed avd.py
var avdScript string

// AVDProfileName is the qos profile AVDProfile writes and attaches.
const AVDProfileName = "FABRICCTL"

// AVDStyle says where the structured configuration puts the per-port
// settings.
type AVDStyle int

const (
	// AVDInterfaces writes them on each ethernet_interfaces[] entry, as
	// fabricctl renders them, as far as AVD's interface model goes (mtu, qos
	// trust, PFC, queue ECN).
	AVDInterfaces AVDStyle = iota
	// AVDProfile writes them in one qos_profiles[] entry that each
	// interface attaches with service_profile (mtu stays on the interface):
	// AVD's own model, which carries queue scheduling and the port watchdog.
	AVDProfile
)

func (s AVDStyle) String() string {
	if s == AVDProfile {
		return "qos-profile"
	}
	return "interfaces"
}

// EOSStructuredConfig writes the intent of an arista-eos switch as AVD
// eos_cli_config_gen structured configuration in style. It is derived from
// the intent alone, as an AVD user would write it: maps, the global watchdog
// (timers and action) when the watchdog is enabled, and per port the MTU,
// trust, PFC no-drop priorities, each used queue (tx-queue on sand models,
// uc-tx-queue otherwise) with its scheduling and ECN thresholds (kbytes
// when both are whole kbytes, else bytes) and the port watchdog. What the
// intent turns off (PFC, a watchdog) is left out, which in AVD's whole
// configuration means off. It is pure.
func EOSStructuredConfig(si fabric.SwitchIntent, style AVDStyle) (map[string]any, error) {
	model, err := eos.New().Info().Model(si.Model)
	if err != nil {
		return nil, err
	}
	trust, ok := map[string]string{"dscp": "dscp", "pcp": "cos"}[si.Trust]
	if !ok {
		return nil, fmt.Errorf("trust %q has no AVD qos trust", si.Trust)
	}
	queueKey, queueWord := "uc_tx_queues", "uc-tx-queue"
	if model.Name == eos.ModelSand {
		queueKey, queueWord = "tx_queues", "tx-queue"
	}
	classes := slices.Clone(si.Classes)
	sort.SliceStable(classes, func(i, j int) bool { return classes[i].TrafficClass < classes[j].TrafficClass })

	var cos, dscp, tc []any
	for _, c := range classes {
		cos = append(cos, fmt.Sprintf("%d to traffic-class %d", c.Priority, c.TrafficClass))
		if len(c.DSCP) > 0 {
			dscp = append(dscp, fmt.Sprintf("%s to traffic-class %d", avdInts(c.DSCP), c.TrafficClass))
		}
		tc = append(tc, fmt.Sprintf("%d to %s %d", c.TrafficClass, queueWord, c.Queue))
	}
	qosMap := map[string]any{"cos": cos, "traffic_class": tc}
	if len(dscp) > 0 {
		qosMap["dscp"] = dscp
	}
	data := map[string]any{"qos": map[string]any{"map": qosMap}}

	wd := si.PFC.Watchdog
	if wd != nil && wd.Enabled {
		g := map[string]any{}
		for _, t := range []struct {
			key string
			ms  int
		}{{"timeout", wd.DetectionTimeMs}, {"polling_interval", wd.PollIntervalMs}, {"recovery_time", wd.RestorationTimeMs}} {
			if t.ms > 0 {
				g[t.key] = avdSeconds(t.ms)
			}
		}
		// drop and forward act globally (AVD: drop, no-drop); alert is the
		// port's notify-only.
		if a, ok := map[string]string{"drop": "drop", "forward": "no-drop"}[wd.Action]; ok {
			g["action"] = a
		}
		if len(g) > 0 {
			data["priority_flow_control"] = map[string]any{"watchdog": g}
		}
	}

	// One entry per used queue: the class of the lowest traffic class that
	// uses it (classes sharing a queue share its scheduling).
	var queues []map[string]any
	seen := map[int]bool{}
	for _, c := range classes {
		if seen[c.Queue] {
			continue
		}
		seen[c.Queue] = true
		q := map[string]any{"id": c.Queue}
		if style == AVDProfile {
			if c.Strict {
				q["priority"] = "priority strict"
			} else {
				q["priority"] = "no priority"
			}
			if c.BandwidthPercent > 0 {
				q["bandwidth_percent"] = c.BandwidthPercent
			}
		}
		if e := c.ECN; e != nil {
			units, div := "kbytes", int64(eos.BytesPerKbyte)
			if e.MinBytes%div != 0 || e.MaxBytes%div != 0 {
				units, div = "bytes", 1
			}
			th := map[string]any{"units": units, "min": e.MinBytes / div, "max": e.MaxBytes / div}
			if e.MaxMarkProbability > 0 {
				th["max_probability"] = e.MaxMarkProbability
			}
			q["random_detect"] = map[string]any{"ecn": map[string]any{"threshold": th}}
		}
		queues = append(queues, q)
	}
	sort.Slice(queues, func(i, j int) bool { return queues[i]["id"].(int) < queues[j]["id"].(int) })

	var pfc map[string]any
	if len(si.PFC.Priorities) > 0 {
		var prios []any
		for _, p := range si.PFC.Priorities {
			prios = append(prios, map[string]any{"priority": p, "no_drop": true})
		}
		pfc = map[string]any{"enabled": true, "priorities": prios}
	}

	var ifs []any
	for _, port := range si.Ports {
		i := map[string]any{"name": port}
		if si.MTU > 0 {
			i["mtu"] = si.MTU
		}
		if style == AVDProfile {
			i["service_profile"] = AVDProfileName
		} else {
			i["qos"] = map[string]any{"trust": trust}
			if pfc != nil {
				i["priority_flow_control"] = pfc
			}
			i[queueKey] = queues
		}
		ifs = append(ifs, i)
	}
	data["ethernet_interfaces"] = ifs

	if style == AVDProfile {
		prof := map[string]any{"name": AVDProfileName, "trust": trust, queueKey: queues}
		ppfc := map[string]any{}
		for k, v := range pfc {
			ppfc[k] = v
		}
		if wd != nil {
			w := map[string]any{"enabled": wd.Enabled}
			if wd.Enabled && wd.Action == "alert" {
				w["action"] = "notify-only"
			}
			ppfc["watchdog"] = w
		}
		if len(ppfc) > 0 {
			prof["priority_flow_control"] = ppfc
		}
		data["qos_profiles"] = []any{prof}
	}
	return data, nil
}

// avdSeconds writes milliseconds as the decimal seconds AVD's watchdog
// timers take ("0.2", "10").
func avdSeconds(ms int) string {
	return strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64)
}

func avdInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, " ")
}

// AVD runs Arista AVD's eos_cli_config_gen schema and templates through
// avd.py.
type AVD struct {
	// Dir is the folder holding python-avd/pyavd/_eos_cli_config_gen (the
	// validators' avd/).
	Dir string
	// Python is the interpreter with jinja2 and yaml; "" is /usr/bin/python3.
	Python string
}

// AVDResult is AVD's verdict on one structured configuration.
type AVDResult struct {
	// Errors are the schema's ("structured_config.qos_profiles[0].trust:
	// 'x' is not one of [...]") and any template failure.
	Errors []string `json:"errors"`
	// Config is the EOS CLI AVD's templates render.
	Config string `json:"config"`
	// PrintedUndefined are the variables a template printed while they
	// were undefined: AVD's own (strict) environment fails there; avd.py
	// prints nothing and names them (see AVDTemplateDefects).
	PrintedUndefined []string `json:"printed_undefined"`
}

// AVDTemplateDefects are the undefined variables AVD's templates are known
// to print, and why; CheckEOS fails on any other. The line they would
// write is empty, so AVD's rendering is otherwise whole.
var AVDTemplateDefects = map[string]string{
	// qos-profiles.j2 (AVD 3cac535c1697) builds `priority-flow-control
	// pause watchdog port timer …` in pfc_command only when
	// watchdog.timer.timeout is set, but prints pfc_command whenever the
	// watchdog is enabled: a profile with an enabled watchdog and no port
	// timer (the watchdog on the global timers, as fabricctl writes it)
	// fails in AVD with "'pfc_command' is undefined".
	"pfc_command": "qos-profiles.j2 prints pfc_command for an enabled watchdog without a port timer",
}

// Run checks and renders each structured configuration, in one run of the
// driver. Results are in the order of configs.
func (a AVD) Run(ctx context.Context, configs []map[string]any) ([]AVDResult, error) {
	dir, err := filepath.Abs(a.Dir)
	if err != nil {
		return nil, fmt.Errorf("finding AVD: %w", err)
	}
	in, err := json.Marshal(map[string]any{"avd": dir, "configs": configs})
	if err != nil {
		return nil, fmt.Errorf("encoding structured configuration: %w", err)
	}
	py := a.Python
	if py == "" {
		py = "/usr/bin/python3"
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, py, "-I", "-c", avdScript)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(in), &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("running AVD's schema and templates: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	var out []AVDResult
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		return nil, fmt.Errorf("reading AVD's results: %w", err)
	}
	if len(out) != len(configs) {
		return nil, fmt.Errorf("reading AVD's results: %d for %d configurations", len(out), len(configs))
	}
	return out, nil
}

// EOSLine is one configuration line in its context: "global", "interface
// Ethernet1" or "interface Ethernet1 / uc-tx-queue 3".
type EOSLine struct {
	Context string
	Line    string
}

func (l EOSLine) String() string { return "[" + l.Context + "] " + l.Line }

// EOSDiff is fabricctl's EOS render against AVD's, context by context.
type EOSDiff struct {
	// Matched are fabricctl's lines AVD writes too, in the same context.
	Matched []EOSLine
	// OnlyOurs and OnlyAVD are the failures: a line one side writes and the
	// other does not (a queue block only one side has shows as its lines).
	OnlyOurs, OnlyAVD []EOSLine
	// Resets are fabricctl's `no …` lines with no AVD counterpart.
	Resets []EOSLine
	// Equivalent are fabricctl's lines that AVD models only in a qos profile
	// (AVDInterfaces only; see the package's known equivalences).
	Equivalent []EOSLine
	// Order lists the contexts whose common lines come in another order
	// (AVDInterfaces only: a profile applied has no order of its own).
	Order []string
}

// Failures names each differing line, fabricctl's first.
func (d EOSDiff) Failures() []string {
	var out []string
	for _, l := range d.OnlyOurs {
		out = append(out, "only fabricctl "+l.String())
	}
	for _, l := range d.OnlyAVD {
		out = append(out, "only AVD "+l.String())
	}
	return out
}

var (
	queueHead       = regexp.MustCompile(`^(uc-|mc-)?tx-queue \d+$`)
	bandwidthLine   = regexp.MustCompile(`^bandwidth percent \d+$`)
	portWatchdogAct = regexp.MustCompile(`^priority-flow-control pause watchdog port action \S+$`)
)

// profileOnly says whether a fabricctl line is one AVD models only in a qos
// profile: queue scheduling and the port watchdog.
func profileOnly(ctx, line string) bool {
	if strings.Contains(ctx, " / ") {
		return line == "priority strict" || line == "no priority" || bandwidthLine.MatchString(line)
	}
	return strings.HasPrefix(ctx, "interface ") &&
		(line == "priority-flow-control pause watchdog" || portWatchdogAct.MatchString(line))
}

// eosContexts splits EOS CLI into its contexts, in order of first
// appearance, and the lines of each. Blank lines, `!` separators and `!!`
// comments are skipped; a block (interface, qos profile) starts at column
// 0, its lines are indented, and a queue block inside it starts a
// sub-context ("interface Ethernet1 / uc-tx-queue 3"). A block's head is
// also a line of the context around it, so that a block only one side
// opens shows even when it is empty.
func eosContexts(text string) (order []string, lines map[string][]string) {
	lines = map[string][]string{}
	add := func(ctx, line string) {
		if _, ok := lines[ctx]; !ok {
			order = append(order, ctx)
			lines[ctx] = nil
		}
		if line != "" {
			lines[ctx] = append(lines[ctx], line)
		}
	}
	block, ctx := "", "global"
	for _, raw := range strings.Split(text, "\n") {
		line := strings.TrimSpace(raw)
		if line == "" || line == "!" || strings.HasPrefix(line, "!!") {
			continue
		}
		indent := len(raw) - len(strings.TrimLeft(raw, " "))
		switch {
		case indent == 0 && (strings.HasPrefix(line, "interface ") || strings.HasPrefix(line, "qos profile ")):
			add("global", line)
			block, ctx = line, line
			add(ctx, "")
			continue
		case indent == 0:
			block, ctx = "", "global"
		case block == "":
			ctx = "global"
		case queueHead.MatchString(line):
			add(block, line)
			ctx = block + " / " + line
			add(ctx, "")
			continue
		case indent <= 3:
			ctx = block
		}
		add(ctx, line)
	}
	return order, lines
}

// applyProfiles does what EOS does with `service-profile NAME` on an
// interface: the qos profile's lines and queue blocks become the
// interface's, ahead of the interface's own lines. A profile an interface
// applies is then gone (its block and its head); one no interface names
// stays, and so does a service-profile line naming no profile.
func applyProfiles(order []string, lines map[string][]string) ([]string, map[string][]string) {
	isBlock := func(ctx string) bool { return !strings.Contains(ctx, " / ") && ctx != "global" }
	applied := map[string]string{} // interface → its profile's context
	used := map[string]bool{}
	for _, ctx := range order {
		if !strings.HasPrefix(ctx, "interface ") || !isBlock(ctx) {
			continue
		}
		for _, l := range lines[ctx] {
			if name, ok := strings.CutPrefix(l, "service-profile "); ok && slices.Contains(order, "qos profile "+name) {
				applied[ctx] = "qos profile " + name
				used["qos profile "+name] = true
			}
		}
	}
	out := map[string][]string{}
	var outOrder []string
	add := func(ctx string, l ...string) {
		if _, ok := out[ctx]; !ok {
			outOrder = append(outOrder, ctx)
			out[ctx] = nil
		}
		out[ctx] = append(out[ctx], l...)
	}
	for _, ctx := range order {
		head, _, _ := strings.Cut(ctx, " / ")
		switch {
		case used[head]:
			// applied below, with the interfaces
		case ctx == "global":
			for _, l := range lines[ctx] {
				if !used[l] {
					add(ctx, l)
				}
			}
		case applied[ctx] != "":
			profile := applied[ctx]
			add(ctx, lines[profile]...)
			for _, pc := range order {
				if sub, ok := strings.CutPrefix(pc, profile+" / "); ok {
					add(ctx+" / "+sub, lines[pc]...)
				}
			}
			for _, l := range lines[ctx] {
				if l != "service-profile "+strings.TrimPrefix(profile, "qos profile ") {
					add(ctx, l)
				}
			}
		default:
			add(ctx, lines[ctx]...)
		}
	}
	return outOrder, out
}

// CompareEOS compares fabricctl's EOS render with AVD's rendering of the
// same intent in style, line by line within each context. AVD's qos
// profiles are applied to the interfaces naming them first. Lines are
// compared as multisets per context: a line fabricctl writes that AVD does
// not is a reset when it is a `no …` line that undoes nothing AVD
// configures in the context, an equivalence when style is
// AVDInterfaces and AVD models it only in a qos profile, and a failure
// otherwise; a line only AVD writes is a failure.
func CompareEOS(ours, avd string, style AVDStyle) EOSDiff {
	oOrder, o := eosContexts(ours)
	aOrder, a := applyProfiles(eosContexts(avd))
	var d EOSDiff
	all := slices.Clone(oOrder)
	for _, ctx := range aOrder {
		if _, ok := o[ctx]; !ok {
			all = append(all, ctx)
		}
	}
	for _, ctx := range all {
		left := map[string]int{}
		for _, l := range a[ctx] {
			left[l]++
		}
		var common []string
		for _, l := range o[ctx] {
			switch {
			case left[l] > 0:
				left[l]--
				d.Matched = append(d.Matched, EOSLine{ctx, l})
				common = append(common, l)
			case style == AVDInterfaces && profileOnly(ctx, l):
				d.Equivalent = append(d.Equivalent, EOSLine{ctx, l})
			case strings.HasPrefix(l, "no ") && !positive(a[ctx], strings.TrimPrefix(l, "no ")):
				// A reset AVD has no counterpart for (it renders whole
				// configurations); one that undoes what AVD configures
				// in the same context is a difference, not a reset.
				d.Resets = append(d.Resets, EOSLine{ctx, l})
			default:
				d.OnlyOurs = append(d.OnlyOurs, EOSLine{ctx, l})
			}
		}
		var avdCommon []string
		for _, l := range a[ctx] {
			if left[l] > 0 {
				left[l]--
				d.OnlyAVD = append(d.OnlyAVD, EOSLine{ctx, l})
				continue
			}
			avdCommon = append(avdCommon, l)
		}
		if style == AVDInterfaces && !slices.Equal(common, avdCommon) {
			d.Order = append(d.Order, ctx)
		}
	}
	return d
}

// positive reports whether lines configure cmd: the command itself or
// the command with arguments.
func positive(lines []string, cmd string) bool {
	for _, l := range lines {
		if l == cmd || strings.HasPrefix(l, cmd+" ") {
			return true
		}
	}
	return false
}

// EOSCheck is the verdict on one case in one style.
type EOSCheck struct {
	Case  string
	Style AVDStyle
	// Schema are AVD's schema errors on the structured configuration, and
	// undefined variables AVD's templates printed that AVDTemplateDefects
	// does not know.
	Schema []string
	// TemplateDefects are the known ones (AVDTemplateDefects) this case
	// met.
	TemplateDefects []string
	Diff            EOSDiff
	// AVD is AVD's rendering.
	AVD string
}

// CheckEOS runs every case through AVD in both styles: EOSStructuredConfig,
// AVD's schema and templates, CompareEOS with the case's render. Checks
// come in the order of cases, AVDInterfaces before AVDProfile.
func (a AVD) CheckEOS(ctx context.Context, cases []Case) ([]EOSCheck, error) {
	var configs []map[string]any
	var checks []EOSCheck
	var errs []error
	for _, c := range cases {
		for _, style := range []AVDStyle{AVDInterfaces, AVDProfile} {
			data, err := EOSStructuredConfig(c.Intent, style)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: writing AVD structured configuration: %w", c.Name, err))
				continue
			}
			configs = append(configs, data)
			checks = append(checks, EOSCheck{Case: c.Name, Style: style})
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	res, err := a.Run(ctx, configs)
	if err != nil {
		return nil, err
	}
	byName := map[string]Case{}
	for _, c := range cases {
		byName[c.Name] = c
	}
	for i := range checks {
		checks[i].Schema = res[i].Errors
		for _, v := range res[i].PrintedUndefined {
			if _, known := AVDTemplateDefects[v]; known {
				checks[i].TemplateDefects = append(checks[i].TemplateDefects, v)
			} else {
				checks[i].Schema = append(checks[i].Schema, fmt.Sprintf("AVD's templates printed %s undefined", v))
			}
		}
		checks[i].AVD = res[i].Config
		checks[i].Diff = CompareEOS(byName[checks[i].Case].Config.Text, res[i].Config, checks[i].Style)
	}
	return checks, nil
}
