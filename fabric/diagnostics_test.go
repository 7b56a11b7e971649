package fabric

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// quietProfile is goodProfile with a PFC watchdog: it validates without a
// warning, and the warning cases edit it.
const quietProfile = goodProfile + "    pfc: {watchdog: {enabled: true, pollInterval: 100ms, detectionTime: 200ms, restorationTime: 400ms}}\n"

// check loads file from files with the test platforms and returns the
// error lines and the warning lines, each as printed.
func check(t *testing.T, file string, files map[string]string) (errs, warns []string) {
	t.Helper()
	f, ws, err := Check(file, Options{Platforms: testPlatforms{}, ReadFile: memFS(files)})
	var es Errors
	if err != nil && !errors.As(err, &es) {
		t.Fatalf("error is %T, want Errors: %v", err, err)
	}
	for _, e := range es {
		errs = append(errs, e.Error())
	}
	for _, w := range ws {
		warns = append(warns, w.String())
	}
	if err == nil && len(f.Warnings()) != len(ws) {
		t.Errorf("f.Warnings() holds %d warnings, Check returned %d", len(f.Warnings()), len(ws))
	}
	return errs, warns
}

func TestWarnings(t *testing.T) {
	P := func(old, new string) editFn {
		return func(s string) string { return edit(t, s, old, new) }
	}
	cases := []struct {
		name string
		file string
		prof editFn
		fab  editFn
		want []string
	}{
		{name: "none", file: "f.yaml"},
		{name: "no CNP class, DSCP 48 in the rest class", file: "p.yaml",
			prof: P("dscp: [48]", "dscp: [46]").apply(P("roce: {class: roce, cnpClass: cnp}", "roce: {class: roce}")),
			want: []string{`p.yaml:23:11: spec.ethernet.roce.cnpClass: warning: no CNP class: congestion notification packets keep the NIC's default (DSCP 48, priority 6), and DSCP 48 falls in class "default" (dscp: rest, lossy) behind bulk traffic, which delays DCQCN's reaction; add a class such as {name: cnp, priority: 6, dscp: [48], ets: {strict: true}} and set roce.cnpClass [no-cnp-class]`}},
		{name: "no CNP class, a class takes DSCP 48", file: "p.yaml", prof: P("roce: {class: roce, cnpClass: cnp}", "roce: {class: roce}"),
			want: []string{`p.yaml:23:11: spec.ethernet.roce.cnpClass: warning: no CNP class: congestion notification packets keep the NIC's default (DSCP 48, priority 6), which class "cnp" takes; set roce.cnpClass: cnp to say so [no-cnp-class]`}},
		{name: "no CNP class, no roce section", file: "p.yaml", prof: P("    roce: {class: roce, cnpClass: cnp}\n", "").apply(P("dscp: rest", "dscp: [0]")),
			want: []string{`p.yaml:7:5: spec.ethernet.roce: warning: no CNP class: congestion notification packets keep the NIC's default (DSCP 48, priority 6), which class "cnp" takes; set roce.cnpClass: cnp to say so [no-cnp-class]`}},
		{name: "no CNP class, DSCP 48 in no class", file: "p.yaml",
			prof: P("dscp: [48]", "dscp: [46]").apply(P("roce: {class: roce, cnpClass: cnp}", "roce: {class: roce}")).apply(P("dscp: rest", "dscp: [0]")),
			want: []string{`p.yaml:23:11: spec.ethernet.roce.cnpClass: warning: no CNP class: congestion notification packets keep the NIC's default (DSCP 48, priority 6), and DSCP 48 is in no class of this profile: the switches queue CNPs wherever their defaults put them; add a class such as {name: cnp, priority: 6, dscp: [48], ets: {strict: true}} and set roce.cnpClass [no-cnp-class]`}},
		{name: "lossless without a PFC watchdog", file: "p.yaml", prof: func(string) string { return goodProfile },
			want: []string{`p.yaml:7:5: spec.ethernet.pfc.watchdog: warning: lossless class "roce" has no PFC watchdog: a NIC or host that stops draining its queue pauses its switch port without end, and the pause spreads through the fabric (a PFC storm); set pfc.watchdog: {enabled: true, pollInterval: 100ms, detectionTime: 200ms, restorationTime: 400ms, action: drop} [no-pfc-watchdog]`}},
		{name: "PFC watchdog disabled", file: "p.yaml", prof: P("{watchdog: {enabled: true,", "{watchdog: {enabled: false,"),
			want: []string{`p.yaml:24:31: spec.ethernet.pfc.watchdog.enabled: warning: the PFC watchdog is disabled while class "roce" is lossless: a NIC or host that stops draining its queue pauses its switch port without end, and the pause spreads through the fabric (a PFC storm); set enabled: true [no-pfc-watchdog]`}},
		{name: "ECN off on a lossless class", file: "p.yaml", prof: P("ecn: {minThreshold: 150KB, maxThreshold: 1500KB}", "ecn: off"),
			want: []string{`p.yaml:14:14: spec.ethernet.classes[0].ecn: warning: lossless class "roce" has ECN off: without marks DCQCN never slows the senders, so congestion is met by PFC pauses alone, which spread to flows that cause none (head-of-line blocking); give it thresholds such as {minThreshold: 150KB, maxThreshold: 1500KB} [lossless-ecn-off]`}},
		{name: "CNP class not strict", file: "p.yaml", prof: P("ets: {strict: true}", "ets: {bandwidthPercent: 10}").apply(P("bandwidthPercent: 50}\n    roce", "bandwidthPercent: 40}\n    roce")),
			want: []string{`p.yaml:23:35: spec.ethernet.roce.cnpClass: warning: CNP class "cnp" shares bandwidth (ets: bandwidthPercent) instead of strict priority: under congestion, exactly when they matter, CNPs wait their turn behind queued data and DCQCN reacts late; give the class ets: {strict: true} [cnp-class-not-strict]`}},
		{name: "DCQCN disabled", file: "p.yaml", prof: P("cnpClass: cnp}", "cnpClass: cnp, dcqcn: {enabled: false}}"),
			want: []string{`p.yaml:23:57: spec.ethernet.roce.dcqcn.enabled: warning: switches ECN-mark class "roce", but DCQCN is disabled: the hosts ignore the marks and congestion falls to PFC (or to drops on a lossy class) [dcqcn-disabled]`}},
		{name: "MTU below RoCE's 4096", file: "p.yaml", prof: P("mtu: 9000", "mtu: 4100"),
			want: []string{`p.yaml:7:10: spec.ethernet.mtu: warning: host MTU 4100 gives RoCE an active MTU of 2048: the kernel takes 96 bytes of RoCE headers off the netdev MTU, so RoCE's 4096 needs an MTU of at least 4192 (9000 for jumbo frames) [roce-mtu-below-4096]`}},
		{name: "RDMA devices as interfaces", file: "f.yaml", fab: P("      labels: {role: gpu}", "      interfaces: [mlx5_0, ens1f0np0, bnxt_re1, rxe0, irdma0, rocep59s0f0, mlx5_bond_0, eth0]\n      labels: {role: gpu}"),
			want: []string{
				"f.yaml:11:20: spec.hosts[0].interfaces[0]: warning: \"mlx5_0\" is named like an RDMA device (mlx5), not a network interface: interfaces lists netdevs such as ens1f0np0 (`rdma link show` or ibdev2netdev maps mlx5_0 to its netdev); fabricctl cannot look at the host when validating, so this is judged by the name alone [rdma-device-as-interface]",
				"f.yaml:11:39: spec.hosts[0].interfaces[2]: warning: \"bnxt_re1\" is named like an RDMA device (bnxt_re), not a network interface: interfaces lists netdevs such as ens1f0np0 (`rdma link show` or ibdev2netdev maps bnxt_re1 to its netdev); fabricctl cannot look at the host when validating, so this is judged by the name alone [rdma-device-as-interface]",
				"f.yaml:11:49: spec.hosts[0].interfaces[3]: warning: \"rxe0\" is named like an RDMA device (rdma_rxe), not a network interface: interfaces lists netdevs such as ens1f0np0 (`rdma link show` or ibdev2netdev maps rxe0 to its netdev); fabricctl cannot look at the host when validating, so this is judged by the name alone [rdma-device-as-interface]",
				"f.yaml:11:55: spec.hosts[0].interfaces[4]: warning: \"irdma0\" is named like an RDMA device (irdma), not a network interface: interfaces lists netdevs such as ens1f0np0 (`rdma link show` or ibdev2netdev maps irdma0 to its netdev); fabricctl cannot look at the host when validating, so this is judged by the name alone [rdma-device-as-interface]",
				"f.yaml:11:63: spec.hosts[0].interfaces[5]: warning: \"rocep59s0f0\" is named like an RDMA device (rdma-core persistent naming), not a network interface: interfaces lists netdevs such as ens1f0np0 (`rdma link show` or ibdev2netdev maps rocep59s0f0 to its netdev); fabricctl cannot look at the host when validating, so this is judged by the name alone [rdma-device-as-interface]",
				"f.yaml:11:76: spec.hosts[0].interfaces[6]: warning: \"mlx5_bond_0\" is named like an RDMA device (mlx5), not a network interface: interfaces lists netdevs such as ens1f0np0 (`rdma link show` or ibdev2netdev maps mlx5_bond_0 to its netdev); fabricctl cannot look at the host when validating, so this is judged by the name alone [rdma-device-as-interface]",
			}},
		// A lossy ECN-only profile wants a CNP class as much as a lossless one.
		{name: "ECN-only RoCE without a CNP class", file: "p.yaml",
			prof: P("        lossless: true\n", "").apply(P("roce: {class: roce, cnpClass: cnp}", "roce: {class: roce, allowLossy: true}")).apply(P("dscp: [48]", "dscp: [46]")).apply(P("    pfc: {watchdog: {enabled: true, pollInterval: 100ms, detectionTime: 200ms, restorationTime: 400ms}}\n", "")),
			want: []string{`p.yaml:22:11: spec.ethernet.roce.cnpClass: warning: no CNP class: congestion notification packets keep the NIC's default (DSCP 48, priority 6), and DSCP 48 falls in class "default" (dscp: rest, lossy) behind bulk traffic, which delays DCQCN's reaction; add a class such as {name: cnp, priority: 6, dscp: [48], ets: {strict: true}} and set roce.cnpClass [no-cnp-class]`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			files := map[string]string{"f.yaml": goodFabric, "p.yaml": quietProfile}
			if c.prof != nil {
				files["p.yaml"] = c.prof(quietProfile)
			}
			if c.fab != nil {
				files["f.yaml"] = c.fab(goodFabric)
			}
			errs, warns := check(t, c.file, files)
			if len(errs) > 0 {
				t.Fatalf("warnings only, got errors:\n%s", strings.Join(errs, "\n"))
			}
			if diff := cmp.Diff(c.want, warns); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

// Warnings have their severity from their type, and print like errors
// with "warning:" and their code.
func TestWarningSeverityAndDiagnostics(t *testing.T) {
	w := &Warning{Pos: Pos{"f.yaml", 3, 5}, Path: "spec.x", Code: "no-cnp-class", Msg: "m"}
	e := &Error{Pos: Pos{"f.yaml", 2, 1}, Path: "spec.y", Msg: "n", Code: CodeUnknownField}
	if w.Severity() != SeverityWarning || e.Severity() != SeverityError {
		t.Errorf("severities %v %v", w.Severity(), e.Severity())
	}
	if got := w.String(); got != "f.yaml:3:5: spec.x: warning: m [no-cnp-class]" {
		t.Errorf("warning prints %q", got)
	}
	ds := Diagnostics(Errors{e}, Warnings{w})
	b, _ := json.Marshal(ds)
	want := `[{"severity":"error","code":"unknown-field","file":"f.yaml","line":2,"column":1,"path":"spec.y","message":"n"},` +
		`{"severity":"warning","code":"no-cnp-class","file":"f.yaml","line":3,"column":5,"path":"spec.x","message":"m"}]`
	if string(b) != want {
		t.Errorf("diagnostics JSON\n got %s\nwant %s", b, want)
	}
	if ds[0].String() != e.Error() || ds[1].String() != w.String() {
		t.Errorf("Diagnostic.String: %q %q", ds[0].String(), ds[1].String())
	}
	var s Severity
	if err := s.UnmarshalText([]byte("warning")); err != nil || s != SeverityWarning {
		t.Errorf("UnmarshalText: %v %v", s, err)
	}
}

// Warnings are looked for in what validated: a broken profile gets none.
func TestNoWarningsOnABrokenProfile(t *testing.T) {
	files := map[string]string{"p.yaml": edit(t, goodProfile, "mtu: 9000", "mtu: 100")}
	errs, warns := check(t, "p.yaml", files)
	if len(errs) != 1 || len(warns) != 0 {
		t.Errorf("want one error and no warning, got %q and %q", errs, warns)
	}
}

// Newcomers' words: the unknown field or value another tool would take
// gets the concept's place in fabricctl; misspellings get "did you mean".
func TestConceptHints(t *testing.T) {
	P := func(old, new string) editFn {
		return func(s string) string { return edit(t, s, old, new) }
	}
	const classFields = "; valid fields: dscp, ecn, ets, lossless, name, priority, queue, trafficClass"
	const ethFields = "; valid fields: classes, globalPause, mtu, pfc, queueBuffer, roce, switchMtu, trust"
	cases := []struct {
		name string
		edit editFn
		want []string // every error, in order
	}{
		{"pfc: true on a class", P("        lossless: true\n", "        pfc: true\n        lossless: true\n"),
			[]string{"p.yaml:12:9: spec.ethernet.classes[0].pfc: unknown field (PFC is per class: write lossless: true on the class, and fabricctl turns PFC on for its priority)" + classFields}},
		{"priority-flow-control on ethernet", P("    mtu: 9000\n", "    mtu: 9000\n    priority-flow-control: [3]\n"),
			[]string{"p.yaml:8:5: spec.ethernet.priority-flow-control: unknown field (PFC is per class: write lossless: true on the class, and fabricctl turns PFC on for its priority)" + ethFields}},
		{"ecn: true", P("ecn: {minThreshold: 150KB, maxThreshold: 1500KB}", "ecn: true"),
			[]string{`p.yaml:14:14: spec.ethernet.classes[0].ecn: expected ECN thresholds or "off", got a boolean (ECN on a class is its marking thresholds: ecn: {minThreshold: 150KB, maxThreshold: 1500KB})`}},
		{"trust: l3", P("    mtu: 9000\n", "    mtu: 9000\n    trust: l3\n"),
			[]string{`p.yaml:8:12: spec.ethernet.trust: "l3" is not one of dscp, pcp (NVUE's trust l3 is trust: dscp here, as mlnx_qos --trust dscp and EOS qos trust dscp)`}},
		{"trust: l2", P("    mtu: 9000\n", "    mtu: 9000\n    trust: L2\n"),
			[]string{`p.yaml:8:12: spec.ethernet.trust: "L2" is not one of dscp, pcp (NVUE's trust l2 is trust: pcp here, as mlnx_qos --trust pcp and EOS qos trust cos)`}},
		{"dscp: all", P("dscp: rest", "dscp: all"),
			[]string{`p.yaml:21:15: spec.ethernet.classes[2].dscp: expected a list of DSCP values or "rest", got "all" (dscp: rest takes every DSCP no other class lists)`}},
		{"dscp range", P("dscp: [26]", "dscp: 24-26"),
			[]string{`p.yaml:11:15: spec.ethernet.classes[0].dscp: expected a list of DSCP values or "rest", got "24-26" (write the range as a list: [24, 25, 26])`}},
		{"mtu: jumbo", P("mtu: 9000", "mtu: jumbo"),
			[]string{`p.yaml:7:10: spec.ethernet.mtu: expected an integer, got the string "jumbo" (jumbo frames are mtu: 9000 on the host netdev; switches take switchMtu, 9216 by default)`}},
		{"roce mode lossless", P("roce: {class: roce,", "roce: {mode: lossless, class: roce,"),
			[]string{`p.yaml:23:18: spec.ethernet.roce.mode: "lossless" is not one of v1, v2 (roce.mode is the RoCE version; NVUE's roce mode lossless is lossless: true on the RoCE class)`}},
		{"lossless: yes", P("lossless: true", "lossless: yes"),
			[]string{`p.yaml:12:19: spec.ethernet.classes[0].lossless: expected true or false, got the string "yes"; write true`}},
		{"kebab-case field", P("    mtu: 9000\n", "    mtu: 9000\n    switch-mtu: 9216\n"),
			[]string{`p.yaml:8:5: spec.ethernet.switch-mtu: unknown field (did you mean "switchMtu"?)` + ethFields}},
		{"transposed letters", P("priority: 6", "prioirty: 6"),
			[]string{`p.yaml:16:9: spec.ethernet.classes[1].prioirty: unknown field (did you mean "priority"?)` + classFields}},
		{"cnp-class in snake case", P("roce: {class: roce, cnpClass: cnp}", "roce: {class: roce, cnp_class: cnp}"),
			[]string{`p.yaml:23:25: spec.ethernet.roce.cnp_class: unknown field (did you mean "cnpClass"?); valid fields: allowLossy, class, cnpClass, dcqcn, mode, tos`}},
		{"RoCE version", P("roce: {class: roce,", "roce: {version: 2, class: roce,"),
			[]string{`p.yaml:23:12: spec.ethernet.roce.version: unknown field (the RoCE version is mode: v2); valid fields: allowLossy, class, cnpClass, dcqcn, mode, tos`}},
		{"bandwidth on a class", P("ets: {bandwidthPercent: 50}\n        ecn", "bandwidth: 50\n        ecn"),
			[]string{"p.yaml:13:9: spec.ethernet.classes[0].bandwidth: unknown field (a bandwidth share is ets: {bandwidthPercent: N})" + classFields}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			errs, _ := check(t, "p.yaml", map[string]string{"p.yaml": c.edit(quietProfile)})
			if diff := cmp.Diff(c.want, errs); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

// A file with decode errors and semantic errors reports them all in one
// run; validation keeps quiet where the decoder already spoke.
func TestDecodeAndSemanticErrorsInOneRun(t *testing.T) {
	P := func(old, new string) editFn {
		return func(s string) string { return edit(t, s, old, new) }
	}
	cases := []struct {
		name       string
		file       string
		prof, fab  editFn
		want       []string
		wantWarned []string
	}{
		{name: "unknown field, type error and ETS sum", file: "p.yaml",
			prof: P("ets: {bandwidthPercent: 50}\n        ecn", "ets: {bandwidthPercent: 60}\n        ecn").
				apply(P("    mtu: 9000\n", "    mtu: 9000\n    colour: red\n")).apply(P("priority: 6", `priority: "six"`)),
			want: []string{
				`p.yaml:8:5: spec.ethernet.colour: unknown field; valid fields: classes, globalPause, mtu, pfc, queueBuffer, roce, switchMtu, trust`,
				`p.yaml:10:7: spec.ethernet.classes: ETS bandwidth of the non-strict classes sums to 110%, not 100%`,
				`p.yaml:17:19: spec.ethernet.classes[1].priority: expected an integer, got the string "six"`,
			}},
		{name: "misspelt required field is reported once", file: "p.yaml", prof: P("    mtu: 9000\n", "    mtus: 9000\n"),
			want: []string{`p.yaml:7:5: spec.ethernet.mtus: unknown field (did you mean "mtu"?); valid fields: classes, globalPause, mtu, pfc, queueBuffer, roce, switchMtu, trust`}},
		{name: "a class name that did not decode is not 'no class named'", file: "p.yaml", prof: P("name: cnp", "name: [cnp]"),
			want: []string{`p.yaml:15:15: spec.ethernet.classes[1].name: expected a string, got a list`}},
		{name: "fabric: decode and semantic errors of the hosts", file: "f.yaml",
			fab: P("      labels: {role: gpu}", "      labels: {role: gpu}\n      bogus: 1").apply(P("10.0.0.2", "10.0.0.300")).apply(P("platform: sonic", "platform: [sonic]")),
			want: []string{
				`f.yaml:12:7: spec.hosts[0].bogus: unknown field; valid fields: address, interfaces, labels, links, name, portGuids, profile, ssh`,
				`f.yaml:14:16: spec.hosts[1].address: "10.0.0.300" is not an IP address or host name`,
				`f.yaml:18:17: spec.switches[0].platform: expected a string, got a list`,
			}},
		{name: "a profile that did not load is not 'no profile named'", file: "f.yaml",
			prof: P("kind: Profile", "kind: Profle"), fab: P("10.0.0.2", "10.0.0.300"),
			want: []string{
				`f.yaml:13:16: spec.hosts[1].address: "10.0.0.300" is not an IP address or host name`,
				`p.yaml:2:7: kind: "Profle" is not a document kind; use Fabric or Profile (did you mean "Profile"?)`,
			}},
		{name: "a host named like an RDMA device still warns beside an error", file: "f.yaml",
			fab:        P("      labels: {role: gpu}", "      interfaces: [mlx5_0]\n      labels: {role: gpu}").apply(P("10.0.0.2", "10.0.0.300")),
			want:       []string{`f.yaml:14:16: spec.hosts[1].address: "10.0.0.300" is not an IP address or host name`},
			wantWarned: []string{"spec.hosts[0].interfaces[0]: warning:"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			files := map[string]string{"f.yaml": goodFabric, "p.yaml": quietProfile}
			if c.prof != nil {
				files["p.yaml"] = c.prof(quietProfile)
			}
			if c.fab != nil {
				files["f.yaml"] = c.fab(goodFabric)
			}
			errs, warns := check(t, c.file, files)
			if diff := cmp.Diff(c.want, errs); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			if len(warns) != len(c.wantWarned) {
				t.Errorf("warnings %q, want %d", warns, len(c.wantWarned))
			}
			for i, w := range c.wantWarned {
				if i < len(warns) && !strings.Contains(warns[i], w) {
					t.Errorf("warning %q lacks %q", warns[i], w)
				}
			}
		})
	}
}

// A RoCE ToS whose DSCP another class lists sends RoCE into that class,
// also when the RoCE class takes the rest of the DSCPs.
func TestToSIntoAnotherClassThanTheRestClass(t *testing.T) {
	prof := edit(t, quietProfile, "dscp: [26]", "dscp: rest")
	prof = edit(t, prof, "dscp: rest\n        ets: {bandwidthPercent: 50}\n    roce", "dscp: [0]\n        ets: {bandwidthPercent: 50}\n    roce")
	prof = edit(t, prof, "cnpClass: cnp}", "cnpClass: cnp, tos: 194}")
	errs, _ := check(t, "p.yaml", map[string]string{"p.yaml": prof})
	want := []string{`p.yaml:23:45: spec.ethernet.roce.tos: ToS 194 carries DSCP 48, which class "cnp" lists: RoCE would ride that class, not "roce" (dscp: rest takes only the DSCPs no other class lists)`}
	if diff := cmp.Diff(want, errs); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

// YAML syntax errors are located at the line that holds the problem, not
// at the mapping yaml.v3 was parsing; a tab is called a tab.
func TestYAMLErrorsAtTheProblem(t *testing.T) {
	lines := strings.Split(quietProfile, "\n")
	with := func(n int, f func(string) string) string {
		out := append([]string(nil), lines...)
		out[n-1] = f(out[n-1])
		return strings.Join(out, "\n")
	}
	cases := []struct {
		name, doc, want string
	}{
		{"one space too deep", with(14, func(s string) string { return " " + s }),
			"p.yaml:14:10: invalid YAML: did not find expected key; this line does not line up with the keys of the mapping that starts at line 9 (check its indentation)"},
		{"one space too shallow", with(14, func(s string) string { return s[1:] }),
			"p.yaml:14:8: invalid YAML: did not find expected '-' indicator; this line does not line up with the list that starts at line 9 (check its indentation)"},
		{"a tab indents", with(7, func(s string) string { return "\t" + strings.TrimLeft(s, " ") }),
			"p.yaml:7:1: invalid YAML: tab character in the indentation; YAML indents with spaces"},
		{"a tab after spaces", with(10, func(s string) string { return "      \t  " + strings.TrimLeft(s, " ") }),
			"p.yaml:10:7: invalid YAML: tab character in the indentation; YAML indents with spaces"},
		{"a key under a value", with(8, func(s string) string { return "      switchMtu: 9216\n" + s }),
			"p.yaml:8:7: invalid YAML: mapping values are not allowed in this context (a key indented under a value, or ': ' inside an unquoted value: fix the indentation or quote the value)"},
		{"an unclosed flow list", with(11, func(s string) string { return strings.TrimSuffix(s, "]") }),
			"p.yaml:11:9: invalid YAML: did not find expected ',' or ']' before this line: a flow list above is missing a ',' or its closing bracket"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			errs, _ := check(t, "p.yaml", map[string]string{"p.yaml": c.doc})
			if diff := cmp.Diff([]string{c.want}, errs); diff != "" {
				t.Errorf("(-want +got):\n%s\n%s", diff, c.doc)
			}
		})
	}
}

// Beyond the search's budget, a parser error is put at the construct it
// broke (yaml.v3 counts that line from 0), and says so.
func TestYAMLErrorInALargeFile(t *testing.T) {
	lines := strings.Split(quietProfile, "\n")
	lines[13] = " " + lines[13]
	doc := "#" + strings.Repeat("x", yamlSearchLimit) + "\n" + strings.Join(lines, "\n")
	errs, _ := check(t, "p.yaml", map[string]string{"p.yaml": doc})
	want := []string{"p.yaml:10:7: invalid YAML: did not find expected key somewhere in the mapping that starts here (check the indentation of its lines)"}
	if diff := cmp.Diff(want, errs); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// The documents before a broken one in a stream are validated.
func TestDocumentsBeforeASyntaxErrorAreValidated(t *testing.T) {
	doc := edit(t, quietProfile, "mtu: 9000", "mtu: 100") + "---\n" + "kind: [\n"
	errs, _ := check(t, "p.yaml", map[string]string{"p.yaml": doc})
	want := []string{
		"p.yaml:7:10: spec.ethernet.mtu: 100 is outside 1280..9216",
		"p.yaml:26:1: invalid YAML: did not find expected node content",
	}
	if diff := cmp.Diff(want, errs); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// The examples under profiles/ are warning-free: what they show is what a
// careful fabric looks like.
func TestProfilesWarningFree(t *testing.T) {
	for _, file := range profileFiles(t) {
		_, ws, err := Check(file)
		if err != nil || len(ws) > 0 {
			t.Errorf("%s: %v %v", file, err, ws)
		}
	}
}
