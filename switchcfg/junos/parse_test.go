package junos

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/testutil"
	"github.com/fabricctl/fabricctl/switchcfg"
	"github.com/google/go-cmp/cmp"
)

// curlyReadback reads the curly-brace fixtures prefix-cos.txt and
// prefix-interfaces.txt, as `show configuration class-of-service` and
// `show configuration interfaces` print them.
func curlyReadback(t testing.TB, cos, ifs string) switchcfg.Readback {
	t.Helper()
	rb := switchcfg.Readback{}
	for cmd, name := range map[string]string{"show configuration class-of-service": cos, "show configuration interfaces": ifs} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		rb[cmd] = b
	}
	return rb
}

var fixtures = map[string][2]string{
	"roce":  {"show-configuration-class-of-service.txt", "show-configuration-interfaces.txt"},
	"drift": {"drift-class-of-service.txt", "drift-interfaces.txt"},
}

func TestParseGolden(t *testing.T) {
	for name, files := range fixtures {
		t.Run(name, func(t *testing.T) {
			got, err := New().Parse(curlyReadback(t, files[0], files[1]))
			if err != nil {
				t.Fatal(err)
			}
			js, err := json.MarshalIndent(got, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			testutil.Golden(t, "parse_"+name+".golden", append(js, '\n'))
		})
	}
}

// TestParseFixtureMeaning asserts by hand what the golden files hold: the
// et-0/0/* wildcard covers every et port of the interfaces hierarchy except
// the channelized parent et-0/0/2; af31 and ef are DSCP aliases; the
// inactive drop profile is ignored.
func TestParseFixtureMeaning(t *testing.T) {
	got, err := New().Parse(curlyReadback(t, fixtures["roce"][0], fixtures["roce"][1]))
	if err != nil {
		t.Fatal(err)
	}
	want := carried(recipe())
	want.Ports = []string{"et-0/0/0", "et-0/0/1", "et-0/0/2:0", "et-0/0/2:1", "et-0/0/31"}
	want.Classes[0].Name, want.Classes[1].Name, want.Classes[2].Name = "BEST-EFFORT", "ROCE", "CNP"
	want.Classes[0].BandwidthPercent, want.Classes[1].BandwidthPercent = 40, 60
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("roce fixture (-want +got):\n%s", diff)
	}

	got, err = New().Parse(curlyReadback(t, fixtures["drift"][0], fixtures["drift"][1]))
	if err != nil {
		t.Fatal(err)
	}
	if got.MTU != 0 {
		t.Errorf("MTU %d, want 0 (et-0/0/1 has 1514)", got.MTU)
	}
	for _, c := range got.Classes {
		if c.Strict || c.BandwidthPercent != 0 || c.ECN != nil {
			t.Errorf("class %s keeps scheduling %v/%d/%v although et-0/0/31 uses another scheduler map", c.Name, c.Strict, c.BandwidthPercent, c.ECN)
		}
	}
	if !slices.Equal(got.PFC.Priorities, []int{3}) {
		t.Errorf("PFC %v", got.PFC.Priorities)
	}
}

// TestParsePorts restricts the reading to the intent's ports: et-0/0/31
// with its own scheduler map stops counting, and a listed port without
// bindings makes them read as missing.
func TestParsePorts(t *testing.T) {
	rb := curlyReadback(t, fixtures["drift"][0], fixtures["drift"][1])
	got, err := New().ParsePorts(rb, []string{"et-0/0/2:0", "et-0/0/0"})
	if err != nil {
		t.Fatal(err)
	}
	want := carried(recipe())
	want.Ports = []string{"et-0/0/0", "et-0/0/2:0"}
	want.Classes[0].Name, want.Classes[1].Name, want.Classes[2].Name = "BEST-EFFORT", "ROCE", "CNP"
	want.Classes[0].BandwidthPercent, want.Classes[1].BandwidthPercent = 40, 60
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParsePorts(et-0/0/0, et-0/0/2:0) (-want +got):\n%s", diff)
	}
	got, err = New().ParsePorts(rb, []string{"et-0/0/0", "xe-0/0/1"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Ports, []string{"et-0/0/0"}) || got.Trust != "" || len(got.Classes) != 0 || got.MTU != 0 {
		t.Errorf("with a port without bindings: %+v", got)
	}
}

// TestParseSetAndCurlyAgree parses the display-set form of a rendered
// configuration and its curly form (as the simulator or a switch prints
// either) to the same intent.
func TestParseSetAndCurlyAgree(t *testing.T) {
	cfg, err := New().Render(recipe())
	if err != nil {
		t.Fatal(err)
	}
	fromSet, err := New().Parse(setReadback(cfg.Text))
	if err != nil {
		t.Fatal(err)
	}
	curly := `classifiers {
    dscp FABRICCTL-CLASSIFIER {
        forwarding-class default {
            loss-priority low code-points [ ` + strings.Join(dscpBits(recipe().Classes[0].DSCP), " ") + ` ];
        }
        forwarding-class roce {
            loss-priority low code-points 011010;
        }
        forwarding-class cnp {
            loss-priority low code-points 110000;
        }
    }
}
drop-profiles {
    roce-dp {
        interpolate {
            fill-level [ 1 5 ];
            drop-probability [ 0 100 ];
        }
    }
}
forwarding-classes {
    class default queue-num 0;
    class roce queue-num 3 no-loss pfc-priority 3;
    class cnp queue-num 6;
}
congestion-notification-profile {
    FABRICCTL-CNP {
        input {
            dscp {
                code-point 011010 {
                    pfc;
                }
            }
        }
        output {
            ieee-802.1 {
                code-point 011 {
                    flow-control-queue 3;
                }
            }
        }
        pfc-watchdog {
            poll-interval 100;
            detection 2;
            recovery 400;
            watchdog-action drop;
        }
    }
}
interfaces {
    et-0/0/0 {
        congestion-notification-profile FABRICCTL-CNP;
        scheduler-map FABRICCTL-SCHEDULER-MAP;
        unit * {
            classifiers {
                dscp FABRICCTL-CLASSIFIER;
            }
        }
    }
    et-0/0/1 {
        congestion-notification-profile FABRICCTL-CNP;
        scheduler-map FABRICCTL-SCHEDULER-MAP;
        unit * {
            classifiers {
                dscp FABRICCTL-CLASSIFIER;
            }
        }
    }
    et-0/0/12:1 {
        congestion-notification-profile FABRICCTL-CNP;
        scheduler-map FABRICCTL-SCHEDULER-MAP;
        unit * {
            classifiers {
                dscp FABRICCTL-CLASSIFIER;
            }
        }
    }
}
scheduler-maps {
    FABRICCTL-SCHEDULER-MAP {
        forwarding-class default scheduler default-sched;
        forwarding-class roce scheduler roce-sched;
        forwarding-class cnp scheduler cnp-sched;
    }
}
schedulers {
    default-sched {
        transmit-rate percent 50;
    }
    roce-sched {
        transmit-rate percent 50;
        drop-profile-map loss-priority any protocol any drop-profile roce-dp;
        explicit-congestion-notification;
    }
    cnp-sched {
        priority strict-high;
    }
}
`
	fromCurly, err := New().Parse(switchcfg.Readback{
		"show configuration class-of-service": []byte(curly),
		ReadbackInterfaces:                    setReadback(cfg.Text)[ReadbackInterfaces],
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(fromSet, fromCurly); diff != "" {
		t.Errorf("set vs curly (-set +curly):\n%s", diff)
	}
}

func dscpBits(v []int) []string {
	var out []string
	for _, d := range v {
		out = append(out, bits(d, 6))
	}
	return out
}

// TestParseCorpus parses every Junos sample of the shared corpus into the
// intent checked by hand.
func TestParseCorpus(t *testing.T) {
	checks := map[string]struct {
		cmd   string // the command that printed the sample
		model string // the switch's model, from the sample's header
		check func(t *testing.T, got fabric.SwitchIntent)
	}{
		"junos-jvd-aiml-leaf-qfx5240-full-config.txt": {"show configuration", "qfx5240-64od", checkAIML},
		"junos-jvd-storage-leaf-qfx5130-cos.txt":      {"show configuration class-of-service", "qfx5130-32cd", checkStorage},
	}
	for _, f := range testutil.CorpusFiles(t, "switches", "junos-*") {
		name := f.Name
		t.Run(name, func(t *testing.T) {
			c, ok := checks[name]
			if !ok {
				t.Fatalf("no hand-checked expectation for corpus sample %s", name)
			}
			sw := fabric.SwitchIntent{Model: c.model}
			got, err := New().ParseIntent(switchcfg.Readback{c.cmd: f.Body}, sw)
			if err != nil {
				t.Fatal(err)
			}
			c.check(t, got)
			got.Model = c.model
			if cfg, err := New().Render(got); err == nil {
				again, err := New().ParseIntent(setReadback(cfg.Text), sw)
				again.Model = c.model
				if err != nil {
					t.Fatal(err)
				}
				// What the reader did not understand is not rendered back.
				got.Unparsed = nil
				if diff := cmp.Diff(got, again); diff != "" {
					t.Errorf("parse→render→parse differs:\n%s", diff)
				}
			} else {
				t.Logf("not renderable back: %v", err)
			}
		})
	}
}

// checkAIML: Juniper's AI/ML leaf (full `show configuration`). The et-*
// wildcard binds classifier mydscp, CNP profile cnp and scheduler map sm1 to
// every et port that is not a channelized parent. NO-LOSS (DSCP 26) is
// no-loss with pfc-priority 3 on queue 4, ECN at fill levels 55–90 %; CNP
// (DSCP 48) is on queue 3, strict-high with 5 %, and — lossy, with DSCP
// trust, so Junos carries no priority for it — reads as priority 6, its
// DSCP's class selector, not as its queue 3, which would collide with
// NO-LOSS's pfc-priority 3 (issue 14). Fill levels are percents of the
// QFX5240's 165 MB. The watchdog is on with Junos's defaults (no times
// configured, action drop).
func checkAIML(t *testing.T, got fabric.SwitchIntent) {
	if got.Trust != "dscp" || !slices.Equal(got.PFC.Priorities, []int{3}) {
		t.Errorf("trust %q, PFC %v", got.Trust, got.PFC.Priorities)
	}
	for _, p := range []string{"et-0/0/0:0", "et-0/0/12:1", "et-0/0/2", "et-0/0/11"} {
		if !slices.Contains(got.Ports, p) {
			t.Errorf("port %s missing from %v", p, got.Ports)
		}
	}
	for _, p := range []string{"et-0/0/0", "et-0/0/12", "lo0"} {
		if slices.Contains(got.Ports, p) {
			t.Errorf("port %s (channelized parent or not a port) in %v", p, got.Ports)
		}
	}
	if got.MTU != 0 {
		t.Errorf("MTU %d, want 0: breakout ports set 9216, et-0/0/2 and others none", got.MTU)
	}
	want := []fabric.SwitchClass{
		{Name: "NO-LOSS", Priority: 3, TrafficClass: 3, Queue: 4, DSCP: []int{26}, Lossless: true,
			ECN: &fabric.SwitchECN{MinBytes: 55 * 1_650_000, MaxBytes: 90 * 1_650_000, MaxMarkProbability: 100}},
		{Name: "CNP", Priority: 6, TrafficClass: 6, Queue: 3, DSCP: []int{48}, Strict: true, BandwidthPercent: 5},
	}
	if diff := cmp.Diff(want, got.Classes); diff != "" {
		t.Errorf("classes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(&fabric.SwitchPFCWatchdog{Enabled: true, Action: "drop"}, got.PFC.Watchdog); diff != "" {
		t.Errorf("watchdog (-want +got):\n%s", diff)
	}
}

// checkStorage: Juniper's storage leaf CoS stanza. Three ports share
// classifier and scheduler map; the CNP profile (output only) is on
// et-0/0/2 alone, so there is no PFC. Eight forwarding classes exist, five
// are classified; lossy ones read as their lowest DSCP's class selector
// where that is free (fc0: AF11 → 1, fc1: 0), else as their queue (fc5,
// fc6, fc7). Fill levels are percents of the QFX5130's 132 MB.
func checkStorage(t *testing.T, got fabric.SwitchIntent) {
	if !slices.Equal(got.Ports, []string{"et-0/0/0", "et-0/0/1", "et-0/0/2"}) || got.Trust != "dscp" || got.MTU != 0 {
		t.Errorf("ports %v trust %q MTU %d", got.Ports, got.Trust, got.MTU)
	}
	if len(got.PFC.Priorities) != 0 || got.PFC.Watchdog != nil {
		t.Errorf("PFC %v watchdog %v, want none", got.PFC.Priorities, got.PFC.Watchdog)
	}
	var names []string
	prios := map[string]int{}
	for _, c := range got.Classes {
		names = append(names, c.Name)
		prios[c.Name] = c.Priority
		if c.TrafficClass != c.Priority || c.Lossless {
			t.Errorf("class %+v", c)
		}
	}
	if !slices.Equal(names, []string{"fc1", "fc0", "fc5", "fc6", "fc7"}) {
		t.Fatalf("classes %v", names)
	}
	if fmt.Sprint(prios) != "map[fc0:1 fc1:0 fc5:5 fc6:6 fc7:7]" {
		t.Errorf("priorities %v", prios)
	}
	byName := map[string]fabric.SwitchClass{}
	for _, c := range got.Classes {
		byName[c.Name] = c
	}
	fc := func(i int) fabric.SwitchClass { return byName[[]string{"fc0", "fc1", "fc5", "fc6", "fc7"}[i]] }
	if !slices.Equal(fc(0).DSCP, []int{10}) || !slices.Equal(fc(2).DSCP, []int{8, 26}) || !slices.Equal(fc(3).DSCP, []int{46, 56}) || !slices.Equal(fc(4).DSCP, []int{48}) {
		t.Errorf("dscp %v %v %v %v", fc(0).DSCP, fc(2).DSCP, fc(3).DSCP, fc(4).DSCP)
	}
	if n := len(fc(1).DSCP); n != 58 {
		t.Errorf("fc1 has %d DSCPs, want the 58 others", n)
	}
	if diff := cmp.Diff(&fabric.SwitchECN{MinBytes: 0, MaxBytes: 20 * 1_320_000, MaxMarkProbability: 100}, fc(0).ECN); diff != "" {
		t.Errorf("fc0 ECN (dp0 fill 0–20 %%):\n%s", diff)
	}
	if diff := cmp.Diff(&fabric.SwitchECN{MinBytes: 1_320_000, MaxBytes: 2 * 1_320_000, MaxMarkProbability: 100}, fc(2).ECN); diff != "" {
		t.Errorf("fc5 ECN (dp1 fill 1–2 %%):\n%s", diff)
	}
	if fc(0).BandwidthPercent != 49 || fc(1).BandwidthPercent != 2 || fc(1).ECN != nil || !fc(3).Strict || !fc(4).Strict || fc(0).Strict {
		t.Errorf("scheduling %+v", got.Classes)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tt := range []struct{ text, want string }{
		{"forwarding-classes {\n    class X queue-num 99;\n}\n", "line 2"},
		{"classifiers {\n    dscp C {\n        forwarding-class X {\n            loss-priority low code-points 0110;\n", "unterminated"},
		{"classifiers { dscp C { forwarding-class X { loss-priority low code-points 01101x; } } }\n", "01101x"},
		{"}\n", "unexpected }"},
		{"set class-of-service drop-profiles d interpolate fill-level 120\n", `"120"`},
		{"description \"open\n", "quoted"},
	} {
		_, err := New().Parse(switchcfg.Readback{"show configuration class-of-service": []byte(tt.text)})
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "parsing "+Platform) {
			t.Errorf("Parse(%q) = %v, want an error naming %s", tt.text, err, tt.want)
		}
	}
	if _, err := New().Parse(switchcfg.Readback{ReadbackInterfaces: []byte("set interfaces et-0/0/0 mtu 9216")}); err == nil {
		t.Error("Parse without the class-of-service read-back succeeded")
	}
}

func TestParseEmpty(t *testing.T) {
	got, err := New().Parse(switchcfg.Readback{ReadbackClassOfService: nil, ReadbackInterfaces: []byte("set interfaces et-0/0/0 mtu 9216\n")})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Classes) != 0 || len(got.Ports) != 0 || len(got.PFC.Priorities) != 0 || got.Trust != "" {
		t.Errorf("empty class-of-service parsed as %+v", got)
	}
}

func FuzzParse(f *testing.F) {
	for _, files := range fixtures {
		f.Add(string(curlyReadback(f, files[0], files[1])["show configuration class-of-service"]), false)
	}
	for _, build := range intents {
		cfg, err := New().Render(build())
		if err != nil {
			f.Fatal(err)
		}
		f.Add(cfg.Text, true)
	}
	f.Fuzz(func(t *testing.T, text string, set bool) {
		d := New()
		cmd := "show configuration class-of-service"
		if set {
			cmd = ReadbackClassOfService
		}
		got, err := d.Parse(switchcfg.Readback{cmd: []byte(text)})
		if err != nil {
			return
		}
		cfg, err := d.Render(got)
		if err != nil {
			return
		}
		again, err := d.Parse(setReadback(cfg.Text))
		if err != nil {
			t.Fatalf("rendered config does not parse: %v\n%s", err, cfg.Text)
		}
		got.Unparsed = nil // what the reader did not understand is not rendered back
		if diff := cmp.Diff(got, again); diff != "" {
			t.Fatalf("parse→render→parse differs:\n%s\n%s", diff, cfg.Text)
		}
	})
}

// TestInterfacesAll (issue 26, item 4): `class-of-service interfaces all`
// applies to every interface (Junos CoS guide: the "all" interface
// entry; an interface's own entry overrides it), so every port of the
// interfaces hierarchy is a QoS port. Statements of a port entry and
// class-of-service sections the reader does not take are listed.
func TestInterfacesAll(t *testing.T) {
	data, err := os.ReadFile("testdata/interfaces-all.set")
	if err != nil {
		t.Fatal(err)
	}
	si, err := New().Parse(switchcfg.Readback{"show configuration": data})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(si.Ports) != "[et-0/0/0 et-0/0/1]" || si.MTU != 9216 || fmt.Sprint(si.PFC.Priorities) != "[3]" {
		t.Errorf("ports %v mtu %d pfc %v", si.Ports, si.MTU, si.PFC.Priorities)
	}
	var got []string
	for _, u := range si.Unparsed {
		got = append(got, fmt.Sprintf("%d:%s", u.Line, u.Text))
	}
	want := "[9:set class-of-service interfaces et-0/0/1 shaping-rate 10g 10:set class-of-service host-outbound-traffic forwarding-class best-effort]"
	if fmt.Sprint(got) != want {
		t.Errorf("unparsed\n got %v\nwant %s", got, want)
	}
}

// TestCodePointAliases: a classifier may name a user-defined alias
// (class-of-service code-point-aliases dscp NAME BITS), defined before or
// after it.
func TestCodePointAliases(t *testing.T) {
	cfg := `set class-of-service forwarding-classes class roce queue-num 3 no-loss pfc-priority 3
set class-of-service classifiers dscp CL forwarding-class roce loss-priority low code-points ROCE
set class-of-service code-point-aliases dscp ROCE 011010
set class-of-service interfaces et-0/0/0 unit 0 classifiers dscp CL
`
	si, err := New().Parse(switchcfg.Readback{ReadbackClassOfService: []byte(cfg)})
	if err != nil {
		t.Fatal(err)
	}
	if len(si.Classes) != 1 || fmt.Sprint(si.Classes[0].DSCP) != "[26]" {
		t.Errorf("classes %+v", si.Classes)
	}
}

// TestGroupsListed: configuration groups reach interfaces and
// class-of-service through apply-groups, which the reader does not expand;
// their statements are listed, not dropped in silence.
func TestGroupsListed(t *testing.T) {
	cfg := "set groups MTU interfaces <et-*> mtu 9300\nset apply-groups MTU\nset interfaces et-0/0/0 unit 0 family inet\n" +
		"set class-of-service interfaces et-0/0/0 scheduler-map SM\n"
	si, err := New().Parse(switchcfg.Readback{"show configuration": []byte(cfg)})
	if err != nil {
		t.Fatal(err)
	}
	if len(si.Unparsed) != 1 || si.Unparsed[0].Line != 1 {
		t.Errorf("unparsed %+v", si.Unparsed)
	}
}

// TestInterfaceRange (issue 26, item 4): an interface-range names its
// members (member, member-range A to B) and carries their settings; a
// class-of-service interfaces entry naming the range applies to them.
func TestInterfaceRange(t *testing.T) {
	cfg := `set interfaces interface-range RDMA member et-0/0/0
set interfaces interface-range RDMA member-range et-0/0/2 to et-0/0/3
set interfaces interface-range RDMA mtu 9216
set interfaces et-0/0/9 mtu 1500
set class-of-service forwarding-classes class roce queue-num 3 no-loss pfc-priority 3
set class-of-service classifiers dscp CL forwarding-class roce loss-priority low code-points 011010
set class-of-service congestion-notification-profile CNP input dscp code-point 011010 pfc
set class-of-service interfaces RDMA congestion-notification-profile CNP
set class-of-service interfaces RDMA unit 0 classifiers dscp CL
`
	si, err := switchcfg.ParseFor(New(), switchcfg.Readback{"show configuration": []byte(cfg)}, fabric.SwitchIntent{})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(si.Ports) != "[et-0/0/0 et-0/0/2 et-0/0/3]" || si.MTU != 9216 || fmt.Sprint(si.PFC.Priorities) != "[3]" || len(si.Unparsed) > 0 {
		t.Errorf("ports %v mtu %d pfc %v unparsed %+v", si.Ports, si.MTU, si.PFC.Priorities, si.Unparsed)
	}
}
