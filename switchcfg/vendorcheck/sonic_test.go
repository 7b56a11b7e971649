package vendorcheck

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"

	"github.com/fabricctl/fabricctl/switchcfg/sonic"
)

var (
	sonicOnce   sync.Once
	sonicLoaded *SONiCSchema
	sonicErr    error
)

// sonicSchema compiles SONiC's models once for the package's tests.
func sonicSchema(t *testing.T) *SONiCSchema {
	t.Helper()
	y := yanglint(t)
	dir := validators(t, "sonic-yang")
	sonicOnce.Do(func() { sonicLoaded, sonicErr = LoadSONiCSchema(context.Background(), y, dir) })
	if sonicErr != nil {
		t.Fatal(sonicErr)
	}
	return sonicLoaded
}

// sonicBase is the real SN4600C CONFIG_DB as it stands after `sudo pfcwd
// start_default` (sonic-utilities pfcwd/main.py: every port's PFC_WD entry
// with action drop and 200 ms times, GLOBAL POLL_INTERVAL 200): the
// state in which the generic config updater takes watchdog changes
// (sonic.BuildPatch refuses to create the table, as GCU does).
func sonicBase(t *testing.T) sonic.ConfigDB {
	t.Helper()
	base, err := ReadSONiCConfigDB(filepath.Join(validators(t, "sonic-base"), "base-mlnx4600c.json"))
	if err != nil {
		t.Fatal(err)
	}
	wd := map[string]map[string]string{"GLOBAL": {"POLL_INTERVAL": "200"}}
	for p := range base["PORT"] {
		wd[p] = map[string]string{"action": "drop", "detection_time": "200", "restoration_time": "200"}
	}
	base["PFC_WD"] = wd
	return base
}

// slowWatchdog returns base with every port's watchdog at 1 s (`sudo
// pfcwd start --restoration-time 1000 all 1000`): at or above any poll
// interval sonic-pfcwd.yang takes.
func slowWatchdog(base sonic.ConfigDB) sonic.ConfigDB {
	out := CloneConfigDB(base)
	for k, f := range out["PFC_WD"] {
		if k != "GLOBAL" {
			f["detection_time"], f["restoration_time"] = "1000", "1000"
		}
	}
	return out
}

// withPorts adds a PORT entry, with placeholder lanes and speed, for each
// of ports the base lacks (the rails example names Ethernet1-3, which an
// SN4600C does not have unbroken out); it returns the ports it added.
func withPorts(base sonic.ConfigDB, ports []string) []string {
	var added []string
	for _, p := range ports {
		if base["PORT"][p] == nil {
			base["PORT"][p] = map[string]string{"lanes": strconv.Itoa(1000 + len(added)), "speed": "100000", "admin_status": "up"}
			added = append(added, p)
		}
	}
	return added
}

// voqBase turns a base into a VOQ chassis line card's CONFIG_DB: switch
// type voq with its hostname and ASIC (sonic-device_metadata.yang), and
// QUEUE and BUFFER_QUEUE keyed by system port, "<hostname>|<asic>|EthernetN|q"
// (sonic-queue.yang VOQ_QUEUE_LIST, sonic-buffer-queue.yang
// VOQ_BUFFER_QUEUE_LIST), with a remote line card's queue beside the local
// ones.
func voqBase(base sonic.ConfigDB, host string) sonic.ConfigDB {
	out := CloneConfigDB(base)
	md := out["DEVICE_METADATA"]["localhost"]
	md["switch_type"], md["hostname"], md["asic_name"], md["switch_id"], md["max_cores"] = "voq", host, "asic0", "0", "48"
	for _, t := range []string{"QUEUE", "BUFFER_QUEUE"} {
		rekeyed := map[string]map[string]string{}
		for k, f := range out[t] {
			rekeyed[host+"|asic0|"+k] = f
		}
		out[t] = rekeyed
	}
	out["QUEUE"]["remote-lc|asic1|Ethernet0|3"] = map[string]string{"scheduler": "scheduler.1"}
	return out
}

func renderDB(t *testing.T, c Case) sonic.ConfigDB {
	t.Helper()
	db, err := DecodeSONiCConfigDB([]byte(c.Config.Text))
	if err != nil {
		t.Fatalf("%s: %v", c.Name, err)
	}
	return db
}

// baseFor is the base a case is checked on: the real base, with the
// case's ports, and for the voq model a VOQ line card named like the switch.
func baseFor(base sonic.ConfigDB, c Case) (sonic.ConfigDB, []string) {
	b := CloneConfigDB(base)
	added := withPorts(b, c.Intent.Ports)
	if c.Intent.Model == sonic.ModelVOQ {
		b = voqBase(b, c.Intent.Name)
	}
	return b, added
}

type sonicJob struct {
	name string
	db   sonic.ConfigDB
}

// checkAll checks the jobs, two yanglint runs at a time, each distinct
// translation once.
func checkAll(t *testing.T, s *SONiCSchema, jobs []sonicJob) map[string]SONiCResult {
	t.Helper()
	type done struct {
		res SONiCResult
		err error
	}
	seen := map[[32]byte]*done{}
	byJob := make([]*done, len(jobs))
	var todo []func()
	var mu sync.Mutex
	for i, j := range jobs {
		data, res := s.Translate(j.db)
		h := sha256.Sum256(append(data, []byte(fmt.Sprint(res))...))
		if d, ok := seen[h]; ok {
			byJob[i] = d
			continue
		}
		d := &done{res: res}
		seen[h], byJob[i] = d, d
		todo = append(todo, func() {
			diags, err := s.y.Validate(context.Background(), s.dir, s.files, data)
			mu.Lock()
			d.res.Diags, d.err = diags, err
			mu.Unlock()
		})
	}
	work := make(chan func())
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for f := range work {
				f()
			}
		}()
	}
	for _, f := range todo {
		work <- f
	}
	close(work)
	wg.Wait()
	out := map[string]SONiCResult{}
	for i, j := range jobs {
		if byJob[i].err != nil {
			t.Fatalf("%s: %v", j.name, byJob[i].err)
		}
		out[j.name] = byJob[i].res
	}
	t.Logf("%d checks, %d distinct translations validated", len(jobs), len(todo))
	return out
}

// TestSONiCRendersPassYANG: every SONiC render of the example fabrics,
// example profiles and generated variants, on every ASIC model, pushed
// onto a real SN4600C CONFIG_DB (sonic.BuildPatch + ApplyPatch, as
// `config apply-patch` leaves it) and loaded onto it (`config load`: merged
// field by field), passes SONiC's YANG models with no translation error
// and no libyang error.
func TestSONiCRendersPassYANG(t *testing.T) {
	s := sonicSchema(t)
	base := sonicBase(t)
	cases, refused, err := Cases(repoRoot(t), "sonic")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range refused {
		t.Logf("refused %s: %v", r.Name, r.Err)
	}
	var jobs []sonicJob
	var refusedPush []string
	models := map[string]bool{}
	for _, c := range cases {
		models[c.Intent.Model] = true
		b, added := baseFor(base, c)
		if len(added) > 0 {
			t.Logf("%s: base given placeholder PORT entries for %s", c.Name, strings.Join(added, ","))
		}
		render := renderDB(t, c)
		pushed, _, err := PatchSONiC(b, render)
		if errors.Is(err, switchcfg.ErrNotSupported) && strings.Contains(err.Error(), "poll interval") {
			// The profile's poll interval is above the 200 ms that
			// start_default gave the ports outside the intent: push
			// refuses, and loading the file is what the YANG refuses.
			refusedPush = append(refusedPush, c.Name)
			jobs = append(jobs, sonicJob{c.Name + " (config load, start_default times)", MergeSONiC(b, render)})
			b = slowWatchdog(b)
			pushed, _, err = PatchSONiC(b, render)
		}
		if err != nil {
			t.Errorf("%s: %v", c.Name, err)
			continue
		}
		jobs = append(jobs, sonicJob{c.Name + " (pushed)", pushed}, sonicJob{c.Name + " (config load)", MergeSONiC(b, render)})
		// What was pushed reads back as the intent (VOQ line cards too).
		back, err := sonic.ParseConfigDBPorts(pushed, c.Intent.Ports)
		if err != nil {
			t.Errorf("%s: reading back: %v", c.Name, err)
		} else if diffs := (switchcfg.CompareOptions{Ports: true}).Compare(c.Intent, back); len(diffs) > 0 || len(back.Unparsed) > 0 {
			t.Errorf("%s: drift after the push: %v; unparsed %v", c.Name, diffs, back.Unparsed)
		}
	}
	for _, m := range sonic.New().Info().Models {
		if !models[m.Name] {
			t.Errorf("no case of model %s", m.Name)
		}
	}
	results := checkAll(t, s, jobs)
	for _, j := range jobs {
		r := results[j.name]
		if strings.HasSuffix(j.name, "start_default times)") {
			if r.Passed() || !strings.Contains(r.String(), "must be greater than or equal to POLL_INTERVAL") {
				t.Errorf("%s: push refused it, but the YANG says\n%s", j.name, r)
			}
			continue
		}
		if !r.Passed() || len(r.Translated) == 0 || len(r.Cropped) > 0 {
			t.Errorf("%s:\n%s", j.name, r)
		}
	}
	t.Logf("SONiC: %d cases checked (pushed and loaded), %d refused by validate; push refused %d on start_default's 200 ms times (checked on 1 s): %s",
		len(cases), len(refused), len(refusedPush), strings.Join(refusedPush, ", "))
}

// The checker can fail: the base passes alone, and each deliberately
// broken render fails with libyang's message located at the entry.
func TestSONiCYANGControls(t *testing.T) {
	s := sonicSchema(t)
	base := sonicBase(t)
	ctx := context.Background()
	if r, err := s.Check(ctx, base); err != nil || !r.Passed() {
		t.Fatalf("the base alone: %v\n%s", err, r)
	}
	cases, _, err := Cases(repoRoot(t), "sonic")
	if err != nil {
		t.Fatal(err)
	}
	var std Case
	for _, c := range cases {
		if c.Name == "generated standard/mellanox" {
			std = c
		}
	}
	if std.Name == "" {
		t.Fatal("no generated standard/mellanox case")
	}
	for _, tc := range []struct {
		name       string
		breakIt    func(db sonic.ConfigDB)
		path, text string // in the diag's data path, in its message
	}{
		{"pfc_enable 3,9", func(db sonic.ConfigDB) { db["PORT_QOS_MAP"]["Ethernet0"]["pfc_enable"] = "3,9" },
			"PORT_QOS_MAP_LIST[ifname='Ethernet0']/pfc_enable", "does not conform to"},
		{"missing scheduler", func(db sonic.ConfigDB) { db["QUEUE"]["Ethernet4|3"]["scheduler"] = "FABRICCTL_DWRR_77" },
			"QUEUE_LIST[ifname='Ethernet4'][qindex='3']/scheduler", "FABRICCTL_DWRR_77"},
		{"detection_time 50", func(db sonic.ConfigDB) { db["PFC_WD"]["Ethernet0"]["detection_time"] = "50" },
			"PFC_WD_LIST[ifname='Ethernet0']/detection_time", "50"},
		{"weight 0", func(db sonic.ConfigDB) { db["SCHEDULER"]["FABRICCTL_DWRR_50"]["weight"] = "0" },
			"SCHEDULER_LIST[name='FABRICCTL_DWRR_50']/weight", "0"},
	} {
		render := renderDB(t, std)
		tc.breakIt(render)
		pushed, _, err := PatchSONiC(base, render)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		r, err := s.Check(ctx, pushed)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, d := range r.Diags {
			found = found || strings.Contains(d.Path, tc.path) && strings.Contains(d.Message, tc.text)
		}
		if r.Passed() || !found {
			t.Errorf("%s: want a diag at %s with %q, got\n%s", tc.name, tc.path, tc.text, r)
		}
	}

	// A field no model has is a translation error naming the entry and
	// field; a table no model has is reported as cropped.
	db := CloneConfigDB(base)
	db["QUEUE"]["Ethernet0|3"]["wred"] = "X"
	db["FABRICCTL_NOT_A_TABLE"] = map[string]map[string]string{"k": {"f": "v"}}
	r, err := s.Check(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Errors) != 1 || !strings.Contains(r.Errors[0], "QUEUE|Ethernet0|3 field wred") ||
		strings.Join(r.Cropped, ",") != "FABRICCTL_NOT_A_TABLE" || r.Passed() {
		t.Errorf("unknown field and table:\n%s", r)
	}
	// A key of the wrong shape: the VOQ form on a switch that is no VOQ.
	db = CloneConfigDB(base)
	db["QUEUE"]["sonic|asic0|Ethernet0|3"] = map[string]string{"scheduler": "scheduler.0"}
	if r, _ := s.Check(ctx, db); r.Passed() {
		t.Errorf("a VOQ key on a switch without switch_type voq passed:\n%s", r)
	}
}

// TestSONiCVOQ: on a VOQ chassis line card (DEVICE_METADATA switch_type
// voq) SONiC keys QUEUE and BUFFER_QUEUE by system port; a render with
// local keys ("Ethernet0|3") fails there. Pushed, any render's queues go
// under the line card's own hostname and ASIC (also when the fabric names
// the switch otherwise); loaded as a file, the voq model's render passes.
func TestSONiCVOQ(t *testing.T) {
	s := sonicSchema(t)
	base := sonicBase(t)
	ctx := context.Background()
	if r, err := s.Check(ctx, voqBase(base, "lc1")); err != nil || !r.Passed() {
		t.Fatalf("the VOQ base alone: %v\n%s", err, r)
	}
	render := func(model string) sonic.ConfigDB {
		si := voqIntent(t, model)
		db, err := sonic.Desired(si)
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	// Loaded as a file: the local keys fail, the voq model's pass.
	local := MergeSONiC(voqBase(base, "sw1"), render(""))
	if r, _ := s.Check(ctx, local); r.Passed() || !strings.Contains(r.String(), "QUEUE_LIST") {
		t.Errorf("local queue keys on a VOQ line card passed:\n%s", r)
	}
	loaded := MergeSONiC(voqBase(base, "sw1"), render(sonic.ModelVOQ))
	if r, _ := s.Check(ctx, loaded); !r.Passed() {
		t.Errorf("the voq model's render loaded on line card sw1:\n%s", r)
	}
	// Pushed onto line card lc1 (the fabric calls it sw1), from either model.
	for _, model := range []string{"", sonic.ModelVOQ} {
		pushed, _, err := PatchSONiC(voqBase(base, "lc1"), render(model))
		if err != nil {
			t.Fatalf("model %q: %v", model, err)
		}
		if r, _ := s.Check(ctx, pushed); !r.Passed() {
			t.Errorf("model %q pushed onto VOQ line card lc1:\n%s", model, r)
		}
		if q := pushed["QUEUE"]["lc1|asic0|Ethernet0|3"]; q["wred_profile"] != "FABRICCTL_Q3" {
			t.Errorf("model %q: lc1's queue 3 of Ethernet0 is %v", model, q)
		}
		for k := range pushed["QUEUE"] {
			if !strings.HasPrefix(k, "lc1|asic0|") && !strings.HasPrefix(k, "remote-lc|") {
				t.Errorf("model %q: QUEUE|%s", model, k)
			}
		}
		if q := pushed["QUEUE"]["remote-lc|asic1|Ethernet0|3"]; q["scheduler"] != "scheduler.1" || len(q) != 1 {
			t.Errorf("model %q: the remote line card's queue changed: %v", model, q)
		}
	}
}

// voqIntent is the standard profile on sw1 (Ethernet0, Ethernet4) of model.
func voqIntent(t *testing.T, model string) fabric.SwitchIntent {
	t.Helper()
	var std Variant
	for _, v := range Variants {
		if v.Name == "standard" {
			std = v
		}
	}
	si, err := load("apiVersion: fabricctl.io/v1alpha1\nkind: Profile\nmetadata: {name: p}\nspec:\n  ethernet:\n"+std.Profile,
		"sonic", model, []string{"Ethernet0", "Ethernet4"})
	if err != nil {
		t.Fatal(err)
	}
	return si
}
