package image

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/internal/testutil"
)

func TestTreeWriteDir(t *testing.T) {
	src := filepath.Join(t.TempDir(), "src")
	if err := os.WriteFile(src, []byte("ELF"), 0o755); err != nil {
		t.Fatal(err)
	}
	tr := NewTree()
	tr.File("usr/sbin/slurmd-wlm", 0o755, src)
	tr.Symlink("usr/sbin/slurmd", "slurmd-wlm")
	tr.Bytes("bin/srun", 0o755, []byte(ControllerWrapper("srun", "usr/bin/srun")))
	tr.Dir("var/spool", 0o700)
	dir := t.TempDir()
	if err := tr.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "usr/sbin/slurmd")); err != nil || string(b) != "ELF" {
		t.Errorf("link usr/sbin/slurmd → slurmd-wlm: %q %v", b, err)
	}
	if st, err := os.Stat(filepath.Join(dir, "bin/srun")); err != nil || st.Mode().Perm() != 0o755 {
		t.Errorf("bin/srun: %v %v", st, err)
	}
	if st, err := os.Stat(filepath.Join(dir, "var/spool")); err != nil || !st.IsDir() || st.Mode().Perm() != 0o700 {
		t.Errorf("var/spool: %v %v", st, err)
	}
}

func TestControllerWrapperGolden(t *testing.T) {
	testutil.Golden(t, "controller-wrapper.golden", []byte(ControllerWrapper("srun", ControllerCommands["srun"])))
}

// TestSlurmInputsInHash: the Slurm lists are inputs of the image.
func TestSlurmInputsInHash(t *testing.T) {
	before := InputHash(DefaultLock())
	SlurmPlugins = append(SlurmPlugins, "extra_plugin")
	defer func() { SlurmPlugins = SlurmPlugins[:len(SlurmPlugins)-1] }()
	if InputHash(DefaultLock()) == before {
		t.Error("adding a Slurm plugin does not change the image hash")
	}
	for _, b := range append(append([]string{}, SlurmBinaries...), ControllerBinaries...) {
		if !strings.HasPrefix(b, "usr/") {
			t.Errorf("%s: binaries are paths inside the packages", b)
		}
	}
}
