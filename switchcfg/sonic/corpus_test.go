package sonic

import (
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/testutil"
	"github.com/fabricctl/fabricctl/switchcfg"
)

func corpusDB(t *testing.T, file string) ConfigDB {
	t.Helper()
	db, err := DecodeConfigDB(testutil.CorpusFile(t, "switches", file).Body)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return db
}

// TestCorpusQoSReloadDryRunBindsNothing: `config qos reload --dry_run` of a
// switch without active ports writes the AZURE maps but binds no port.
func TestCorpusQoSReloadDryRunBindsNothing(t *testing.T) {
	db := corpusDB(t, "sonic-config_qos_reload_dryrun.json.txt")
	azure := db[tDSCPToTC]["AZURE"]
	if len(azure) != 64 || azure["26"] != "1" || azure["3"] != "3" || azure["4"] != "4" || azure["48"] != "6" {
		t.Fatalf("AZURE DSCP map %v", azure)
	}
	si, err := ParseConfigDB(db)
	if err != nil {
		t.Fatal(err)
	}
	if len(si.Ports) != 0 || len(si.Classes) != 0 || len(si.PFC.Priorities) != 0 {
		t.Fatalf("no port is bound, nothing is in force: %+v", si)
	}
}

// TestCorpusStockMapOnEthernet0 merges the dry-run tables with the
// single-port update that binds Ethernet0 (both from sonic-utilities' tests):
// the stock configuration, hand-checked.
func TestCorpusStockMapOnEthernet0(t *testing.T) {
	db := corpusDB(t, "sonic-config_qos_reload_dryrun.json.txt")
	db.Merge(corpusDB(t, "sonic-update_qos-single-port.json.txt"))
	si, err := ParseConfigDB(db)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(si.Ports, ",") != "Ethernet0" || si.Trust != "dscp" || si.PFC.CableLengthMeters != 300 || si.MTU != 9100 {
		t.Fatalf("intent %+v", si)
	}
	if switchcfg.FormatIntSet(si.PFC.Priorities) != "3-4" {
		t.Errorf("pfc %v", si.PFC.Priorities)
	}
	byPrio := map[int]fabric.SwitchClass{}
	for _, c := range si.Classes {
		byPrio[c.Priority] = c
	}
	if len(byPrio) != 7 { // TC 0..6 receive traffic; TC 7 none
		t.Errorf("classes %v", si.Classes)
	}
	lossless := fabric.SwitchECN{MinBytes: 1048576, MaxBytes: 2097152, MaxMarkProbability: 5}
	for _, tc := range []int{3, 4} {
		c := byPrio[tc]
		if !c.Lossless || c.ECN == nil || *c.ECN != lossless || c.BandwidthPercent != 15 || switchcfg.FormatIntSet(c.DSCP) != []string{3: "3", 4: "4"}[tc] {
			t.Errorf("TC%d %+v", tc, c)
		}
	}
	if c := byPrio[1]; c.Lossless || c.ECN != nil || c.BandwidthPercent != 14 || !contains(c.DSCP, 26) {
		t.Errorf("TC1 %+v", c)
	}
	if c := byPrio[6]; switchcfg.FormatIntSet(c.DSCP) != "48" || c.BandwidthPercent != 14 {
		t.Errorf("TC6 %+v", c)
	}

	// Against the lab intent: DSCP 26 is named as lossless-wanted, lossy-got.
	var named bool
	for _, d := range switchcfg.Compare(labSwitch(t), si) {
		named = named || (d.Field == "classes[roce].dscp[26]" && d.Want == "lossless (priority 3)" && d.Got == "lossy (priority 1)")
	}
	if !named {
		t.Errorf("stock map not detected: %v", switchcfg.Compare(labSwitch(t), si))
	}
}

// TestCorpusSinglePortAlone: the update alone names AZURE maps it does not
// carry; PFC and the cable length still read.
func TestCorpusSinglePortAlone(t *testing.T) {
	si, err := ParseConfigDB(corpusDB(t, "sonic-update_qos-single-port.json.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if si.Trust != "dscp" || len(si.Classes) != 0 || switchcfg.FormatIntSet(si.PFC.Priorities) != "3-4" || si.PFC.CableLengthMeters != 300 {
		t.Fatalf("intent %+v", si)
	}
}

func TestCorpusShowPFCWD(t *testing.T) {
	b := testutil.CorpusFile(t, "switches", "sonic-show-pfcwd-buffer-output.txt").Blocks()
	for title, want := range map[string]struct {
		poll     string
		eth0, e8 string
	}{
		"show pfcwd config (pfcwd_show_config_output)":                               {"600", "600", "600"},
		"config pfcwd start_default -> show pfcwd config (pfcwd_show_start_default)": {"200", "200", "600"},
	} {
		db, err := ParseShowPFCWD(b[title])
		if err != nil {
			t.Fatalf("%s: %v", title, err)
		}
		wd := db[tPFCWD]
		if wd[pfcwdGlobal][fPollInterval] != want.poll || wd["Ethernet0"]["detection_time"] != want.eth0 ||
			wd["Ethernet0"]["restoration_time"] != want.eth0 || wd["Ethernet8"]["detection_time"] != want.e8 || wd["Ethernet4"]["action"] != "drop" {
			t.Errorf("%s: %v", title, wd)
		}
	}
	// Not a read-back fabricctl consumes: buffers are outside the intent.
	if _, err := ParseShowPFCWD(b["show buffer configuration (show_buffer_configuration)"]); err == nil {
		t.Error("show buffer configuration is not a watchdog table")
	}
}
