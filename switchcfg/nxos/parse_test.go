package nxos

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

func readback(text string) switchcfg.Readback {
	return switchcfg.Readback{ReadbackRunningConfig: []byte(text)}
}

// asRunning turns rendered commands into what `show running-config` would
// show after them on a switch that had no QoS: the "no" resets vanish.
func asRunning(text string) switchcfg.Readback {
	var keep []string
	for _, l := range strings.Split(text, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "no ") {
			keep = append(keep, l)
		}
	}
	return readback(strings.Join(keep, "\n"))
}

func parseFile(t *testing.T, path string) fabric.SwitchIntent {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := New().Parse(readback(string(text)))
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestParseGolden(t *testing.T) {
	for _, name := range []string{"show-running-config-roce", "show-running-config-drift"} {
		t.Run(name, func(t *testing.T) {
			js, err := json.MarshalIndent(parseFile(t, filepath.Join("testdata", name+".txt")), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			testutil.Golden(t, "parse_"+name+".golden", append(js, '\n'))
		})
	}
}

// TestParseFixtureMeaning asserts by hand what the golden files hold.
func TestParseFixtureMeaning(t *testing.T) {
	got := parseFile(t, "testdata/show-running-config-roce.txt")
	want := carried(recipe())
	// Every Ethernet port, those without QoS too (issue 26).
	want.Ports = []string{"Ethernet1/1", "Ethernet1/2", "Ethernet1/3", "Ethernet1/49", "Ethernet1/50"}
	want.Classes[0].Name, want.Classes[1].Name, want.Classes[2].Name = "", "RoCE", "CNP" // default is class-default
	want.Classes[0].BandwidthPercent, want.Classes[1].BandwidthPercent = 40, 60
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("roce fixture (-want +got):\n%s", diff)
	}

	got = parseFile(t, "testdata/show-running-config-drift.txt")
	if !slices.Equal(got.Ports, []string{"Ethernet1/1", "Ethernet1/2", "Ethernet1/3", "Ethernet1/4", "Ethernet1/49", "Ethernet1/50"}) {
		t.Errorf("ports %v", got.Ports)
	}
	if got.MTU != 0 || len(got.PFC.Priorities) != 0 || got.Classes[1].Lossless {
		t.Errorf("MTU %d, PFC %v, lossless %v: want mixed MTU and PFC read as unset", got.MTU, got.PFC.Priorities, got.Classes[1].Lossless)
	}
	for _, c := range got.Classes {
		if c.Strict || c.BandwidthPercent != 0 || c.ECN != nil {
			t.Errorf("class %q has scheduling %v/%d/%v although Ethernet1/4 uses another queuing policy", c.Name, c.Strict, c.BandwidthPercent, c.ECN)
		}
	}
	if got.Trust != "dscp" || len(got.Classes) != 3 {
		t.Errorf("trust %q, %d classes", got.Trust, len(got.Classes))
	}
}

// TestParsePorts restricts the reading to the intent's ports: the drifted
// ports of the drift fixture stop counting, and a listed port without QoS
// makes every per-port setting read as missing.
func TestParsePorts(t *testing.T) {
	text, err := os.ReadFile("testdata/show-running-config-drift.txt")
	if err != nil {
		t.Fatal(err)
	}
	got, err := New().ParsePorts(readback(string(text)), []string{"Ethernet1/2", "Ethernet1/1"})
	if err != nil {
		t.Fatal(err)
	}
	want := carried(recipe())
	want.Ports = []string{"Ethernet1/1", "Ethernet1/2"}
	want.Classes[0].Name, want.Classes[1].Name, want.Classes[2].Name = "", "RoCE", "CNP"
	want.Classes[0].BandwidthPercent, want.Classes[1].BandwidthPercent = 40, 60
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParsePorts(Ethernet1/1, Ethernet1/2) (-want +got):\n%s", diff)
	}
	got, err = New().ParsePorts(readback(string(text)), []string{"Ethernet1/1", "Ethernet1/49"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Ports, []string{"Ethernet1/1"}) || got.MTU != 0 || len(got.PFC.Priorities) != 0 || len(got.Classes) != 0 {
		t.Errorf("with a port without QoS: %+v", got)
	}
}

// TestParseCorpus parses every NX-OS sample of the shared corpus into the
// intent checked by hand.
func TestParseCorpus(t *testing.T) {
	checks := map[string]func(t *testing.T, got fabric.SwitchIntent){
		"nxos-azurelocal-roce-qos.txt":               checkAzureLocal,
		"nxos-n9kv-show-running-config-baseline.txt": checkBaseline,
	}
	for _, f := range testutil.CorpusFiles(t, "switches", "nxos-*") {
		name := f.Name
		t.Run(name, func(t *testing.T) {
			check, ok := checks[name]
			if !ok {
				t.Fatalf("no hand-checked expectation for corpus sample %s", name)
			}
			got, err := New().Parse(readback(f.Text()))
			if err != nil {
				t.Fatal(err)
			}
			check(t, got)
			if cfg, err := New().Render(got); err == nil {
				again, err := New().Parse(asRunning(cfg.Text))
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(got, again); diff != "" {
					t.Errorf("parse→render→parse differs:\n%s", diff)
				}
			}
		})
	}
}

// checkAzureLocal: Microsoft's Azure Local storage policy classifies on CoS
// (RDMA = cos 3 → qos-group 3, CLUSTER = cos 7 → qos-group 7), pauses cos 3,
// marks ECN on queue 3 from 300 kbytes, gives the cluster heartbeat 1 %.
// Ethernet1/17 has PFC mode on (send-tlv) and MTU 9216.
func checkAzureLocal(t *testing.T, got fabric.SwitchIntent) {
	want := fabric.SwitchIntent{
		APIVersion: fabric.APIVersion, Platform: Platform,
		Ports: []string{"Ethernet1/17"}, MTU: 9216, Trust: "pcp",
		Classes: []fabric.SwitchClass{
			{Name: "RDMA", Priority: 3, TrafficClass: 3, Queue: 3, DSCP: []int{}, Lossless: true, BandwidthPercent: 50,
				ECN: &fabric.SwitchECN{MinBytes: 300000, MaxBytes: 300000, MaxMarkProbability: 100}},
			{Name: "CLUSTER", Priority: 7, TrafficClass: 7, Queue: 7, DSCP: []int{}, BandwidthPercent: 1},
		},
		PFC: fabric.SwitchPFC{Priorities: []int{3}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Azure Local sample (-want +got):\n%s", diff)
	}
	// Against the NVIDIA recipe the differences are real ones, not parse noise.
	diffs := switchcfg.Compare(recipe(), got)
	fields := map[string]bool{}
	for _, d := range diffs {
		fields[d.Field] = true
	}
	if !fields["trust"] || fields["mtu"] || fields["pfc.priorities"] {
		t.Errorf("Compare(recipe, azure) = %v", diffs)
	}
}

// checkBaseline: a Nexus 9000v without any QoS (header noise, echoed command,
// trailing prompt): no ports with QoS, no classes, no PFC — Compare then
// plans a full push. Its 128 Ethernet ports are ports without QoS.
func checkBaseline(t *testing.T, got fabric.SwitchIntent) {
	if len(got.Ports) != 128 || len(got.Classes) != 0 || len(got.PFC.Priorities) != 0 || got.PFC.Watchdog != nil || got.MTU != 0 || got.Trust != "" {
		t.Errorf("baseline parsed as %+v, want everything missing", got)
	}
	diffs := switchcfg.Compare(recipe(), got)
	missing := 0
	for _, d := range diffs {
		if d.Got == switchcfg.Missing {
			missing++
		}
	}
	if missing < 5 {
		t.Errorf("Compare(recipe, baseline) = %v, want a full push (every field missing)", diffs)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tt := range []struct{ text, want string }{
		{"class-map type qos match-any X\n  match dscp 26-70\n", "line 2"},
		{"class-map type qos match-any X\n  match cos 9\n", `"9"`},
		{"interface Ethernet1/1\n  mtu jumbo\n", "line 2"},
		{"priority-flow-control watch-dog interval fast\n", "line 1"},
	} {
		_, err := New().Parse(readback(tt.text))
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "parsing "+Platform) {
			t.Errorf("Parse(%q) = %v, want an error naming %s", tt.text, err, tt.want)
		}
	}
	if _, err := New().Parse(switchcfg.Readback{}); err == nil {
		t.Error("Parse of an empty read-back succeeded")
	}
}

func FuzzParse(f *testing.F) {
	for _, name := range []string{"show-running-config-roce.txt", "show-running-config-drift.txt"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	for _, build := range intents {
		cfg, err := New().Render(build())
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(asRunning(cfg.Text)[ReadbackRunningConfig]))
	}
	f.Fuzz(func(t *testing.T, text string) {
		d := New()
		got, err := d.Parse(readback(text))
		if err != nil {
			return
		}
		cfg, err := d.Render(got)
		if err != nil {
			return
		}
		again, err := d.Parse(asRunning(cfg.Text))
		if err != nil {
			t.Fatalf("rendered config does not parse: %v\n%s", err, cfg.Text)
		}
		got.Unparsed = nil // what was not read is not rendered back
		if diff := cmp.Diff(got, again); diff != "" {
			t.Fatalf("parse→render→parse differs:\n%s\n%s", diff, cfg.Text)
		}
	})
}

// TestParsePFCModeAuto: `priority-flow-control mode auto` (NX-OS's default,
// PFC on the no-drop classes by DCBX) is PFC on, not off (issue 14).
func TestParsePFCModeAuto(t *testing.T) {
	cfg, err := New().Render(recipe())
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(asRunning(cfg.Text)[ReadbackRunningConfig]), "priority-flow-control mode on", "priority-flow-control mode auto")
	got, err := New().Parse(readback(text))
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got.PFC.Priorities) != "[3]" || !got.Classes[1].Lossless {
		t.Errorf("mode auto read as PFC %v, classes %+v", got.PFC.Priorities, got.Classes)
	}
}
