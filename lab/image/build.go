package image

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

//go:embed guest
var guestFS embed.FS

// builderVersion changes whenever the way the image is assembled changes, so old cached images
// are not reused by a newer builder.
const builderVersion = "fabricctl-lab-image/3"

// Modules are loaded in the guest, dependencies first. crc32_generic is not a modules.dep
// dependency of rdma_rxe, yet rxe needs the "crc32" hash (without it: "rdma_rxe: failed to init
// crc32 algorithm err:-2").
var Modules = []string{
	"configfs", "crc32_generic", "crc32_pclmul",
	"virtio_pci", "virtio_net", "9pnet_virtio", "9p",
	"veth", "rdma_rxe", "ib_uverbs", "ib_umad", "rdma_ucm",
	"sch_prio", "sch_netem", "cls_u32", "sch_red", "sch_ets", "sch_mqprio", "sch_htb", "sch_ingress",
	"cls_flower", "cls_basic", "act_skbedit", "act_gact", "act_mirred", "8021q",
}

// Binaries are copied with their shared-library closure (paths inside the packages).
var Binaries = []string{
	"bin/bash", "bin/ip", "sbin/tc", "sbin/bridge", "sbin/dcb", "sbin/ethtool",
	"usr/bin/rdma", "usr/bin/tcpdump", "usr/bin/nstat", "usr/sbin/sshd",
	"usr/bin/ibv_devinfo", "usr/bin/ibv_devices", "usr/bin/ibv_rc_pingpong", "usr/bin/ibv_ud_pingpong",
	"usr/bin/rping", "usr/bin/ucmatose", "usr/bin/udaddy", "usr/bin/cmtime",
	"usr/bin/ib_write_bw", "usr/bin/ib_write_lat", "usr/bin/ib_read_bw", "usr/bin/ib_read_lat",
	"usr/bin/ib_send_bw", "usr/bin/ib_send_lat", "usr/bin/ib_atomic_bw", "usr/bin/ib_atomic_lat",
	"usr/sbin/lldpd", "usr/sbin/lldpcli",
}

// DlopenedFiles are loaded at run time, invisible to ld.so --list: the rxe verbs provider and
// libgcc_s (glibc loads it for pthread_exit; rping aborts without it). Their closures are added too.
var DlopenedFiles = []string{
	"usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so",
	"lib/x86_64-linux-gnu/libgcc_s.so.1",
}

// Image is a bootable lab image: a kernel and an initramfs.
type Image struct {
	Dir           string `json:"dir"`
	Kernel        string `json:"kernel"` // vmlinuz
	Initrd        string `json:"initrd"` // initrd.img (gzip'd cpio)
	KernelVersion string `json:"kernelVersion"`
	Hash          string `json:"hash"` // of every input: package versions, guest files, builder version
	// Controller is the controller tree: slurmctld, munged, srun, scontrol … with their own loader
	// and libraries, run through the wrappers in Controller/bin (see ControllerCommands).
	Controller string `json:"controller,omitempty"`
	// Reused is true when a cached image with the same inputs was found (nothing fetched or built).
	Reused bool `json:"-"`
	// FetchTime and BuildTime are the durations of the two phases (zero when reused).
	FetchTime time.Duration `json:"-"`
	BuildTime time.Duration `json:"-"`
}

// Builder fetches the pinned packages and assembles the lab image under CacheDir. Build holds an
// exclusive lock on the cache, so concurrent builders (two processes) wait for each other.
type Builder struct {
	CacheDir string       // default DefaultCacheDir()
	Lock     []byte       // package lock; default DefaultLock()
	Log      *slog.Logger // progress; default discards
}

// DefaultCacheDir is ${XDG_CACHE_HOME:-~/.cache}/fabricctl/lab.
func DefaultCacheDir() string {
	base := os.Getenv("XDG_CACHE_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			home = os.TempDir()
		}
		base = filepath.Join(home, ".cache")
	}
	return filepath.Join(base, "fabricctl", "lab")
}

func (b *Builder) log() *slog.Logger {
	if b.Log == nil {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return b.Log
}

// InputHash is the hash of everything the image is built from.
func InputHash(lock []byte) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%q\n%q\n%q\n", builderVersion, Modules, Binaries, DlopenedFiles)
	fmt.Fprintf(h, "%q\n%q\n%q\n%q\n%q\n%s\n", SlurmBinaries, SlurmLinks, SlurmPlugins, ControllerBinaries,
		ControllerCommands, ControllerWrapper("NAME", "PROG"))
	h.Write(lock)
	_ = fs.WalkDir(guestFS, "guest", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, _ := guestFS.ReadFile(p)
		fmt.Fprintf(h, "\n%s %d\n", p, len(data))
		h.Write(data)
		return nil
	})
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// Build returns the image for the current inputs, building it only when no cached image has the
// same input hash.
func (b *Builder) Build(ctx context.Context) (Image, error) {
	if b.CacheDir == "" {
		b.CacheDir = DefaultCacheDir()
	}
	lock := b.Lock
	if lock == nil {
		lock = DefaultLock()
	}
	pkgs, err := ParseLock(bytes.NewReader(lock))
	if err != nil {
		return Image{}, fmt.Errorf("parsing package lock: %w", err)
	}
	kpkg, err := KernelPackage(pkgs)
	if err != nil {
		return Image{}, fmt.Errorf("parsing package lock: %w", err)
	}
	if err := os.MkdirAll(b.CacheDir, 0o755); err != nil {
		return Image{}, fmt.Errorf("creating cache dir: %w", err)
	}
	unlock, err := lockDir(ctx, b.CacheDir)
	if err != nil {
		return Image{}, err
	}
	defer unlock()

	hash := InputHash(lock)
	img := Image{Dir: filepath.Join(b.CacheDir, "images", hash), Hash: hash}
	img.Kernel = filepath.Join(img.Dir, "vmlinuz")
	img.Initrd = filepath.Join(img.Dir, "initrd.img")
	if m, err := os.ReadFile(filepath.Join(img.Dir, "manifest.json")); err == nil {
		var prev Image
		if json.Unmarshal(m, &prev) == nil && prev.Hash == hash && fileExists(prev.Kernel) && fileExists(img.Initrd) {
			img.Kernel = prev.Kernel
			img.KernelVersion = prev.KernelVersion
			img.Controller = prev.Controller
			img.Reused = true
			b.log().Info("lab image up to date", "hash", hash, "dir", img.Dir)
			return img, nil
		}
	}
	for _, tool := range []string{"dpkg-deb"} {
		if _, err := exec.LookPath(tool); err != nil {
			return Image{}, fmt.Errorf("building lab image: %s: %w (run lab/scripts/install-deps.sh)", tool, ErrMissingTool)
		}
	}
	if err := CheckFreeSpace(b.CacheDir, MinFreeBytes); err != nil {
		return Image{}, err
	}

	t0 := time.Now()
	debs, err := Fetcher{Dir: filepath.Join(b.CacheDir, "debs")}.Fetch(ctx, pkgs)
	if err != nil {
		return Image{}, err
	}
	img.FetchTime = time.Since(t0)
	b.log().Info("packages ready", "count", len(debs), "took", img.FetchTime.Round(time.Millisecond))

	t1 := time.Now()
	work, err := os.MkdirTemp(b.CacheDir, "build-")
	if err != nil {
		return Image{}, fmt.Errorf("creating build dir: %w", err)
	}
	defer os.RemoveAll(work)
	kver, tree, err := assemble(ctx, work, debs, kpkg.Name)
	if err != nil {
		return Image{}, fmt.Errorf("building lab image: %w", err)
	}
	img.KernelVersion = kver
	ctl, err := controllerTree(ctx, filepath.Join(work, "stage"))
	if err != nil {
		return Image{}, fmt.Errorf("building lab image: %w", err)
	}
	if err := writeImage(work, &img, tree, ctl); err != nil {
		return Image{}, fmt.Errorf("building lab image: %w", err)
	}
	img.BuildTime = time.Since(t1)
	b.log().Info("lab image built", "hash", hash, "kernel", kver, "took", img.BuildTime.Round(time.Millisecond))
	return img, nil
}

var xzMagic = []byte{0xfd, '7', 'z', 'X', 'Z', 0x00}

// uncompressKernel extracts the ELF vmlinux from an xz-compressed bzImage with the host's xz.
func uncompressKernel(bz []byte) ([]byte, error) {
	i := bytes.Index(bz, xzMagic)
	if i < 0 {
		return nil, errors.New("no xz stream in the kernel image")
	}
	cmd := exec.Command("xz", "-dc", "--single-stream")
	cmd.Stdin = bytes.NewReader(bz[i:])
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("uncompressing the kernel: %w", err)
	}
	if !bytes.HasPrefix(out, []byte("\x7fELF")) {
		return nil, errors.New("uncompressed kernel is not an ELF file")
	}
	return out, nil
}

func fileExists(p string) bool { st, err := os.Stat(p); return err == nil && st.Size() > 0 }

// lockDir takes an exclusive flock on DIR/.lock, waiting until ctx ends.
func lockDir(ctx context.Context, dir string) (func(), error) {
	f, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("locking cache dir: %w", err)
	}
	for {
		if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err == nil {
			return func() { _ = unix.Flock(int(f.Fd()), unix.LOCK_UN); f.Close() }, nil
		} else if !errors.Is(err, unix.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("locking cache dir: %w", err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("waiting for the cache lock (another build running): %w", ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// unpack extracts the .debs: the kernel into work/kpkg, everything else into work/stage.
func unpack(ctx context.Context, work string, debs map[string]string, kernelPkg string) error {
	names := make([]string, 0, len(debs))
	for n := range debs {
		names = append(names, n)
	}
	sort.Strings(names)
	errc := make(chan error, 1)
	go func() { errc <- dpkgX(ctx, debs[kernelPkg], filepath.Join(work, "kpkg")) }()
	var firstErr error
	for _, n := range names {
		if n == kernelPkg {
			continue
		}
		if err := dpkgX(ctx, debs[n], filepath.Join(work, "stage")); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	if err := <-errc; err != nil && firstErr == nil {
		firstErr = err
	}
	return firstErr
}

func dpkgX(ctx context.Context, deb, dir string) error {
	if out, err := exec.CommandContext(ctx, "dpkg-deb", "-x", deb, dir).CombinedOutput(); err != nil {
		return fmt.Errorf("unpacking %s: %w: %s", filepath.Base(deb), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// staged runs a program of the stage with the staged loader and libraries.
func staged(ctx context.Context, stage string, args ...string) ([]byte, error) {
	ldso := filepath.Join(stage, "lib/x86_64-linux-gnu/ld-linux-x86-64.so.2")
	cmd := exec.CommandContext(ctx, ldso, append([]string{"--library-path", stagedLibraryPath(stage)}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// assemble unpacks, runs depmod and builds the file tree of the initramfs.
func assemble(ctx context.Context, work string, debs map[string]string, kernelPkg string) (string, *Tree, error) {
	if err := unpack(ctx, work, debs, kernelPkg); err != nil {
		return "", nil, err
	}
	kdir, stage := filepath.Join(work, "kpkg"), filepath.Join(work, "stage")
	kvers, err := os.ReadDir(filepath.Join(kdir, "lib/modules"))
	if err != nil || len(kvers) != 1 {
		return "", nil, fmt.Errorf("finding the kernel version in %s: want one lib/modules/<version> directory", kernelPkg)
	}
	kver := kvers[0].Name()
	// the kernel .deb ships no modules.dep (its postinst runs depmod): run the staged kmod as depmod
	if _, err := staged(ctx, stage, "--argv0", "depmod", filepath.Join(stage, "bin/kmod"), "-b", kdir, kver); err != nil {
		return "", nil, fmt.Errorf("running depmod: %w", err)
	}
	mdir := filepath.Join(kdir, "lib/modules", kver)
	f, err := os.Open(filepath.Join(mdir, "modules.dep"))
	if err != nil {
		return "", nil, fmt.Errorf("reading modules.dep: %w", err)
	}
	deps, err := ParseModulesDep(f)
	f.Close()
	if err != nil {
		return "", nil, err
	}
	order, err := deps.LoadOrder(Modules)
	if err != nil {
		return "", nil, err
	}
	t := NewTree()
	for _, m := range order {
		t.File(filepath.Join("lib/modules", kver, m), 0o644, filepath.Join(mdir, m))
	}
	t.Bytes("lab/modules.load-order", 0o644, []byte(strings.Join(order, "\n")+"\n"))
	t.Bytes("lab/kver", 0o644, []byte(kver+"\n"))
	t.File("vmlinuz", 0o644, filepath.Join(kdir, "boot", "vmlinuz-"+kver)) // removed before writing; see writeImage

	if err := addBinaries(ctx, t, stage); err != nil {
		return "", nil, err
	}
	if err := addBusybox(ctx, t, stage); err != nil {
		return "", nil, err
	}
	if err := addConfig(t, stage); err != nil {
		return "", nil, err
	}
	return kver, t, nil
}

func addBinaries(ctx context.Context, t *Tree, stage string) error {
	if err := addWithClosure(ctx, t, stage, append(append([]string{}, Binaries...), DlopenedFiles...)); err != nil {
		return err
	}
	// the loader under both names: /lib64 (the ELF interpreter) and the multiarch directory
	for _, l := range []string{"lib64/ld-linux-x86-64.so.2", "lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"} {
		if err := t.CopyFromStage(stage, l); err != nil {
			return err
		}
	}
	return addSlurm(ctx, t, stage)
}

// addWithClosure copies the files at rels (inside the stage) and every shared library the staged
// loader resolves for them.
func addWithClosure(ctx context.Context, t *Tree, stage string, rels []string) error {
	for _, rel := range rels {
		if err := t.CopyFromStage(stage, rel); err != nil {
			return err
		}
		out, err := staged(ctx, stage, "--list", filepath.Join(stage, rel))
		if err != nil {
			return fmt.Errorf("listing shared libraries of %s: %w", rel, err)
		}
		libs, err := ParseLdList(string(out))
		if err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		rels, err := StagedPaths(stage, libs)
		if err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		for _, l := range rels {
			if err := t.CopyFromStage(stage, l); err != nil {
				return err
			}
		}
	}
	return nil
}

// addBusybox links every busybox applet that no real binary provides, into /bin. Applets never
// shadow a real program (ip, tc, ...) in any PATH directory.
func addBusybox(ctx context.Context, t *Tree, stage string) error {
	t.File("bin/busybox", 0o755, filepath.Join(stage, "bin/busybox"))
	out, err := exec.CommandContext(ctx, filepath.Join(stage, "bin/busybox"), "--list").Output()
	if err != nil {
		return fmt.Errorf("listing busybox applets: %w", err)
	}
	for _, a := range strings.Fields(string(out)) {
		if a == "busybox" || a == "init" || a == "linuxrc" {
			continue
		}
		shadow := false
		for _, d := range []string{"bin", "sbin", "usr/bin", "usr/sbin", "usr/local/bin"} {
			if t.Has(d + "/" + a) {
				shadow = true
			}
		}
		if !shadow {
			t.Symlink("bin/"+a, "busybox")
		}
	}
	t.Symlink("bin/sh", "busybox")
	return nil
}

func addConfig(t *Tree, stage string) error {
	for _, d := range []string{"proc", "sys", "dev", "run", "tmp", "mnt/host", "root", "var/empty", "etc/ssh"} {
		t.Dir(d, 0o755)
	}
	t.Dir("tmp", 0o1777)
	t.Dir("root", 0o700)
	t.CharDev("dev/console", 0o600, 5, 1)
	t.CharDev("dev/null", 0o666, 1, 3)
	t.Bytes("etc/passwd", 0o644, []byte("root:x:0:0:root:/root:/bin/bash\nsshd:x:100:65534::/run/sshd:/usr/sbin/nologin\ntcpdump:x:101:101::/nonexistent:/bin/false\n_lldpd:x:102:102::/run/lldpd:/usr/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"))
	t.Bytes("etc/group", 0o644, []byte("root:x:0:\ntcpdump:x:101:\n_lldpd:x:102:\nnogroup:x:65534:\n"))
	t.Symlink("usr/sbin/lldpctl", "lldpcli")
	t.Bytes("etc/nsswitch.conf", 0o644, []byte("passwd: files\ngroup: files\nshadow: files\nhosts: files\n"))
	t.Bytes("etc/hosts", 0o644, []byte("127.0.0.1 localhost\n"))
	t.Bytes("etc/shells", 0o644, []byte("/bin/sh\n/bin/bash\n"))
	if err := t.CopyFromStage(stage, "etc/libibverbs.d/rxe.driver"); err != nil {
		return err
	}
	for _, d := range []string{"etc/iproute2", "usr/lib/x86_64-linux-gnu/tc"} {
		if _, err := os.Stat(filepath.Join(stage, d)); err == nil {
			if err := t.CopyDirFromStage(stage, d); err != nil {
				return err
			}
		}
	}
	guest := func(name string) []byte { b, _ := guestFS.ReadFile("guest/" + name); return b }
	t.Bytes("init", 0o755, guest("init"))
	t.Bytes("etc/inittab", 0o644, guest("inittab"))
	t.Bytes("etc/ssh/sshd_config", 0o644, guest("sshd_config"))
	t.Bytes("etc/lldpd.conf", 0o644, guest("lldpd.conf"))
	t.Bytes("lab/lib.sh", 0o644, guest("lib.sh"))
	bins, err := fs.ReadDir(guestFS, "guest/bin")
	if err != nil {
		return err
	}
	for _, e := range bins {
		t.Bytes("lab/bin/"+e.Name(), 0o755, guest("bin/"+e.Name()))
		t.Symlink("usr/local/bin/"+e.Name(), "/lab/bin/"+e.Name())
	}
	return nil
}

// writeImage writes vmlinuz, initrd.img and manifest.json into img.Dir (atomically: a temporary
// directory renamed into place).
func writeImage(work string, img *Image, t *Tree, ctl *Tree) error {
	kern, _ := t.Get("vmlinuz")
	delete(t.entries, "vmlinuz")
	tmp := filepath.Join(work, "out")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return err
	}
	kdata, err := os.ReadFile(kern.Src)
	if err != nil {
		return fmt.Errorf("reading the kernel: %w", err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "vmlinuz"), kdata, 0o644); err != nil {
		return err
	}
	// The uncompressed kernel boots through its PVH entry point, skipping the xz decompressor,
	// which costs seconds of emulated CPU per VM. Without a host xz the bzImage is used.
	if raw, err := uncompressKernel(kdata); err == nil {
		if err := os.WriteFile(filepath.Join(tmp, "vmlinux"), raw, 0o644); err != nil {
			return err
		}
		img.Kernel = filepath.Join(img.Dir, "vmlinux")
	}
	f, err := os.Create(filepath.Join(tmp, "initrd.img"))
	if err != nil {
		return err
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestSpeed)
	if err := t.WriteCpio(zw); err != nil {
		f.Close()
		return fmt.Errorf("writing initramfs: %w", err)
	}
	if err := zw.Close(); err != nil {
		f.Close()
		return fmt.Errorf("writing initramfs: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing initramfs: %w", err)
	}
	if ctl != nil {
		if err := ctl.WriteDir(filepath.Join(tmp, "controller")); err != nil {
			return fmt.Errorf("writing the controller tree: %w", err)
		}
		img.Controller = filepath.Join(img.Dir, "controller")
	}
	m, _ := json.MarshalIndent(img, "", "  ")
	if err := os.WriteFile(filepath.Join(tmp, "manifest.json"), append(m, '\n'), 0o644); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(img.Dir), 0o755); err != nil {
		return err
	}
	_ = os.RemoveAll(img.Dir)
	if err := os.Rename(tmp, img.Dir); err != nil {
		return fmt.Errorf("installing image: %w", err)
	}
	return nil
}
