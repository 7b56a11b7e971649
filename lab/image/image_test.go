package image

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseLock(t *testing.T) {
	pkgs, err := ParseLock(strings.NewReader("# c\n\nfoo=1:2.3-4\n bar = 5 \nlinux-image-6.1.0-57-amd64=6.1.192-3\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Package{{"foo", "1:2.3-4"}, {"bar", "5"}, {"linux-image-6.1.0-57-amd64", "6.1.192-3"}}
	if d := cmp.Diff(want, pkgs); d != "" {
		t.Fatal(d)
	}
	if got := pkgs[0].FileName(); got != "foo_1%3a2.3-4_amd64.deb" {
		t.Errorf("FileName = %q", got)
	}
	if got := pkgs[0].String(); got != "foo=1:2.3-4" {
		t.Errorf("String = %q", got)
	}
	k, err := KernelPackage(pkgs)
	if err != nil || k.Name != "linux-image-6.1.0-57-amd64" {
		t.Errorf("KernelPackage = %v, %v", k, err)
	}
	for _, bad := range []string{"", "foo\n", "foo=\n", "=1\n", "a=1\na=2\n", "a b=1\n"} {
		if _, err := ParseLock(strings.NewReader(bad)); !errors.Is(err, ErrBadLock) {
			t.Errorf("ParseLock(%q) err = %v, want ErrBadLock", bad, err)
		}
	}
	if _, err := ParseLock(strings.NewReader("a=1\na=2\n")); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("duplicate error does not name the line: %v", err)
	}
	if _, err := KernelPackage([]Package{{"a", "1"}}); !errors.Is(err, ErrBadLock) {
		t.Errorf("no kernel: %v", err)
	}
}

// The embedded lock must parse, pin one kernel and every package the image needs.
func TestDefaultLock(t *testing.T) {
	pkgs, err := ParseLock(bytes.NewReader(DefaultLock()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := KernelPackage(pkgs); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, p := range pkgs {
		names[p.Name] = true
	}
	for _, n := range []string{"busybox-static", "kmod", "openssh-server", "perftest", "ibverbs-providers", "iproute2", "libc6", "libgcc-s1", "bash"} {
		if !names[n] {
			t.Errorf("packages.lock lacks %s", n)
		}
	}
}

func TestInputHashChangesWithLock(t *testing.T) {
	a, b := InputHash([]byte("x=1\n")), InputHash([]byte("x=2\n"))
	if a == b || len(a) != 16 {
		t.Fatalf("hashes %q %q", a, b)
	}
	if a != InputHash([]byte("x=1\n")) {
		t.Fatal("hash not deterministic")
	}
}

func TestLoadOrder(t *testing.T) {
	f, err := os.Open("testdata/modules.dep")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	deps, err := ParseModulesDep(f)
	if err != nil {
		t.Fatal(err)
	}
	got, err := deps.LoadOrder([]string{"configfs", "crc32-generic", "rdma_rxe", "ib_uverbs", "sch_netem"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range got {
		names = append(names, ModuleName(p))
	}
	want := []string{"configfs", "crc32_generic", "ib_core", "ip6_udp_tunnel", "udp_tunnel", "ib_uverbs", "rdma_rxe", "sch_netem"}
	if d := cmp.Diff(want, names); d != "" {
		t.Fatalf("order (-want +got):\n%s", d)
	}
	pos := map[string]int{}
	for i, n := range names {
		pos[n] = i
	}
	for _, dep := range []string{"ib_core", "ib_uverbs", "udp_tunnel", "ip6_udp_tunnel"} {
		if pos[dep] > pos["rdma_rxe"] {
			t.Errorf("%s loaded after rdma_rxe", dep)
		}
	}
	if _, err := deps.LoadOrder([]string{"siw"}); err == nil || !strings.Contains(err.Error(), "siw") {
		t.Errorf("unknown module: %v", err)
	}
	cyc := ModuleDeps{"a.ko": {"b.ko"}, "b.ko": {"a.ko"}}
	if _, err := cyc.LoadOrder([]string{"a"}); err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Errorf("cycle: %v", err)
	}
	if _, err := ParseModulesDep(strings.NewReader("no colon here\n")); err == nil {
		t.Error("bad modules.dep accepted")
	}
}

func TestParseLdList(t *testing.T) {
	out, _ := os.ReadFile("testdata/ldlist-sshd.txt")
	libs, err := ParseLdList(string(out))
	if err != nil {
		t.Fatal(err)
	}
	rel, err := StagedPaths("/stage", libs)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"lib64/ld-linux-x86-64.so.2", "lib/x86_64-linux-gnu/libc.so.6", "lib/x86_64-linux-gnu/libcrypt.so.1",
		"lib/x86_64-linux-gnu/libwrap.so.0", "lib/x86_64-linux-gnu/libz.so.1", "usr/lib/x86_64-linux-gnu/libcrypto.so.3"}
	if d := cmp.Diff(want, rel); d != "" {
		t.Fatalf("(-want +got):\n%s", d)
	}
	if _, err := StagedPaths("/stage", []string{"/usr/lib/x86_64-linux-gnu/libgcrypt.so.20"}); err == nil ||
		!strings.Contains(err.Error(), "libgcrypt.so.20") {
		t.Errorf("library outside the stage accepted: %v", err)
	}
	out, _ = os.ReadFile("testdata/ldlist-notfound.txt")
	if _, err := ParseLdList(string(out)); err == nil || !strings.Contains(err.Error(), "libgcrypt.so.20, liblz4.so.1") {
		t.Errorf("not found: %v", err)
	}
}

func TestTreeCopyFromStageFollowsLinks(t *testing.T) {
	stage := t.TempDir()
	lib := filepath.Join(stage, "lib/x86_64-linux-gnu")
	must(t, os.MkdirAll(lib, 0o755))
	must(t, os.MkdirAll(filepath.Join(stage, "lib64"), 0o755))
	must(t, os.WriteFile(filepath.Join(lib, "libfoo.so.1.2.3"), []byte("ELF"), 0o644))
	must(t, os.Symlink("libfoo.so.1.2.3", filepath.Join(lib, "libfoo.so.1")))
	must(t, os.Symlink("/lib/x86_64-linux-gnu/libfoo.so.1", filepath.Join(stage, "lib64/foo")))
	tr := NewTree()
	must(t, tr.CopyFromStage(stage, "lib64/foo"))
	want := []string{"lib", "lib/x86_64-linux-gnu", "lib/x86_64-linux-gnu/libfoo.so.1", "lib/x86_64-linux-gnu/libfoo.so.1.2.3", "lib64", "lib64/foo"}
	if d := cmp.Diff(want, tr.Paths()); d != "" {
		t.Fatalf("(-want +got):\n%s", d)
	}
	e, _ := tr.Get("lib/x86_64-linux-gnu/libfoo.so.1")
	if e.Mode&0o170000 != modeSymlink || string(e.Data) != "libfoo.so.1.2.3" {
		t.Errorf("link entry %+v", e)
	}
	if err := tr.CopyFromStage(stage, "lib/missing.so"); err == nil {
		t.Error("missing file accepted")
	}
}

// readCpio is a minimal newc reader used to check what WriteCpio wrote.
func readCpio(t *testing.T, b []byte) map[string]Entry {
	t.Helper()
	got := map[string]Entry{}
	r := bytes.NewReader(b)
	for {
		hdr := make([]byte, 110)
		if _, err := io.ReadFull(r, hdr); err != nil {
			t.Fatalf("header: %v", err)
		}
		if string(hdr[:6]) != "070701" {
			t.Fatalf("magic %q", hdr[:6])
		}
		field := func(i int) uint32 {
			v, err := strconv.ParseUint(string(hdr[6+8*i:14+8*i]), 16, 32)
			if err != nil {
				t.Fatal(err)
			}
			return uint32(v)
		}
		mode, size, rmaj, rmin, nsize := field(1), field(6), field(9), field(10), field(11)
		name := make([]byte, nsize)
		io.ReadFull(r, name)
		skip := (4 - (110+int(nsize))%4) % 4
		r.Seek(int64(skip), io.SeekCurrent)
		data := make([]byte, size)
		io.ReadFull(r, data)
		r.Seek(int64((4-int(size)%4)%4), io.SeekCurrent)
		n := strings.TrimSuffix(string(name), "\x00")
		if n == "TRAILER!!!" {
			return got
		}
		got[n] = Entry{Mode: mode, Data: data, DevMajor: rmaj, DevMinor: rmin}
	}
}

func TestWriteCpioRoundTrip(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "f")
	must(t, os.WriteFile(src, []byte("hello, world"), 0o644))
	tr := NewTree()
	tr.Bytes("init", 0o755, []byte("#!/bin/sh\n"))
	tr.File("usr/bin/tool", 0o755, src)
	tr.Symlink("bin/sh", "busybox")
	tr.CharDev("dev/console", 0o600, 5, 1)
	var buf bytes.Buffer
	must(t, tr.WriteCpio(&buf))
	got := readCpio(t, buf.Bytes())
	if e := got["usr/bin/tool"]; string(e.Data) != "hello, world" || e.Mode != modeRegular|0o755 {
		t.Errorf("tool: %+v", e)
	}
	if e := got["usr"]; e.Mode != modeDir|0o755 {
		t.Errorf("parent dir not added: %+v", e)
	}
	if e := got["bin/sh"]; e.Mode&0o170000 != modeSymlink || string(e.Data) != "busybox" {
		t.Errorf("symlink: %+v", e)
	}
	if e := got["dev/console"]; e.Mode != modeCharDev|0o600 || e.DevMajor != 5 || e.DevMinor != 1 {
		t.Errorf("console: %+v", e)
	}
	var again bytes.Buffer
	must(t, tr.WriteCpio(&again))
	if !bytes.Equal(buf.Bytes(), again.Bytes()) {
		t.Error("archive not deterministic")
	}
	tr.File("gone", 0o644, filepath.Join(dir, "nope"))
	if err := tr.WriteCpio(io.Discard); err == nil {
		t.Error("missing source accepted")
	}
}

func TestCheckFreeSpace(t *testing.T) {
	if err := CheckFreeSpace(t.TempDir(), 1); err != nil {
		t.Fatal(err)
	}
	if err := CheckFreeSpace(t.TempDir(), 1<<62); !errors.Is(err, ErrNoSpace) {
		t.Fatalf("err = %v, want ErrNoSpace", err)
	}
}

func TestFetchWithoutAptGet(t *testing.T) {
	f := Fetcher{Dir: t.TempDir(), AptGet: "/nonexistent/apt-get"}
	_, err := f.Fetch(t.Context(), []Package{{"perftest", "4.5+0.17-1"}})
	if !errors.Is(err, ErrMissingTool) || !strings.Contains(err.Error(), "install-deps.sh") {
		t.Fatalf("err = %v, want ErrMissingTool pointing at install-deps.sh", err)
	}
}

func TestFetchUsesCache(t *testing.T) {
	dir := t.TempDir()
	p := Package{"perftest", "4.5+0.17-1"}
	must(t, os.WriteFile(filepath.Join(dir, p.FileName()), []byte("deb"), 0o644))
	// apt-get is never needed when everything is cached
	got, err := Fetcher{Dir: dir, AptGet: "/nonexistent/apt-get"}.Fetch(t.Context(), []Package{p})
	if err != nil || got["perftest"] != filepath.Join(dir, p.FileName()) {
		t.Fatalf("Fetch = %v, %v", got, err)
	}
}

func TestDescribeAptFailureNamesPackage(t *testing.T) {
	stderr := "E: Version '6.1.192-3' for 'linux-image-6.1.0-57-amd64' was not found\nE: Unable to locate package nosuchpkg\n"
	err := describeAptFailure(t.Context(), []Package{{"linux-image-6.1.0-57-amd64", "6.1.192-3"}, {"nosuchpkg", "1"}}, stderr, errors.New("exit status 100"))
	if !errors.Is(err, ErrNotServed) {
		t.Fatalf("err = %v", err)
	}
	for _, s := range []string{"linux-image-6.1.0-57-amd64=6.1.192-3", "nosuchpkg=1"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not name %s", err, s)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
