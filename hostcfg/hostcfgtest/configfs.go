package hostcfgtest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// ConfigFS emulates the rdma_cm part of configfs on a plain directory: it is
// the configfs.DirMaker of a fixture host. Making rdma_cm/<dev> creates
// ports/<n>/default_roce_mode and default_roce_tos holding the kernel's
// values for that port; removing the directory stores the values back, so
// they persist as they do in the kernel. Unknown devices fail with ENODEV.
// Safe for concurrent use.
type ConfigFS struct {
	mu    sync.Mutex
	root  string
	ports map[string]map[int]*roceDefaults // device → port → values
	mkdir int
}

type roceDefaults struct{ mode, tos string }

// NewConfigFS emulates configfs at root for devices: device → port → link layer.
// Ethernet ports start at "RoCE v2", InfiniBand ones at "IB/RoCE v1"; ToS 0.
func NewConfigFS(root string, devices map[string]map[int]string) *ConfigFS {
	c := &ConfigFS{root: root, ports: map[string]map[int]*roceDefaults{}}
	for dev, ports := range devices {
		c.ports[dev] = map[int]*roceDefaults{}
		for p, ll := range ports {
			mode := "RoCE v2"
			if ll == "InfiniBand" {
				mode = "IB/RoCE v1"
			}
			c.ports[dev][p] = &roceDefaults{mode: mode, tos: "0"}
		}
	}
	return c
}

// Mkdirs counts the device directories made so far.
func (c *ConfigFS) Mkdirs() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.mkdir
}

// Values returns the kernel's values for a port (also while its directory exists).
func (c *ConfigFS) Values(dev string, port int) (mode string, tos int, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.ports[dev][port]
	if !ok {
		return "", 0, fmt.Errorf("no port %s/%d: %w", dev, port, syscall.ENODEV)
	}
	dir := c.portDir(dev, port)
	if _, err := os.Stat(dir); err == nil {
		if err := c.capture(dev); err != nil {
			return "", 0, err
		}
	}
	tos, err = strconv.Atoi(v.tos)
	return v.mode, tos, err
}

func (c *ConfigFS) portDir(dev string, port int) string {
	return filepath.Join(c.root, "rdma_cm", dev, "ports", strconv.Itoa(port))
}

func (c *ConfigFS) device(path string) (string, error) {
	dir, dev := filepath.Split(filepath.Clean(path))
	if filepath.Clean(dir) != filepath.Join(c.root, "rdma_cm") {
		return "", fmt.Errorf("mkdir %s: %w", path, syscall.EPERM)
	}
	return dev, nil
}

// Mkdir implements configfs.DirMaker.
func (c *ConfigFS) Mkdir(path string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	dev, err := c.device(path)
	if err != nil {
		return err
	}
	ports, ok := c.ports[dev]
	if !ok {
		return &fs.PathError{Op: "mkdir", Path: path, Err: syscall.ENODEV}
	}
	if err := os.Mkdir(path, 0o755); err != nil {
		return err
	}
	for p, v := range ports {
		dir := c.portDir(dev, p)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := errors.Join(
			writeAttr(filepath.Join(dir, "default_roce_mode"), v.mode),
			writeAttr(filepath.Join(dir, "default_roce_tos"), v.tos)); err != nil {
			return err
		}
	}
	c.mkdir++
	return nil
}

// capture copies the files of dev's directory into the kernel's values,
// refusing what the kernel would have refused.
func (c *ConfigFS) capture(dev string) error {
	for p, v := range c.ports[dev] {
		dir := c.portDir(dev, p)
		mode, err := os.ReadFile(filepath.Join(dir, "default_roce_mode"))
		if err != nil {
			return err
		}
		tos, err := os.ReadFile(filepath.Join(dir, "default_roce_tos"))
		if err != nil {
			return err
		}
		m, t := strings.TrimSpace(string(mode)), strings.TrimSpace(string(tos))
		if m != "RoCE v2" && m != "IB/RoCE v1" {
			return fmt.Errorf("%s/default_roce_mode holds %q: %w", dir, m, syscall.EINVAL)
		}
		if n, err := strconv.ParseUint(t, 10, 8); err != nil || strconv.Itoa(int(n)) != t {
			return fmt.Errorf("%s/default_roce_tos holds %q: %w", dir, t, syscall.EINVAL)
		}
		v.mode, v.tos = m, t
	}
	return nil
}

// Rmdir implements configfs.DirMaker.
func (c *ConfigFS) Rmdir(path string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	dev, err := c.device(path)
	if err != nil {
		return err
	}
	if _, ok := c.ports[dev]; !ok {
		return &fs.PathError{Op: "rmdir", Path: path, Err: syscall.ENOENT}
	}
	if err := c.capture(dev); err != nil {
		return err
	}
	return os.RemoveAll(path)
}

// writeAttr creates an attribute file whole (a temporary file renamed into
// place): configfs attributes never read empty, and another process may read
// this one while the emulated mkdir runs.
func writeAttr(path, value string) error {
	tmp := path + ".new"
	if err := os.WriteFile(tmp, []byte(value+"\n"), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
