package lab

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fabricctl/fabricctl/lab/image"
)

// APIVersion tags the JSON the lab writes (state file and scenario results).
const APIVersion = "fabricctl.io/v1alpha1"

// Defaults of Options.
const (
	DefaultStateDir = "/run/fabricctl-lab"
	DefaultNetns    = "fabricctl-lab"
	DefaultMemoryMB = 1024
	DefaultCPUs     = 1
	// DefaultBootTimeout bounds qemu start → every VM answering over SSH.
	DefaultBootTimeout = 120 * time.Second
	// User is the account the controller logs in as on every VM-host.
	User = "root"
)

// ErrNotRunning: no lab state in the state directory.
var ErrNotRunning = errors.New("lab is not running")

// VM is one VM-host as planned and, once started, running.
type VM struct {
	Name    string     `json:"name"`
	Address netip.Addr `json:"address"`
	Prefix  int        `json:"prefix"`
	MAC     string     `json:"mac"`
	Tap     string     `json:"tap"`
	// Netns and Leaf: in a two-leaf lab, the leaf's namespace holding the tap (its port, named
	// like it) and the qemu; empty when the tap is on the lab namespace's bridge.
	Netns   string `json:"netns,omitempty"`
	Leaf    string `json:"leaf,omitempty"`
	Dir     string `json:"dir"`     // per-VM directory under the state dir
	Share   string `json:"share"`   // the 9p share (mount_tag host0, /mnt/host in the guest); results in Share/out
	Console string `json:"console"` // serial console log
	PidFile string `json:"pidFile"`
	Pid     int    `json:"pid,omitempty"`
	// HostKey is the VM's sshd public key in authorized_keys format (also in KnownHosts).
	HostKey string `json:"hostKey,omitempty"`
	// BootSeconds is qemu start → SSH answering, as measured by Up.
	BootSeconds float64 `json:"bootSeconds,omitempty"`
}

// State is a lab: everything `down`, `status`, `exec` and the scenarios need from another
// process. It is stored as JSON in StateDir/state.json.
type State struct {
	APIVersion string   `json:"apiVersion"`
	StateDir   string   `json:"stateDir"`
	Netns      string   `json:"netns"`  // network namespace holding the bridge, the taps and every qemu
	Bridge     string   `json:"bridge"` // the lab's "switch"
	Topology   Topology `json:"topology"`
	VMs        []VM     `json:"vms"`
	// Switches are the switch simulators Up started (see switches.go); Down stops them.
	Switches []SwitchSim `json:"switches,omitempty"`
	// Leaves are the two-leaf lab's leaf switches (leaves.go); Down stops them.
	Leaves []LeafSwitch `json:"leaves,omitempty"`
	// Slurm is the lab's Slurm cluster (lab up --slurm; see slurm.go); Down stops it.
	Slurm      *SlurmCluster `json:"slurm,omitempty"`
	User       string        `json:"user"`       // ssh user on every VM-host
	KeyPath    string        `json:"keyPath"`    // controller's private key (OpenSSH format, ed25519)
	KnownHosts string        `json:"knownHosts"` // known_hosts with every VM's host key, by name and address
	// Image is the kernel/initramfs the VMs booted.
	Image     image.Image `json:"image"`
	MemoryMB  int         `json:"memoryMB"`
	CPUs      int         `json:"cpus"`
	StartedAt time.Time   `json:"startedAt"`

	pool sshPool
}

// Options tune Plan and Up. Zero values mean the defaults above.
type Options struct {
	StateDir    string
	Netns       string
	MemoryMB    int
	CPUs        int
	BootTimeout time.Duration
	Qemu        string // qemu-system-x86_64
	// SwitchSim is the fabricctl binary that Up runs as `fabricctl switch-sim` for each of the
	// topology's switches; it must be set when the topology has switches.
	SwitchSim string
	// Slurm runs a Slurm cluster in the lab: munged and slurmd in every VM, slurmctld and its
	// munged in the lab namespace (slurm.go). Fabricctl is then the binary the guests' health
	// check and srun's tasks run; HealthCheckInterval is slurm.conf's (default 30 s).
	Slurm               bool
	Fabricctl           string
	HealthCheckInterval time.Duration
}

func (o Options) withDefaults() Options {
	if o.StateDir == "" {
		o.StateDir = DefaultStateDir
	}
	if o.Netns == "" {
		o.Netns = DefaultNetns
	}
	if o.MemoryMB == 0 {
		o.MemoryMB = DefaultMemoryMB
	}
	if o.CPUs == 0 {
		o.CPUs = DefaultCPUs
	}
	if o.BootTimeout == 0 {
		o.BootTimeout = DefaultBootTimeout
	}
	if o.Qemu == "" {
		o.Qemu = "qemu-system-x86_64"
	}
	return o
}

// Plan lays out a lab for t without touching the system: tap names, MACs and the files of every
// VM under the state directory.
func Plan(t Topology, o Options) (*State, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	o = o.withDefaults()
	dir, err := filepath.Abs(o.StateDir)
	if err != nil {
		return nil, fmt.Errorf("resolving state dir: %w", err)
	}
	s := &State{
		APIVersion: APIVersion,
		StateDir:   dir,
		Netns:      o.Netns,
		Bridge:     "br0",
		Topology:   t,
		User:       User,
		KeyPath:    filepath.Join(dir, "id_ed25519"),
		KnownHosts: filepath.Join(dir, "known_hosts"),
		MemoryMB:   o.MemoryMB,
		CPUs:       o.CPUs,
	}
	for i, h := range t.Hosts {
		vd := filepath.Join(dir, "vms", h.Name)
		s.VMs = append(s.VMs, VM{
			Name:    h.Name,
			Address: h.Address,
			Prefix:  t.Subnet.Bits(),
			MAC:     MAC(h.Address),
			Tap:     fmt.Sprintf("tap%d", i),
			Dir:     vd,
			Share:   filepath.Join(vd, "share"),
			Console: filepath.Join(vd, "console.log"),
			PidFile: filepath.Join(vd, "qemu.pid"),
		})
	}
	s.planLeaves()
	return s, nil
}

// VM returns the VM-host called name (or with that address).
func (s *State) VM(name string) (VM, error) {
	for _, v := range s.VMs {
		if v.Name == name || v.Address.String() == name {
			return v, nil
		}
	}
	var names []string
	for _, v := range s.VMs {
		names = append(names, v.Name)
	}
	return VM{}, fmt.Errorf("no lab host %q (have %s)", name, strings.Join(names, ", "))
}

// GuestEnv is the lab.env file the guest's /init reads from its share.
func (s *State) GuestEnv(v VM) string {
	var neigh []string
	for _, o := range s.VMs {
		if o.Name != v.Name {
			neigh = append(neigh, o.Address.String()+"="+o.MAC)
		}
	}
	neigh = append(neigh, s.Topology.Controller.String()+"="+MAC(s.Topology.Controller))
	for _, a := range s.Topology.Extra {
		neigh = append(neigh, a.String()+"="+MAC(s.Topology.Controller))
	}
	return fmt.Sprintf("LAB_HOST=%s\nLAB_ADDR=%s/%d\nLAB_GW=%s\nLAB_NEIGH=%q\n",
		v.Name, v.Address, v.Prefix, s.Topology.Controller, strings.Join(neigh, " "))
}

func statePath(dir string) string { return filepath.Join(dir, "state.json") }

// Save writes the state atomically to StateDir/state.json.
func (s *State) Save() error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding lab state: %w", err)
	}
	if err := os.MkdirAll(s.StateDir, 0o700); err != nil {
		return fmt.Errorf("saving lab state: %w", err)
	}
	tmp := statePath(s.StateDir) + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("saving lab state: %w", err)
	}
	if err := os.Rename(tmp, statePath(s.StateDir)); err != nil {
		return fmt.Errorf("saving lab state: %w", err)
	}
	return nil
}

// Load reads the state of the lab whose state directory is dir ("" = DefaultStateDir).
// ErrNotRunning when there is none.
func Load(dir string) (*State, error) {
	if dir == "" {
		dir = DefaultStateDir
	}
	b, err := os.ReadFile(statePath(dir))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("reading %s: %w (run fabricctl lab up)", statePath(dir), ErrNotRunning)
	}
	if err != nil {
		return nil, fmt.Errorf("reading lab state: %w", err)
	}
	var s State
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", statePath(dir), err)
	}
	if s.APIVersion != APIVersion {
		return nil, fmt.Errorf("decoding %s: apiVersion %q, want %q", statePath(dir), s.APIVersion, APIVersion)
	}
	return &s, nil
}
