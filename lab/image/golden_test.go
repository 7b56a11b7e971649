package image

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/internal/testutil"
)

// The parsed forms of the fixtures, as the builder uses them.
func TestParsersGolden(t *testing.T) {
	f, err := os.Open("testdata/modules.dep")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	deps, err := ParseModulesDep(f)
	if err != nil {
		t.Fatal(err)
	}
	order, err := deps.LoadOrder([]string{"configfs", "crc32_generic", "rdma_rxe", "sch_netem"})
	if err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, "load-order.golden", []byte(strings.Join(order, "\n")+"\n"))

	out, _ := os.ReadFile("testdata/ldlist-sshd.txt")
	libs, err := ParseLdList(string(out))
	if err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, "ldlist-sshd.golden", []byte(strings.Join(libs, "\n")+"\n"))

	pkgs, err := ParseLock(bytes.NewReader(DefaultLock()))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, p := range pkgs {
		b.WriteString(p.FileName() + "\n")
	}
	testutil.Golden(t, "lock-filenames.golden", []byte(b.String()))
}
