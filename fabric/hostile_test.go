package fabric

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Hostile documents (issue 13): each is refused with located errors, a
// bounded number of them, none quoting a huge value. Memory and time of the
// same corpus through the real binary are measured by bench/hostile.sh.

func loadErrs(t *testing.T, name string, files map[string]string) Errors {
	t.Helper()
	_, err := Load(name, Options{ReadFile: memFS(files)})
	if err == nil {
		t.Fatalf("%s: want it refused, got no error", name)
	}
	var errs Errors
	if !errors.As(err, &errs) {
		t.Fatalf("%s: error is %T, not Errors: %.300v", name, err, err)
	}
	checkBounded(t, errs)
	return errs
}

// checkBounded asserts the cap on the number of errors, their size and location.
func checkBounded(t *testing.T, errs Errors) {
	t.Helper()
	if len(errs) > maxErrors+1 {
		t.Errorf("%d errors; the cap is %d plus its notice", len(errs), maxErrors)
	}
	for _, e := range errs {
		if l := len(e.Error()); l > maxMsgLen+maxPathLen+len(e.Pos.String())+4 {
			t.Errorf("an error of %d bytes: %.200s…", l, e.Error())
		}
		if e.Pos.File == "" {
			t.Errorf("unlocated error: %.200s", e.Error())
		}
	}
}

func hostsDoc(hosts string) string {
	return "apiVersion: fabricctl.io/v1alpha1\nkind: Fabric\nmetadata: {name: x}\nspec:\n  include: [p.yaml]\n  hosts:\n" + hosts
}

func TestHugePortRangeRefused(t *testing.T) {
	for _, r := range []string{"Ethernet0-9223372036854775807", "swp1-99999999999999999999999"} {
		if _, err := ExpandPorts(r); err == nil || !strings.Contains(err.Error(), "port range") {
			t.Errorf("ExpandPorts(%s) = %v, want a range error", r, err)
		}
	}
	// Two ports at the top of the integers: the expansion must end.
	if p, err := ExpandPorts("Ethernet9223372036854775806-9223372036854775807"); err != nil || len(p) != 2 {
		t.Errorf("ExpandPorts at the largest int = %v, %v", p, err)
	}
	errs := loadErrs(t, "f.yaml", map[string]string{"p.yaml": goodProfile,
		"f.yaml": edit(t, goodFabric, "[Ethernet0]", "[Ethernet0-9223372036854775807]")})
	if !strings.Contains(errs.Error(), "f.yaml:20:15: spec.switches[0].ports[0]: port range") {
		t.Errorf("not located at the range:\n%v", errs)
	}
}

// A host mapping with a long invalid name, aliased thousands of times: every
// alias would be reported with the whole value.
func TestAliasedErrorsCappedAndShort(t *testing.T) {
	long := strings.Repeat("X", 60000)
	var b strings.Builder
	fmt.Fprintf(&b, "    - &h {name: %q, address: %q, profile: %q, interfaces: [%q], labels: {k: %q}}\n", long, long, long, long, long)
	for i := 0; i < 5000; i++ {
		b.WriteString("    - *h\n")
	}
	errs := loadErrs(t, "f.yaml", map[string]string{"p.yaml": goodProfile, "f.yaml": hostsDoc(b.String())})
	if len(errs) != maxErrors+1 || !strings.Contains(errs[len(errs)-1].Msg, "too many errors") {
		t.Errorf("want the cap's notice last after %d errors, got %d ending %q", maxErrors, len(errs), errs[len(errs)-1])
	}
	if !strings.Contains(errs.Error(), `"XXXXXXXX`) || !strings.Contains(errs.Error(), "…") {
		t.Errorf("long values should be quoted cut with an ellipsis:\n%.500s", errs.Error())
	}
}

func TestHugeScalarNotEchoed(t *testing.T) {
	huge := strings.Repeat("a", maxInput-4096) // as large as the input limit allows
	errs := loadErrs(t, "p.yaml", map[string]string{"p.yaml": edit(t, goodProfile, "name: cnp", "name: cnp\n        nmae: "+huge)})
	if !strings.Contains(errs.Error(), "p.yaml:16:9: spec.ethernet.classes[1].nmae: unknown field") {
		t.Errorf("want the unknown field located:\n%.500s", errs.Error())
	}
	errs = loadErrs(t, "p.yaml", map[string]string{"p.yaml": edit(t, goodProfile, "mtu: 9000", "mtu: "+huge)})
	if !strings.Contains(errs.Error(), `p.yaml:7:10: spec.ethernet.mtu: expected an integer, got the string "aaaa`) {
		t.Errorf("want the type error located:\n%.500s", errs.Error())
	}
	errs = loadErrs(t, "p.yaml", map[string]string{"p.yaml": edit(t, goodProfile, "    mtu: 9000\n", "    mtu: 9000\n    "+huge+": 1\n")})
	if !strings.HasPrefix(errs.Error(), "p.yaml:8:") { // yaml.v3 refuses keys over 1024 bytes
		t.Errorf("want the huge key located:\n%.500s", errs.Error())
	}
}

// tinyNodes is a profile document followed by n one-character list items.
func tinyNodes(n int) string {
	return goodProfile + "    x: [" + strings.Repeat("a,", n) + "a]\n"
}

func TestNodeBudgetBeforeParse(t *testing.T) {
	data := tinyNodes(1 << 20) // 2 MiB of tiny nodes: a million
	errs := loadErrs(t, "p.yaml", map[string]string{"p.yaml": data})
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "p.yaml:24:") || !strings.Contains(errs[0].Msg, "YAML nodes") {
		t.Fatalf("want one located node-budget error at line 24, got:\n%.500v", errs)
	}
}

func TestInputLimit(t *testing.T) {
	errs := loadErrs(t, "p.yaml", map[string]string{"p.yaml": tinyNodes(15 << 19)}) // 15 MiB
	if len(errs) != 1 || errs[0].Error() != "p.yaml: file is larger than the 4 MiB input limit" {
		t.Fatalf("want the 15 MiB file refused, got:\n%.500v", errs)
	}
}

func TestTotalInputBudget(t *testing.T) {
	big := goodProfile + "# " + strings.Repeat("c", 15<<20) + "\n"
	files := map[string]string{"f.yaml": edit(t, goodFabric, "[p.yaml]", "[p.yaml, a.yaml, b.yaml, c.yaml]"),
		"p.yaml": goodProfile, "a.yaml": strings.Replace(big, "name: p", "name: a", 1),
		"b.yaml": strings.Replace(big, "name: p", "name: b", 1), "c.yaml": strings.Replace(big, "name: p", "name: c", 1)}
	errs := loadErrs(t, "f.yaml", files)
	want := "f.yaml:6:21: spec.include[1]: reading a.yaml: the fabric's files together exceed the 4 MiB input limit"
	if !strings.Contains(errs.Error(), want) {
		t.Fatalf("want %q, got:\n%.500v", want, errs)
	}
}

func TestTooManyErrorsAcrossValidation(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&b, "    - {name: h%d, address: 10.0.0.1, profile: p, interfaces: [%q]}\n", i, strings.Repeat("e", 100))
	}
	errs := loadErrs(t, "f.yaml", map[string]string{"p.yaml": goodProfile, "f.yaml": hostsDoc(b.String())})
	if len(errs) != maxErrors+1 {
		t.Fatalf("want %d errors and the notice, got %d", maxErrors, len(errs))
	}
}

func TestNonRegularFilesRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	// Load must not block on the FIFO: nobody ever writes to it.
	_, err := Load(fifo)
	if err == nil || !strings.Contains(err.Error(), fifo+": is a named pipe (FIFO), not a regular file") {
		t.Errorf("FIFO as the fabric: %v", err)
	}
	fab := filepath.Join(dir, "f.yaml")
	os.WriteFile(fab, []byte(edit(t, goodFabric, "[p.yaml]", "[p.yaml, fifo.yaml, /dev/zero]")), 0o644)
	os.WriteFile(filepath.Join(dir, "p.yaml"), []byte(goodProfile), 0o644)
	_, err = Load(fab)
	for _, want := range []string{
		fab + ":6:21: spec.include[1]: reading fifo.yaml (" + fifo + "): is a named pipe (FIFO), not a regular file",
		fab + ":6:32: spec.include[2]: reading /dev/zero: is a character device, not a regular file",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("want %q, got:\n%v", want, err)
		}
	}
	if _, err := Load("/dev/zero"); err == nil || !strings.Contains(err.Error(), "/dev/zero: is a character device, not a regular file") {
		t.Errorf("/dev/zero as the fabric: %v", err)
	}
}

// Errors about reading an included file are located at its include line.
func TestIncludeReadErrorsLocatedAtInclude(t *testing.T) {
	files := map[string]string{"f.yaml": edit(t, goodFabric, "[p.yaml]", "[p.yaml, e.yaml]"), "p.yaml": goodProfile, "e.yaml": "  \n"}
	errs := loadErrs(t, "f.yaml", files)
	if want := "f.yaml:6:21: spec.include[1]: reading e.yaml: file is empty"; !strings.Contains(errs.Error(), want) {
		t.Errorf("want %q, got:\n%v", want, errs)
	}
}

func TestTooManyDocumentsLocated(t *testing.T) {
	errs := loadErrs(t, "p.yaml", map[string]string{"p.yaml": strings.Repeat(goodProfile+"---\n", maxDocs+5)})
	want := fmt.Sprintf("p.yaml:%d:1: more than %d documents in one file", maxDocs*24+1, maxDocs)
	if len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), want) {
		t.Fatalf("want %q, got:\n%.500v", want, errs)
	}
}
