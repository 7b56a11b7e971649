package image

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// SlurmPluginDir is where Debian's slurm-wlm packages keep Slurm's plugins and libslurmfull.so
// (also the binaries' RUNPATH).
const SlurmPluginDir = "usr/lib/x86_64-linux-gnu/slurm-wlm"

// SlurmBinaries run in the guests: slurmd (which execs /usr/sbin/slurmstepd for every job step),
// munged for its authentication, scontrol for health checks that drain their own node, and
// sinfo/munge/unmunge for debugging. Debian names the daemons *-wlm and points /usr/sbin/slurmd at
// them through alternatives; the image links them directly (SlurmLinks).
var SlurmBinaries = []string{
	"usr/sbin/slurmd-wlm", "usr/sbin/slurmstepd-wlm", "usr/sbin/munged",
	"usr/bin/scontrol", "usr/bin/sinfo", "usr/bin/munge", "usr/bin/unmunge",
}

// SlurmLinks are the alternatives' links: name → target (both inside the image).
var SlurmLinks = map[string]string{
	"usr/sbin/slurmd":     "slurmd-wlm",
	"usr/sbin/slurmstepd": "slurmstepd-wlm",
	"usr/sbin/slurmctld":  "slurmctld-wlm",
}

// SlurmPlugins are the plugins (in SlurmPluginDir, without ".so") the lab's slurm.conf needs:
// MUNGE authentication and credentials, whole-CPU selection, process-group tracking, no task
// binding, no accounting, the builtin scheduler; slurmd 22.05 initialises a cgroup plugin however
// it tracks processes, and finds cgroup/v1 on the tmpfs lab-slurm mounts at /sys/fs/cgroup. Slurm loads them with dlopen, so ld.so --list of
// the binaries does not see them; each is copied with its own closure.
var SlurmPlugins = []string{
	"libslurmfull", "auth_munge", "cred_munge", "hash_k12",
	"select_cons_tres", "select_linear", "proctrack_pgid", "proctrack_linuxproc", "task_none",
	"switch_none", "mpi_none", "launch_slurm", "topology_none", "route_default",
	"jobacct_gather_none", "acct_gather_energy_none", "acct_gather_profile_none",
	"acct_gather_interconnect_none", "acct_gather_filesystem_none", "ext_sensors_none",
	"accounting_storage_none", "jobcomp_none", "job_container_none", "core_spec_none",
	"sched_builtin", "priority_basic", "preempt_none", "mcs_none", "power_none", "site_factor_none",
	"cli_filter_none", "prep_script", "cgroup_v1",
}

// ControllerBinaries make up the controller tree (Image.Controller): what runs beside fabricctl
// in the lab namespace — slurmctld and its munged, and the client commands fabricctl's Slurm
// launcher calls (srun, scontrol, sinfo, squeue, salloc, scancel).
var ControllerBinaries = []string{
	"usr/sbin/slurmctld-wlm", "usr/sbin/munged",
	"usr/bin/srun", "usr/bin/scontrol", "usr/bin/sinfo", "usr/bin/squeue", "usr/bin/salloc",
	"usr/bin/scancel", "usr/bin/munge", "usr/bin/unmunge",
}

// ControllerCommands are the wrappers the controller tree has in bin/: each runs the program of
// the same name with the tree's own loader and libraries, so nothing of the build host's C
// library mixes in.
var ControllerCommands = map[string]string{
	"slurmctld": "usr/sbin/slurmctld-wlm", "munged": "usr/sbin/munged",
	"srun": "usr/bin/srun", "scontrol": "usr/bin/scontrol", "sinfo": "usr/bin/sinfo",
	"squeue": "usr/bin/squeue", "salloc": "usr/bin/salloc", "scancel": "usr/bin/scancel",
	"munge": "usr/bin/munge", "unmunge": "usr/bin/unmunge",
}

func slurmPluginFiles() []string {
	out := make([]string, len(SlurmPlugins))
	for i, p := range SlurmPlugins {
		out[i] = path.Join(SlurmPluginDir, p+".so")
	}
	return out
}

// addSlurm adds slurmd, munged and their plugins to the guest tree.
func addSlurm(ctx context.Context, t *Tree, stage string) error {
	if err := addWithClosure(ctx, t, stage, append(append([]string{}, SlurmBinaries...), slurmPluginFiles()...)); err != nil {
		return err
	}
	for name, target := range SlurmLinks {
		if t.Has(path.Join(path.Dir(name), target)) {
			t.Symlink(name, target)
		}
	}
	return nil
}

// controllerTree is the file tree of the controller side: binaries, plugins, the loader and the
// bin/ wrappers.
func controllerTree(ctx context.Context, stage string) (*Tree, error) {
	t := NewTree()
	if err := addWithClosure(ctx, t, stage, append(append([]string{}, ControllerBinaries...), slurmPluginFiles()...)); err != nil {
		return nil, fmt.Errorf("building the controller tree: %w", err)
	}
	for _, l := range []string{"lib64/ld-linux-x86-64.so.2", "lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"} {
		if err := t.CopyFromStage(stage, l); err != nil {
			return nil, err
		}
	}
	for name, prog := range ControllerCommands {
		t.Bytes("bin/"+name, 0o755, []byte(ControllerWrapper(name, prog)))
	}
	return t, nil
}

// ControllerWrapper is the shell script bin/NAME of the controller tree: it runs PROG (a path
// inside the tree) through the tree's loader with the tree's libraries, under its own name.
func ControllerWrapper(name, prog string) string {
	return fmt.Sprintf(`#!/bin/sh
# fabricctl lab: %[1]s from the lab image's pinned Debian packages, with their own loader and libraries
d=$(dirname "$(dirname "$(readlink -f "$0")")")
exec "$d/lib64/ld-linux-x86-64.so.2" --library-path "$d/lib/x86_64-linux-gnu:$d/usr/lib/x86_64-linux-gnu:$d/%[3]s" --argv0 %[1]s "$d/%[2]s" "$@"
`, name, prog, SlurmPluginDir)
}

// WriteDir writes the tree under dir as plain files, directories and links (owned by the caller).
func (t *Tree) WriteDir(dir string) error {
	for _, p := range t.Paths() {
		e := t.entries[p]
		dst := filepath.Join(dir, filepath.FromSlash(p))
		var err error
		switch e.Mode & 0o170000 {
		case modeDir:
			err = os.MkdirAll(dst, os.FileMode(e.Mode&0o7777))
		case modeSymlink:
			err = os.Symlink(string(e.Data), dst)
		case modeRegular:
			data := e.Data
			if data == nil && e.Src != "" {
				if data, err = os.ReadFile(e.Src); err != nil {
					break
				}
			}
			err = os.WriteFile(dst, data, os.FileMode(e.Mode&0o7777))
		default:
			err = fmt.Errorf("unsupported file type %o", e.Mode&0o170000)
		}
		if err != nil {
			return fmt.Errorf("writing %s: %w", p, err)
		}
	}
	return nil
}

// stagedLibraryPath is the staged loader's search path: the multiarch directories and Slurm's
// private one (the RUNPATH of Slurm's binaries, absolute, so it must be given inside the stage).
func stagedLibraryPath(stage string) string {
	return strings.Join([]string{
		filepath.Join(stage, "lib/x86_64-linux-gnu"),
		filepath.Join(stage, "usr/lib/x86_64-linux-gnu"),
		filepath.Join(stage, SlurmPluginDir),
	}, ":")
}
