package vendorcheck

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/fabric"
)

// eosAVD finds AVD's eos_cli_config_gen (../shared/validators/avd, or
// $FABRICCTL_VALIDATORS/avd) and Debian's python3 with jinja2 and yaml;
// without them the test is skipped, or fails in CI.
func eosAVD(t *testing.T) AVD {
	t.Helper()
	a := AVD{Dir: validators(t, "avd")}
	if _, err := os.Stat(filepath.Join(a.Dir, "python-avd", "pyavd", "_eos_cli_config_gen", "j2templates", "eos", "qos.j2")); err != nil {
		need(t, "AVD's eos_cli_config_gen: "+err.Error())
	}
	if out, err := exec.Command("/usr/bin/python3", "-I", "-c", "import jinja2, yaml").CombinedOutput(); err != nil {
		need(t, "/usr/bin/python3 with jinja2 and yaml (scripts/install-deps.sh): "+strings.TrimSpace(string(out))+" "+err.Error())
	}
	return a
}

// TestEOSRendersMatchAVD: every arista-eos render of vendorcheck.Cases,
// written as AVD structured configuration, passes AVD's schema, and AVD's
// templates write the same lines in the same contexts, both with the
// settings on each interface and in AVD's qos-profile model. fabricctl's
// `no …` resets are listed apart; lines AVD models only in qos profiles
// are equivalences in the interface style, and must match AVD's lines in
// the profile style.
func TestEOSRendersMatchAVD(t *testing.T) {
	a := eosAVD(t)
	cases, refused, err := Cases(repoRoot(t), "arista-eos")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range refused {
		t.Logf("refused %s: %v", r.Name, r.Err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	checks, err := a.CheckEOS(ctx, cases)
	if err != nil {
		t.Fatal(err)
	}
	if len(checks) != 2*len(cases) {
		t.Fatalf("%d checks for %d cases", len(checks), len(cases))
	}
	// The cases reach both families' queue commands.
	for _, word := range []string{" tx-queue ", " uc-tx-queue "} {
		if !slices.ContainsFunc(cases, func(c Case) bool { return strings.Contains(c.Config.Text, word) }) {
			t.Errorf("no case renders %q", strings.TrimSpace(word))
		}
	}
	matched, resets, equivalent, defects := 0, 0, 0, 0
	for i := 0; i < len(checks); i += 2 {
		ifs, prof := checks[i], checks[i+1]
		for _, c := range []EOSCheck{ifs, prof} {
			for _, e := range c.Schema {
				t.Errorf("%s (%s): AVD schema: %s", c.Case, c.Style, e)
			}
			for _, f := range c.Diff.Failures() {
				t.Errorf("%s (%s): %s", c.Case, c.Style, f)
			}
			if len(c.Diff.Matched) == 0 {
				t.Errorf("%s (%s): no line in common with AVD:\n%s", c.Case, c.Style, c.AVD)
			}
			matched += len(c.Diff.Matched)
			resets += len(c.Diff.Resets)
			defects += len(c.TemplateDefects)
		}
		if len(prof.Diff.Equivalent) != 0 {
			t.Errorf("%s: equivalences in the qos-profile style: %v", prof.Case, prof.Diff.Equivalent)
		}
		for _, l := range ifs.Diff.Equivalent {
			if !slices.Contains(prof.Diff.Matched, l) {
				t.Errorf("%s: %s: AVD models it only in a qos profile, and there AVD does not write it", ifs.Case, l)
			}
		}
		equivalent += len(ifs.Diff.Equivalent)
		if len(ifs.Diff.Order) > 0 {
			t.Logf("%s: AVD orders lines otherwise in %s", ifs.Case, strings.Join(ifs.Diff.Order, "; "))
		}
	}
	t.Logf("%d cases checked (%d refused) in 2 styles: %d lines equal to AVD's, %d resets, %d profile-only lines proven in the qos-profile style; %d renders met a known AVD template defect (AVDTemplateDefects)",
		len(cases), len(refused), matched, resets, equivalent, defects)
}

// eosIntent is a small arista-eos intent: RoCE lossless on queue 3 with
// ECN, CNPs strict on 6, the rest on 0, an enabled watchdog.
func eosIntent() fabric.SwitchIntent {
	return fabric.SwitchIntent{
		Platform: "arista-eos", Ports: []string{"Ethernet1", "Ethernet2"}, MTU: 9214, Trust: "dscp",
		Classes: []fabric.SwitchClass{
			{Name: "default", Priority: 0, DSCP: []int{0, 1}, BandwidthPercent: 50},
			{Name: "roce", Priority: 3, TrafficClass: 3, Queue: 3, DSCP: []int{26}, Lossless: true, BandwidthPercent: 50,
				ECN: &fabric.SwitchECN{MinBytes: 150000, MaxBytes: 1500000, MaxMarkProbability: 100}},
			{Name: "cnp", Priority: 6, TrafficClass: 6, Queue: 6, DSCP: []int{48}, Strict: true},
		},
		PFC: fabric.SwitchPFC{Priorities: []int{3},
			Watchdog: &fabric.SwitchPFCWatchdog{Enabled: true, PollIntervalMs: 100, DetectionTimeMs: 200, RestorationTimeMs: 400, Action: "drop"}},
	}
}

// The schema check refuses what AVD's schema refuses, naming the path: each
// mutation of a valid structured configuration is caught, and the valid one
// passes (with its string numbers converted as AVD converts them).
func TestAVDSchemaRefuses(t *testing.T) {
	a := eosAVD(t)
	type mutation struct {
		name, want string
		edit       func(d map[string]any)
	}
	iface := func(d map[string]any) map[string]any { return d["ethernet_interfaces"].([]any)[0].(map[string]any) }
	profile := func(d map[string]any) map[string]any { return d["qos_profiles"].([]any)[0].(map[string]any) }
	queue := func(d map[string]any) map[string]any { return profile(d)["uc_tx_queues"].([]map[string]any)[1] }
	muts := []mutation{
		{"valid, mtu as a string", "", func(d map[string]any) { iface(d)["mtu"] = "9214" }},
		{"unknown key", "ethernet_interfaces[0]: unexpected key(s) pfc", func(d map[string]any) { iface(d)["pfc"] = true }},
		{"unknown top-level key", "structured_config: unexpected key(s) qos_maps", func(d map[string]any) { d["qos_maps"] = 1 }},
		{"above max", "ethernet_interfaces[0].mtu: 70000 is above the maximum 65535", func(d map[string]any) { iface(d)["mtu"] = 70000 }},
		{"below min", "threshold.min: 0 is below the minimum 1", func(d map[string]any) {
			queue(d)["random_detect"].(map[string]any)["ecn"].(map[string]any)["threshold"].(map[string]any)["min"] = 0
		}},
		{"not a valid value", "qos_profiles[0].trust: 'ip' is not one of", func(d map[string]any) { profile(d)["trust"] = "ip" }},
		{"pattern", "watchdog.timeout: '0.005' does not match the pattern", func(d map[string]any) {
			d["priority_flow_control"].(map[string]any)["watchdog"].(map[string]any)["timeout"] = "0.005"
		}},
		{"required", "threshold.units: required", func(d map[string]any) {
			delete(queue(d)["random_detect"].(map[string]any)["ecn"].(map[string]any)["threshold"].(map[string]any), "units")
		}},
		{"duplicate primary key", "ethernet_interfaces[1].name: 'Ethernet1' also in item 0", func(d map[string]any) {
			d["ethernet_interfaces"].([]any)[1].(map[string]any)["name"] = "Ethernet1"
		}},
		{"type", "ethernet_interfaces[0].mtu: 'jumbo' is a str, the schema wants a int", func(d map[string]any) { iface(d)["mtu"] = "jumbo" }},
		{"priority strict", "priority: 'strict' is not one of", func(d map[string]any) { queue(d)["priority"] = "strict" }},
	}
	var configs []map[string]any
	for range muts {
		d, err := EOSStructuredConfig(eosIntent(), AVDProfile)
		if err != nil {
			t.Fatal(err)
		}
		configs = append(configs, d)
	}
	for i, m := range muts {
		m.edit(configs[i])
	}
	res, err := a.Run(context.Background(), configs)
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range muts {
		errs := res[i].Errors
		switch {
		case m.want == "" && len(errs) > 0:
			t.Errorf("%s: %v", m.name, errs)
		case m.want != "" && !slices.ContainsFunc(errs, func(e string) bool { return strings.Contains(e, m.want) }):
			t.Errorf("%s: errors %q, want one containing %q", m.name, errs, m.want)
		case m.want != "" && len(errs) != 1:
			t.Errorf("%s: %d errors, want 1: %q", m.name, len(errs), errs)
		}
	}
	if !strings.Contains(res[0].Config, "   mtu 9214\n") {
		t.Errorf("the string MTU was not converted for the templates:\n%s", res[0].Config)
	}
}

// A deliberately wrong render is caught: a changed value, a line in the
// wrong context, a missing queue block, and a line AVD writes that
// fabricctl lacks; resets and (interface style) profile-only lines are not
// failures.
func TestCompareEOSCatchesDifferences(t *testing.T) {
	a := eosAVD(t)
	in := eosIntent()
	var configs []map[string]any
	for _, s := range []AVDStyle{AVDInterfaces, AVDProfile} {
		d, err := EOSStructuredConfig(in, s)
		if err != nil {
			t.Fatal(err)
		}
		configs = append(configs, d)
	}
	res, err := a.Run(context.Background(), configs)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if len(r.Errors) > 0 {
			t.Fatal(r.Errors)
		}
	}
	good := `qos map cos 0 to traffic-class 0
qos map cos 3 to traffic-class 3
qos map cos 6 to traffic-class 6
no qos map cos 1 2 4 5 7 to traffic-class 0
qos map dscp 0 1 to traffic-class 0
qos map dscp 26 to traffic-class 3
qos map dscp 48 to traffic-class 6
qos map traffic-class 0 to uc-tx-queue 0
qos map traffic-class 3 to uc-tx-queue 3
qos map traffic-class 6 to uc-tx-queue 6
priority-flow-control pause watchdog default timeout 0.2
priority-flow-control pause watchdog default polling-interval 0.1
priority-flow-control pause watchdog default recovery-time 0.4
priority-flow-control pause watchdog action drop
`
	port := `   mtu 9214
   no service-profile
   qos trust dscp
   priority-flow-control on
   priority-flow-control priority 3 no-drop
   no priority-flow-control priority 4
   priority-flow-control pause watchdog
   uc-tx-queue 0
      no priority
      bandwidth percent 50
      no random-detect ecn
   uc-tx-queue 3
      no priority
      bandwidth percent 50
      random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes max-mark-probability 100
   uc-tx-queue 6
      priority strict
      no bandwidth percent
   no uc-tx-queue 7
`
	good += "interface Ethernet1\n" + port + "interface Ethernet2\n" + port
	for i, s := range []AVDStyle{AVDInterfaces, AVDProfile} {
		d := CompareEOS(good, res[i].Config, s)
		if f := d.Failures(); len(f) > 0 {
			t.Fatalf("%s: %v\nAVD:\n%s", s, f, res[i].Config)
		}
		if want := []EOSLine{{"global", "no qos map cos 1 2 4 5 7 to traffic-class 0"}, {"interface Ethernet1", "no service-profile"}}; !slices.Contains(d.Resets, want[0]) || !slices.Contains(d.Resets, want[1]) {
			t.Errorf("%s: resets %v lack %v", s, d.Resets, want)
		}
		eq := EOSLine{"interface Ethernet2 / uc-tx-queue 6", "priority strict"}
		if s == AVDInterfaces && !slices.Contains(d.Equivalent, eq) {
			t.Errorf("%s: equivalences %v lack %v", s, d.Equivalent, eq)
		}
		if s == AVDProfile && !slices.Contains(d.Matched, eq) {
			t.Errorf("%s: %v not matched in the profile", s, eq)
		}
	}
	for _, tc := range []struct {
		name, from, to string
		want           []string
	}{
		{"changed value", "bandwidth percent 50\n      random", "bandwidth percent 40\n      random", []string{
			"only AVD [interface Ethernet1 / uc-tx-queue 3] bandwidth percent 50"}},
		{"changed map", "qos map dscp 26 to", "qos map dscp 24 to", []string{
			"only fabricctl [global] qos map dscp 24 to traffic-class 3", "only AVD [global] qos map dscp 26 to traffic-class 3"}},
		{"wrong context", "   qos trust dscp\n", "", []string{"only AVD [interface Ethernet1] qos trust dscp"}},
		{"missing queue", "   uc-tx-queue 6\n      priority strict\n      no bandwidth percent\n", "", []string{
			"only AVD [interface Ethernet1] uc-tx-queue 6"}},
		{"extra line", "   mtu 9214\n", "   mtu 9214\n   shutdown\n", []string{"only fabricctl [interface Ethernet1] shutdown"}},
		{"watchdog off", "   priority-flow-control pause watchdog\n", "   no priority-flow-control pause watchdog\n", []string{
			"only AVD [interface Ethernet1] priority-flow-control pause watchdog"}},
		// A `no` line that undoes what AVD configures is no reset.
		{"no undoing AVD", "   priority-flow-control on\n", "   no priority-flow-control on\n", []string{
			"only fabricctl [interface Ethernet1] no priority-flow-control on"}},
	} {
		bad := strings.Replace(good, tc.from, tc.to, 1)
		if bad == good {
			t.Fatalf("%s: nothing replaced", tc.name)
		}
		// The profile style sees every mutation; the interface style all
		// but the scheduling and watchdog ones.
		d := CompareEOS(bad, res[1].Config, AVDProfile)
		for _, w := range tc.want {
			if !slices.Contains(d.Failures(), w) {
				t.Errorf("%s: failures %q lack %q", tc.name, d.Failures(), w)
			}
		}
	}
}
