package configfs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fabricctl/fabricctl/hostcfg/internal/kfs"
)

// DefaultRoot is where configfs is mounted on a live host.
const DefaultRoot = "/sys/kernel/config"

// RoCE modes as default_roce_mode spells them.
const (
	ModeV1 = "IB/RoCE v1"
	ModeV2 = "RoCE v2"
)

// Sentinels for errors.Is.
var (
	// ErrNoRDMACM: configfs has no rdma_cm directory (the rdma_cm module is not loaded).
	ErrNoRDMACM = errors.New("no rdma_cm in configfs")
	// ErrNoDevice: mkdir rdma_cm/<dev> failed with ENODEV: the kernel knows no such RDMA device.
	ErrNoDevice = errors.New("no such rdma device")
	// ErrNoPort: the device directory has no ports/<n>.
	ErrNoPort = errors.New("no such rdma port")
)

// DirMaker makes and removes configfs directories. The kernel creates
// ports/<n>/ with its attribute files inside a new rdma_cm/<dev>; tests
// substitute an emulation of that for a plain directory tree.
type DirMaker interface {
	Mkdir(path string) error
	Rmdir(path string) error
}

type osDirs struct{}

func (osDirs) Mkdir(p string) error { return os.Mkdir(p, 0o755) }
func (osDirs) Rmdir(p string) error { return syscall.Rmdir(p) }

// FS is a configfs tree: DefaultRoot on a live host, a fixture directory in tests.
type FS struct {
	root  string
	dirs  DirMaker
	mount func(target string) error
	// mu serialises the mkdir/use/rmdir cycles of this FS and its copies, so
	// that one caller never removes a device directory another is using.
	mu *sync.Mutex
}

// NewFS returns the configfs tree mounted at root. When root is DefaultRoot
// and configfs is not mounted there, the first call that needs rdma_cm mounts it.
func NewFS(root string) FS {
	root = filepath.Clean(root)
	f := FS{root: root, dirs: osDirs{}, mu: new(sync.Mutex)}
	if root == DefaultRoot {
		f.mount = mountConfigfs
	}
	return f
}

// NewFSWith returns the tree at root whose directories are made by d; it never mounts.
func NewFSWith(root string, d DirMaker) FS {
	return FS{root: filepath.Clean(root), dirs: d, mu: new(sync.Mutex)}
}

// Root returns the directory the tree is rooted at.
func (f FS) Root() string { return f.root }

// Path joins elem below the root.
func (f FS) Path(elem ...string) string { return kfs.Join(f.root, elem...) }

const configfsMagic = 0x62656570 // CONFIGFS_MAGIC

func mountConfigfs(target string) error {
	var st unix.Statfs_t
	if err := unix.Statfs(target, &st); err == nil && st.Type == configfsMagic {
		return nil
	}
	if err := unix.Mount("configfs", target, "configfs", 0, ""); err != nil {
		return fmt.Errorf("mounting configfs on %s: %w", target, err)
	}
	return nil
}

// Ready checks that rdma_cm exists below the root, mounting configfs first
// when this FS may. It wraps ErrNoRDMACM when rdma_cm is still missing.
func (f FS) Ready(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	dir := f.Path("rdma_cm")
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	if f.mount != nil {
		if err := f.mount(f.root); err != nil {
			return err
		}
		if _, err := os.Stat(dir); err == nil {
			return nil
		}
	}
	return fmt.Errorf("finding %s (is the rdma_cm module loaded?): %w", dir, ErrNoRDMACM)
}

// withPort runs fn on rdma_cm/<dev>/ports/<port>. When rdma_cm/<dev> does not
// exist it is made first and removed afterwards; the kernel keeps the values
// written meanwhile. A directory that already existed is left in place.
//
// Another process (a second fabricctl: Slurm's health check while a sweep's
// preflight runs) may do the same at once, so the directory this call found
// may be removed under it, before or while fn runs. Then the attempt is made
// again, up to sharedAttempts times: only a port missing from a directory
// this call made itself, or still missing after every attempt, is ErrNoPort.
func (f FS) withPort(ctx context.Context, dev string, port int, fn func(dir string) error) error {
	if !kfs.ValidName(dev) {
		return fmt.Errorf("%q is not an rdma device name: %w", dev, ErrNoDevice)
	}
	if err := f.Ready(ctx); err != nil {
		return err
	}
	if f.mu != nil {
		f.mu.Lock()
		defer f.mu.Unlock()
	}
	var err error
	for attempt := 1; ; attempt++ {
		var shared bool
		shared, err = f.onceWithPort(dev, port, fn)
		if !shared || !errors.Is(err, fs.ErrNotExist) || attempt == sharedAttempts {
			break
		}
		select {
		case <-ctx.Done():
			return errors.Join(err, ctx.Err())
		case <-time.After(time.Duration(attempt) * time.Millisecond):
		}
	}
	return err
}

// sharedAttempts bounds the attempts of withPort on a directory that other
// processes make and remove.
const sharedAttempts = 20

// onceWithPort makes one attempt; shared reports that the device directory
// was not made by this attempt (another process may remove it).
func (f FS) onceWithPort(dev string, port int, fn func(dir string) error) (shared bool, err error) {
	devDir := f.Path("rdma_cm", dev)
	shared = true
	if _, serr := os.Stat(devDir); errors.Is(serr, fs.ErrNotExist) {
		switch merr := f.dirs.Mkdir(devDir); {
		case merr == nil:
			shared = false
			defer func() {
				if rerr := f.dirs.Rmdir(devDir); rerr != nil {
					err = errors.Join(err, fmt.Errorf("removing %s: %w", devDir, rerr))
				}
			}()
		case errors.Is(merr, syscall.ENODEV):
			return false, fmt.Errorf("making %s: %w (%w)", devDir, ErrNoDevice, merr)
		case errors.Is(merr, fs.ErrExist):
			// made by someone else meanwhile: use it, leave it
		default:
			return false, fmt.Errorf("making %s: %w", devDir, merr)
		}
	}
	portDir := filepath.Join(devDir, "ports", strconv.Itoa(port))
	if _, serr := os.Stat(portDir); serr != nil {
		return shared, fmt.Errorf("finding %s: %w (%w)", portDir, ErrNoPort, serr)
	}
	return shared, fn(portDir)
}

// Mode reads rdma_cm/<dev>/ports/<port>/default_roce_mode.
func (f FS) Mode(ctx context.Context, dev string, port int) (string, error) {
	var mode string
	err := f.withPort(ctx, dev, port, func(dir string) error {
		v, err := kfs.ReadLine(ctx, filepath.Join(dir, "default_roce_mode"))
		mode = v
		return err
	})
	return mode, err
}

// SetMode writes ModeV1 or ModeV2 to rdma_cm/<dev>/ports/<port>/default_roce_mode.
// Devices refuse modes they lack with EINVAL (rxe takes only ModeV2).
func (f FS) SetMode(ctx context.Context, dev string, port int, mode string) error {
	if mode != ModeV1 && mode != ModeV2 {
		return fmt.Errorf("setting default_roce_mode of %s/%d: %q is not %q or %q", dev, port, mode, ModeV1, ModeV2)
	}
	return f.withPort(ctx, dev, port, func(dir string) error {
		return kfs.WriteLine(ctx, filepath.Join(dir, "default_roce_mode"), mode)
	})
}

// ToS reads rdma_cm/<dev>/ports/<port>/default_roce_tos (decimal u8).
func (f FS) ToS(ctx context.Context, dev string, port int) (int, error) {
	var tos int
	err := f.withPort(ctx, dev, port, func(dir string) error {
		p := filepath.Join(dir, "default_roce_tos")
		v, err := kfs.ReadLine(ctx, p)
		if err != nil {
			return err
		}
		n, err := strconv.ParseUint(v, 10, 8)
		if err != nil {
			return fmt.Errorf("reading %s: %q is not a decimal u8", p, v)
		}
		tos = int(n)
		return nil
	})
	return tos, err
}

// SetToS writes tos (0..255) to rdma_cm/<dev>/ports/<port>/default_roce_tos.
func (f FS) SetToS(ctx context.Context, dev string, port int, tos int) error {
	if tos < 0 || tos > 255 {
		return fmt.Errorf("setting default_roce_tos of %s/%d: %d is not 0..255", dev, port, tos)
	}
	return f.withPort(ctx, dev, port, func(dir string) error {
		return kfs.WriteLine(ctx, filepath.Join(dir, "default_roce_tos"), strconv.Itoa(tos))
	})
}
