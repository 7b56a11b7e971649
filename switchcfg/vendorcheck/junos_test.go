package vendorcheck

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/fabricctl/fabricctl/switchcfg/drivertest"
	"github.com/fabricctl/fabricctl/switchcfg/junos"
)

var junosLoaded struct {
	once     sync.Once
	qfx, evo *JunosSchema
	err      error
}

// junosSchemas loads both families of Juniper's configuration YANG once
// for the package's tests (in parallel: about a second each).
func junosSchemas(t *testing.T) (qfx, evo *JunosSchema) {
	t.Helper()
	y := yanglint(t)
	dir := validators(t, "junos-yang")
	l := &junosLoaded
	l.once.Do(func() {
		var wg sync.WaitGroup
		var errs [2]error
		var out [2]*JunosSchema
		for i, f := range []JunosFamily{JunosQFX, JunosEVO} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				out[i], errs[i] = LoadJunosSchema(context.Background(), y, dir, f)
			}()
		}
		wg.Wait()
		l.qfx, l.evo, l.err = out[0], out[1], errors.Join(errs[:]...)
	})
	if l.err != nil {
		t.Fatal(l.err)
	}
	return l.qfx, l.evo
}

// familyOf is the schema a case's model runs: Junos OS Evolved on the
// QFX5130/5220/5230/5240, classic Junos on the other QFX.
func familyOf(c Case, qfx, evo *JunosSchema) *JunosSchema {
	if junos.Evolved(c.Intent.Model) {
		return evo
	}
	return qfx
}

// Every Junos render (example fabrics, example profiles and generated
// variants on every model) is valid against Juniper's configuration YANG
// of its model's family (24.4R1): the only findings allowed are on the
// paths Juniper's EVO models lack (JunosEVO.Gaps: class-of-service
// shared-buffer ingress|egress).
func TestJunosRendersPassYANG(t *testing.T) {
	qfx, evo := junosSchemas(t)
	cases, refused, err := Cases(repoRoot(t), "junos")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range refused {
		t.Logf("refused %s: %v", r.Name, r.Err)
	}
	if junos.Evolved("") || junos.Evolved("qfx5120") || !junos.Evolved("qfx5240-64od") || !junos.Evolved("qfx5130") {
		t.Fatal("Evolved: QFX5120 (the default) is classic Junos, QFX5130 and QFX5240 run Junos OS Evolved")
	}
	byFamily := map[*JunosSchema][]Case{}
	models := map[string]bool{}
	for _, c := range cases {
		s := familyOf(c, qfx, evo)
		byFamily[s] = append(byFamily[s], c)
		models[modelOf(c)] = true
	}
	for _, m := range junos.New().Info().Models {
		if !models[m.Name] {
			t.Errorf("no case renders for model %s", m.Name)
		}
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	for _, s := range []*JunosSchema{qfx, evo} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var texts []string
			for _, c := range byFamily[s] {
				texts = append(texts, c.Config.Text)
			}
			res, err := s.CheckAll(context.Background(), texts)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				t.Error(err)
				return
			}
			gaps := 0
			for i, r := range res {
				c := byFamily[s][i]
				if r.Checked == 0 || len(r.Unchecked) > 0 {
					t.Errorf("%s: %d statements checked, %d outside %v", c.Name, r.Checked, len(r.Unchecked), JunosStanzas)
				}
				for _, f := range r.Findings {
					if f.Gap {
						gaps++
						continue
					}
					t.Errorf("%s (%s, %s): %s", c.Name, modelOf(c), s.Family.Name, f)
				}
			}
			t.Logf("%s: %d renders checked, %d statements on the models' known gaps", s.Family.Name, len(res), gaps)
		}()
	}
	wg.Wait()
	t.Logf("%d cases checked, %d refused by validation", len(cases), len(refused))
}

// The longest class name the Junos driver accepts (58 characters) names
// a scheduler (NAME-sched) within the 64 characters Juniper's schema
// allows; 59 is refused by the render (it wrote a 65-character scheduler
// name before).
func TestJunosLongestClassNamePassesYANG(t *testing.T) {
	qfx, evo := junosSchemas(t)
	d := junos.New()
	in := drivertest.LabIntent(d.Info())
	in.Classes[1].Name = "r" + strings.Repeat("o", 57)
	in.RoCEClass = in.Classes[1].Name
	for _, s := range []*JunosSchema{qfx, evo} {
		in.Model = "qfx5120"
		if s == evo {
			in.Model = "qfx5240"
		}
		cfg, err := d.Render(in)
		if err != nil {
			t.Fatal(err)
		}
		r, err := s.Check(context.Background(), cfg.Text)
		if err != nil {
			t.Fatal(err)
		}
		if errs := r.Errors(); len(errs) != 0 {
			t.Errorf("%s: %v", s.Family.Name, errs)
		}
	}
	in.Classes[1].Name += "o"
	in.RoCEClass = in.Classes[1].Name
	if _, err := d.Render(in); err == nil {
		t.Error("a 59-character class name rendered")
	}
}

// The checker's controls: Juniper's own validated designs pass, and a
// broken configuration fails with each error at its line and statement,
// alone and batched with valid ones.
func TestJunosYANGControls(t *testing.T) {
	qfx, evo := junosSchemas(t)
	jvd := func(t *testing.T, name string) string {
		b, err := os.ReadFile(filepath.Join("..", "junos", "testdata", "jvd", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, s := range []*JunosSchema{qfx, evo} {
		t.Run(s.Family.Dir, func(t *testing.T) {
			t.Parallel()
			if s == qfx {
				// Curly text from Juniper's validated designs (QFX5120
				// compute leaves; QFX5240 AI/ML leaves): valid on
				// classic QFX.
				res, err := s.CheckAll(context.Background(), []string{jvd(t, "rocev2-dcqcn-drop-profiles.conf"), jvd(t, "rdma-rocev2-lossless.conf")})
				if err != nil {
					t.Fatal(err)
				}
				for i, r := range res {
					if r.Checked < 4 || len(r.Findings) != 0 {
						t.Errorf("JVD design %d: %d checked, findings %v", i+1, r.Checked, r.Findings)
					}
				}
			} else {
				// On Junos OS Evolved the QFX5240 design meets the
				// models' gaps: shared-buffer ingress/egress (allowed:
				// JunosEVO.Gaps) and dedicated-buffer, which fabricctl
				// never writes (not allowed).
				r, err := s.Check(context.Background(), jvd(t, "rdma-rocev2-lossless.conf"))
				if err != nil {
					t.Fatal(err)
				}
				var gaps, others []string
				for _, f := range r.Findings {
					if f.Gap {
						gaps = append(gaps, f.Statement)
					} else {
						others = append(others, f.String())
					}
				}
				if len(gaps) != 6 || len(others) != 2 || !strings.HasPrefix(others[0], `line 74: set class-of-service dedicated-buffer ingress percent 15: "dedicated-buffer" is no keyword under class-of-service`) {
					t.Errorf("JVD QFX5240 design: gaps %q, other findings %q", gaps, others)
				}
				for _, g := range gaps {
					if !strings.HasPrefix(g, "set class-of-service shared-buffer ingress ") && !strings.HasPrefix(g, "set class-of-service shared-buffer egress ") {
						t.Errorf("gap outside shared-buffer ingress|egress: %s", g)
					}
				}
			}
			checkBroken(t, s)
		})
	}
}

// checkBroken: an unknown keyword, a repeated leaf-list value and an
// out-of-range value are each found at their line, alone and batched.
func checkBroken(t *testing.T, s *JunosSchema) {
	broken := `set class-of-service forwarding-classes class roce queue-num 3
set class-of-service forwarding-classes class roce no-loss
set class-of-service schedulers roce-sched transmit-rat percent 50
set class-of-service drop-profiles roce-dp interpolate fill-level [ 1 1 ]
set class-of-service drop-profiles roce-dp interpolate drop-probability [ 0 100 ]
set class-of-service schedulers roce-sched transmit-rate percent 150
set interfaces et-0/0/0 mtu 9216
set class-of-service interfaces et-0/0/0 unit * classifiers dscp FABRICCTL-CLASSIFIER
set class-of-service shared-buffer ingress buffer-partition lossless percent 66
`
	want := []string{
		`line 3: set class-of-service schedulers roce-sched transmit-rat percent 50: "transmit-rat" is no keyword under class-of-service schedulers roce-sched`,
		`line 4: set class-of-service drop-profiles roce-dp interpolate fill-level [ 1 1 ]: Duplicate instance of "fill-level"`,
		`line 6: set class-of-service schedulers roce-sched transmit-rate percent 150: Invalid union value "150"`,
	}
	valid := "set class-of-service forwarding-classes class roce queue-num 3\nset interfaces et-0/0/0 mtu 9216\n"
	single, err := s.Check(context.Background(), broken)
	if err != nil {
		t.Fatal(err)
	}
	batch, err := s.CheckAll(context.Background(), []string{valid, broken, valid})
	if err != nil {
		t.Fatal(err)
	}
	if len(batch[0].Findings)+len(batch[2].Findings) != 0 {
		t.Errorf("the valid configuration batched with a broken one: %v %v", batch[0].Findings, batch[2].Findings)
	}
	for mode, r := range map[string]JunosResult{"alone": single, "batched": batch[1]} {
		errs := r.Errors()
		if len(errs) != len(want) {
			t.Errorf("%s: %d errors, want %d: %v", mode, len(errs), len(want), errs)
			continue
		}
		for i, w := range want {
			if !strings.HasPrefix(errs[i].String(), w) {
				t.Errorf("%s: error %d is\n  %s\nwant it to start\n  %s", mode, i, errs[i], w)
			}
		}
		// shared-buffer ingress: a gap on Evolved, valid on classic.
		if gap, wantGap := len(r.Findings)-len(errs), len(s.Family.Gaps)/2; gap != wantGap {
			t.Errorf("%s: %d findings on gaps, want %d", mode, gap, wantGap)
		}
	}
}

func TestJunosStatements(t *testing.T) {
	curly := "/* a\n comment */\nclass-of-service {\n    drop-profiles {\n        dp1 {\n            interpolate {\n                fill-level [ 55 90 ];\n            }\n        }\n    }\n    inactive: schedulers { s { priority \"strict-high\"; } } # trailing\n}\n"
	st, err := junosStatements(curly)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range st {
		got = append(got, s.String())
	}
	want := []string{"set class-of-service drop-profiles dp1 interpolate fill-level [ 55 90 ]", "set class-of-service schedulers s priority strict-high"}
	if strings.Join(got, "|") != strings.Join(want, "|") || st[0].line != 7 {
		t.Errorf("curly: %q (line %d)", got, st[0].line)
	}
	st, err = junosStatements("# header\ndelete class-of-service\nset interfaces et-0/0/0 description \"a b\"\n")
	if err != nil || len(st) != 2 || st[1].line != 3 || st[1].words[3] != "a b" || st[0].verb != "delete" {
		t.Errorf("set form: %+v %v", st, err)
	}
	for _, bad := range []string{"a {\n", "a }\n", "set x \"y\n", "/* x"} {
		if _, err := junosStatements(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// A line the checker does not read is an error, never passed over: a
// deactivate among set lines, a curly statement cut off before its ;.
func TestJunosStatementsRefuseWhatTheyCannotRead(t *testing.T) {
	for _, text := range []string{
		"set class-of-service schedulers s priority low\ndeactivate class-of-service schedulers s\n",
		"set interfaces et-0/0/0 mtu 9216\nset\n",
		"class-of-service { schedulers { s { priority low } } }\n",
		"class-of-service { schedulers { s { priority low; } } }\ntrailing words\n",
	} {
		if st, err := junosStatements(text); err == nil {
			t.Errorf("%q read as %v without an error", text, st)
		}
	}
	if st, err := junosStatements("class-of-service { schedulers { s { priority low; } } }\n"); err != nil || len(st) != 1 {
		t.Fatalf("a whole curly statement: %v %v", st, err)
	}
}
