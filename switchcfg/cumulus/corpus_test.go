package cumulus

import (
	"reflect"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/testutil"
	"github.com/fabricctl/fabricctl/switchcfg"
)

func commandsIntent(t *testing.T, text ...string) fabric.SwitchIntent {
	t.Helper()
	tr, err := ParseCommands(strings.Join(text, "\n"))
	if err != nil {
		t.Fatal(err)
	}
	si, err := ParseTree(tr)
	if err != nil {
		t.Fatal(err)
	}
	return si
}

func TestCorpusNVUERoCE(t *testing.T) {
	b := testutil.CorpusFile(t, "switches", "cumulus-nvue-roce.txt")
	recipe := recipeIntent("lossless")

	t.Run("nv set qos roce is the lossless recipe", func(t *testing.T) {
		si := commandsIntent(t, b.Block(t, "enable RoCE lossless"))
		if diffs := switchcfg.Compare(recipe, si); len(diffs) != 0 {
			t.Fatal(diffs)
		}
		roce := classByPrio(t, si, 3)
		if !roce.Lossless || roce.TrafficClass != 3 || roce.ECN == nil || roce.ECN.MinBytes != 150000 || roce.ECN.MaxBytes != 1500000 {
			t.Errorf("RoCE class %+v", roce)
		}
		if cnp := classByPrio(t, si, 6); !cnp.Strict || cnp.TrafficClass != 6 {
			t.Errorf("CNP class %+v", cnp)
		}
	})
	t.Run("lossy has no PFC", func(t *testing.T) {
		si := commandsIntent(t, b.Block(t, "enable RoCE lossy"))
		if len(si.PFC.Priorities) != 0 || classByPrio(t, si, 3).ECN == nil {
			t.Errorf("pfc %v", si.PFC.Priorities)
		}
	})
	t.Run("single ipool is lossless", func(t *testing.T) {
		si := commandsIntent(t, b.Block(t, "single shared buffer pool"))
		if !equalInts(si.PFC.Priorities, []int{3}) {
			t.Errorf("pfc %v", si.PFC.Priorities)
		}
	})
	t.Run("unset returns to the defaults", func(t *testing.T) {
		si := commandsIntent(t, b.Block(t, "enable RoCE lossless"), b.Block(t, "remove RoCE"))
		if si.Trust != "pcp" || len(si.PFC.Priorities) != 0 || len(si.Classes) != 8 || classByPrio(t, si, 5).TrafficClass != 5 {
			t.Errorf("defaults %+v", si)
		}
	})
	t.Run("nv show qos roce matches the recipe within tolerance", func(t *testing.T) {
		si, err := ParseShowRoCE(b.Block(t, "nv show qos roce"))
		if err != nil {
			t.Fatal(err)
		}
		// Display: 146.48 KB, 1.43 MB, cable-length 100, trust pcp,dscp, enabled-tc 0,3.
		roce := classByPrio(t, si, 3)
		if roce.ECN.MinBytes != 149996 || roce.ECN.MaxBytes != 1499464 || si.PFC.CableLengthMeters != 100 || si.Trust != "dscp" {
			t.Errorf("RoCE class %+v cable %d trust %s", roce, si.PFC.CableLengthMeters, si.Trust)
		}
		if c := classByPrio(t, si, 0); c.ECN == nil || c.BandwidthPercent != 50 {
			t.Errorf("TC0 marks and has 50%%: %+v", c)
		}
		if diffs := switchcfg.Compare(recipe, si); len(diffs) != 0 {
			t.Fatal(diffs)
		}
	})
	t.Run("port status shows Spectrum's programmed threshold", func(t *testing.T) {
		si, err := ParseShowRoCE(b.Block(t, "nv show interface swp16 qos roce status"))
		if err != nil {
			t.Fatal(err)
		}
		// 153.00 KB = 156672 B: what the ASIC holds for 150000 B.
		if got := classByPrio(t, si, 3).ECN.MinBytes; got != 156672 {
			t.Errorf("min threshold %d", got)
		}
		if diffs := switchcfg.Compare(recipe, si); len(diffs) != 0 {
			t.Fatal(diffs)
		}
		exact := switchcfg.CompareOptions{QuantumBytes: 1, RelativeTolerance: 1e-9}.Compare(recipe, si)
		if len(exact) == 0 {
			t.Fatal("without tolerance the rounding must show")
		}
	})
	t.Run("remap switch priority 4 to RoCE lossy", func(t *testing.T) {
		si := commandsIntent(t, b.Block(t, "enable RoCE lossless"), b.Block(t, "remap switch priority 4 to RoCE lossy"))
		sp4, sp3 := classByPrio(t, si, 4), classByPrio(t, si, 3)
		if sp4.TrafficClass != 3 || !strings.Contains(","+switchcfg.FormatIntSet(sp4.DSCP)+",", ",26,") || sp3.TrafficClass != 0 {
			t.Errorf("sp4 %+v sp3 %+v", sp4, sp3)
		}
	})
	t.Run("move RoCE lossless from 3 to 2", func(t *testing.T) {
		si := commandsIntent(t, b.Block(t, "enable RoCE lossless"), b.Block(t, "change RoCE lossless switch priority 3 -> 2"))
		sp2 := classByPrio(t, si, 2)
		if !equalInts(si.PFC.Priorities, []int{2}) || !sp2.Lossless || sp2.TrafficClass != 3 || sp2.ECN == nil ||
			switchcfg.FormatIntSet(sp2.DSCP) != "16-23,26" || classByPrio(t, si, 3).TrafficClass != 0 {
			t.Errorf("intent %+v", si)
		}
	})
}

func TestCorpusNVUEPFCECNWatchdog(t *testing.T) {
	b := testutil.CorpusFile(t, "switches", "cumulus-nvue-pfc-ecn-pfcwd.txt")
	t.Run("PFC via NVUE and via qos_features.conf agree", func(t *testing.T) {
		// The NVUE block alone gives PFC no lossless buffer pool: the page
		// says to configure one first ("Flow Control Buffers"), with the
		// 50/50 split fabricctl renders; the switch priority is then lossless.
		nvue := b.Block(t, "PFC (NVUE)")
		if si := commandsIntent(t, nvue); !equalInts(si.PFC.Priorities, []int{0}) || classByPrio(t, si, 0).Lossless {
			t.Errorf("PFC without a lossless pool read as lossless: %+v", si.PFC)
		}
		pools := "nv set qos traffic-pool default-lossless memory-percent 50\nnv set qos traffic-pool default-lossy memory-percent 50\n"
		viaNVUE := commandsIntent(t, pools+nvue)
		viaConf, err := ParseQoSFeatures(b.Block(t, "PFC (qos_features.conf equivalent)"))
		if err != nil {
			t.Fatal(err)
		}
		for _, si := range []fabric.SwitchIntent{viaNVUE, viaConf} {
			if !equalInts(si.PFC.Priorities, []int{0}) || si.PFC.CableLengthMeters != 50 || !classByPrio(t, si, 0).Lossless {
				t.Errorf("pfc %+v", si.PFC)
			}
		}
		if diffs := (switchcfg.CompareOptions{Ports: true}).Compare(viaNVUE, viaConf); len(diffs) != 0 {
			t.Errorf("the two forms differ: %v", diffs)
		}
	})
	t.Run("watchdog on swp1 and swp3", func(t *testing.T) {
		si := commandsIntent(t, b.Block(t, "PFC watchdog (NVUE)"))
		if wd := si.PFC.Watchdog; !wd.Enabled || wd.PollIntervalMs != 100 || wd.DetectionTimeMs != 300 || strings.Join(si.Ports, ",") != "swp1,swp3" {
			t.Errorf("watchdog %+v ports %v", wd, si.Ports)
		}
	})
	t.Run("watchdog port group", func(t *testing.T) {
		si, err := ParseQoSFeatures(b.Block(t, "PFC watchdog (qos_features.conf equivalent)"))
		if err != nil {
			t.Fatal(err)
		}
		if !si.PFC.Watchdog.Enabled || strings.Join(si.Ports, ",") != "swp1,swp2" {
			t.Errorf("watchdog %+v ports %v", si.PFC.Watchdog, si.Ports)
		}
	})
	t.Run("watchdog timers", func(t *testing.T) {
		si := commandsIntent(t, b.Block(t, "PFC watchdog timers (NVUE)"))
		if wd := si.PFC.Watchdog; wd.Enabled || wd.PollIntervalMs != 200 || wd.DetectionTimeMs != 1000 {
			t.Errorf("watchdog %+v", wd)
		}
	})
	t.Run("ECN on TC 4,5,7 then off on TC0", func(t *testing.T) {
		si := commandsIntent(t, b.Block(t, "ECN (NVUE)"))
		for _, p := range []int{4, 5, 7} {
			if e := classByPrio(t, si, p).ECN; e == nil || *e != (fabric.SwitchECN{MinBytes: 40000, MaxBytes: 200000, MaxMarkProbability: 100}) {
				t.Errorf("priority %d ECN %+v", p, e)
			}
		}
		if classByPrio(t, si, 6).ECN != nil || classByPrio(t, si, 0).ECN == nil {
			t.Error("TC6 does not mark; TC0 marks by default")
		}
		si = commandsIntent(t, b.Block(t, "ECN (NVUE)"), b.Block(t, "ECN disable on TC0 (NVUE)"))
		if classByPrio(t, si, 0).ECN != nil {
			t.Error("TC0 ECN disabled")
		}
	})
}

func TestCorpusNVUEConfigDocuments(t *testing.T) {
	b := testutil.CorpusFile(t, "switches", "cumulus-nvue-config-diff-yaml-json.txt")
	yamlBody := func(block string) []byte {
		// Drop the prompt line; the rest is the command's output.
		_, out, _ := strings.Cut(block, "\n")
		return []byte(out)
	}
	t.Run("unset document on an empty tree", func(t *testing.T) {
		tr, err := DecodeConfig(yamlBody(b.Block(t, "nv config diff 2 3 (id 14975651820)")))
		if err != nil {
			t.Fatal(err)
		}
		if len(tr) != 0 {
			t.Errorf("tree %v", tr)
		}
	})
	t.Run("set document in YAML", func(t *testing.T) {
		tr, err := DecodeConfig(yamlBody(b.Block(t, "nv config find stp (id 3489819957)")))
		if err != nil {
			t.Fatal(err)
		}
		vlan := tr.node("bridge", "domain", "br_default", "stp", "vlan", "20")
		if text(vlan["bridge-priority"]) != "61440" || text(tr.node("bridge", "domain", "br_default", "stp")["mode"]) != "pvrst" {
			t.Errorf("stp %v", tr.node("bridge", "domain", "br_default", "stp"))
		}
		si, err := ParseTree(tr)
		if err != nil || len(si.Classes) != 8 || si.Trust != "pcp" {
			t.Errorf("no QoS: platform defaults, got %+v, %v", si, err)
		}
	})
	t.Run("JSON diff equals the commands that made it", func(t *testing.T) {
		body := b.Block(t, "pending changes as JSON (id 3505245647)")
		jsonText := body[strings.Index(body, "\n[")+1:]
		fromJSON, err := DecodeConfig([]byte(jsonText))
		if err != nil {
			t.Fatal(err)
		}
		fromCmds, err := ParseCommands(body)
		if err != nil {
			t.Fatal(err)
		}
		if text(fromJSON.node("system")["hostname"]) != "switch01" || fromJSON.node("interface", "lo", "ip", "address", "99.99.99.99/32") == nil {
			t.Errorf("json tree %v", fromJSON)
		}
		for _, path := range [][]string{{"interface", "lo"}, {"interface", "bond0", "bond"}, {"system"}} {
			j, c := fromJSON.node(path...), fromCmds.node(path...)
			if j == nil || !reflect.DeepEqual(j, c) {
				t.Errorf("%v: JSON %v, commands %v", path, j, c)
			}
		}
	})
}

func TestCorpusLegacyTrafficConf(t *testing.T) {
	b := testutil.CorpusFile(t, "switches", "cumulus-legacy-traffic-conf-roce-nclu.txt")
	si, err := ParseQoSFeatures(b.Block(t, "resulting traffic.conf"))
	if err != nil {
		t.Fatal(err)
	}
	// NCLU storage-optimized pfc: PFC on cos 1, ECN 150000-1500000 on cos 0 and 1, on swp1.
	if !equalInts(si.PFC.Priorities, []int{1}) || strings.Join(si.Ports, ",") != "swp1" || si.Trust != "pcp" {
		t.Fatalf("intent %+v", si)
	}
	for _, p := range []int{0, 1} {
		if e := classByPrio(t, si, p).ECN; e == nil || *e != (fabric.SwitchECN{MinBytes: 150000, MaxBytes: 1500000, MaxMarkProbability: 100}) {
			t.Errorf("priority %d ECN %+v", p, e)
		}
	}
	if classByPrio(t, si, 2).ECN != nil {
		t.Error("cos 2 does not mark")
	}
}

func TestCorpusQoSFeaturesDefault(t *testing.T) {
	b := testutil.CorpusFile(t, "switches", "cumulus-qos_features-default.txt")
	si, err := ParseQoSFeatures(b.Blocks()[""])
	if err != nil {
		t.Fatal(err)
	}
	// Shipped defaults: 802.1p trust, no PFC, ECN on TC0 only, DWRR 12/13 %.
	if si.Trust != "pcp" || len(si.PFC.Priorities) != 0 || len(si.Classes) != 8 || (si.PFC.Watchdog != nil && si.PFC.Watchdog.Enabled) {
		t.Fatalf("intent %+v", si)
	}
	if e := classByPrio(t, si, 0).ECN; e == nil || e.MinBytes != 150000 || e.MaxBytes != 1500000 {
		t.Errorf("TC0 ECN %+v", e)
	}
	for p, bw := range []int{12, 13, 12, 13, 12, 13, 12, 13} {
		if c := classByPrio(t, si, p); c.BandwidthPercent != bw || (p > 0 && c.ECN != nil) {
			t.Errorf("priority %d: %+v", p, c)
		}
	}
	// The defaults file agrees with the model's built-in defaults.
	if diffs := switchcfg.Compare(newModel().intent(), si); len(diffs) != 0 {
		t.Errorf("built-in defaults differ from the shipped file: %v", diffs)
	}
}
