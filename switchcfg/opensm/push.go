package opensm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/fabricctl/fabricctl/fabric"
)

// Defaults of a stock OpenSM installation.
const (
	DefaultPartitionsFile = "/etc/opensm/partitions.conf"
	DefaultPIDFile        = "/var/run/opensm.pid"
	DefaultProcessName    = "opensm"
	// BackupSuffix is appended to the partitions file's path for the copy
	// taken before a push.
	BackupSuffix = ".fabricctl.bak"
)

var (
	// ErrNotRunning: no process to signal (no live pidfile, pidof found none).
	ErrNotRunning = errors.New("subnet manager process not running")
	// ErrVerify: after the write and SIGHUP, the file or the process is not
	// what the push meant; the push was rolled back.
	ErrVerify = errors.New("verification failed")
)

// Signal names a signal as kill(1) spells it.
type Signal string

const (
	// SIGHUP makes OpenSM re-read partitions.conf and re-sweep.
	SIGHUP Signal = "HUP"
	// SignalCheck (signal 0) only checks that the process exists.
	SignalCheck Signal = "0"
)

// Process says how to find the subnet manager: the pid in PIDFile when that
// file exists and names a live process called Name, otherwise every process
// called Name (pidof).
type Process struct {
	PIDFile string
	Name    string
}

// Remote is the file and process access a push needs on the subnet
// manager's host. NewRemote builds one over any command Runner (SSH or local);
// tests use an in-memory fake.
type Remote interface {
	// ReadFile returns the file's bytes; an absent file is an error wrapping
	// fs.ErrNotExist.
	ReadFile(ctx context.Context, path string) ([]byte, error)
	// WriteFileAtomic replaces path with data so that readers see the old or
	// the new content, never a mix; when backupPath is not empty and path
	// exists, it first copies path to backupPath keeping mode and owner.
	WriteFileAtomic(ctx context.Context, path string, data []byte, backupPath string) error
	// Remove deletes path; an absent file is not an error.
	Remove(ctx context.Context, path string) error
	// Signal sends sig to the process; ErrNotRunning when there is none.
	Signal(ctx context.Context, p Process, sig Signal) error
}

// Pusher writes partitions.conf on one subnet manager host and reloads OpenSM.
// Zero fields take the stock defaults. A Pusher is safe for concurrent use
// only on different hosts: two pushes to one file race like two editors.
type Pusher struct {
	Remote Remote
	// Path of partitions.conf (DefaultPartitionsFile when empty).
	Path string
	// BackupPath receives the previous file (Path+BackupSuffix when empty).
	BackupPath string
	// Process to reload (DefaultPIDFile, DefaultProcessName when empty).
	Process Process
	// Settle is how long to wait after SIGHUP before checking that OpenSM
	// still runs (1s when zero).
	Settle time.Duration
	// Fabric, when set, proves a push on the fabric itself: after the
	// SIGHUP, OpenSM's log must show a completed sweep and no partition
	// error (its silent fallback), and every CA port's P_Key table must
	// hold exactly the intended memberships; otherwise the push is rolled
	// back. Without it, only the file and the process are checked.
	Fabric *FabricReader
}

// PushResult reports what Push did.
type PushResult struct {
	// Changed is true when the file was written and OpenSM reloaded.
	Changed bool `json:"changed"`
	// Diffs is how the live table differed from the desired one before the
	// push (empty when nothing changed).
	Diffs []Diff `json:"diffs,omitempty"`
	// Extras are settings of the previous file that the new one dropped.
	Extras []Extra `json:"extras,omitempty"`
	// Backup is where the previous file was copied ("" when there was none).
	Backup string `json:"backup,omitempty"`
	// RolledBack is true when verification failed and the previous file was
	// put back (and OpenSM signalled again).
	RolledBack bool `json:"rolledBack,omitempty"`
}

// NewPusher returns a Pusher for sm's host: its partitions file is
// sm.PartitionsFile (DefaultPartitionsFile when empty), its process the one
// sm.PIDFile names (DefaultPIDFile when empty). When r is a CommandRemote
// and sm.Verify is not "file", the push is proven on the fabric: OpenSM's
// log (sm.LogFile, DefaultLogFile when empty) and every port's P_Key table,
// read with the infiniband-diags through the same Runner.
func NewPusher(r Remote, sm fabric.SubnetManagerIntent) *Pusher {
	p := &Pusher{Remote: r, Path: sm.PartitionsFile, Process: Process{PIDFile: sm.PIDFile}}
	if c, ok := r.(*CommandRemote); ok && sm.Verify != "file" {
		log := sm.LogFile
		if log == "" {
			log = DefaultLogFile
		}
		p.Fabric = &FabricReader{Diag: c.R, LogFile: log, Logs: c}
	}
	return p
}

func (p *Pusher) path() string {
	if p.Path != "" {
		return p.Path
	}
	return DefaultPartitionsFile
}

func (p *Pusher) backup() string {
	if p.BackupPath != "" {
		return p.BackupPath
	}
	return p.path() + BackupSuffix
}

func (p *Pusher) process() Process {
	proc := p.Process
	if proc.PIDFile == "" {
		proc.PIDFile = DefaultPIDFile
	}
	if proc.Name == "" {
		proc.Name = DefaultProcessName
	}
	return proc
}

// Observe reads and parses the live partitions.conf. An absent file is not
// an error: the result is an empty File (OpenSM then runs with only its
// Default partition, every port a full member).
func (p *Pusher) Observe(ctx context.Context) (*File, error) {
	data, err := p.Remote.ReadFile(ctx, p.path())
	if errors.Is(err, fs.ErrNotExist) {
		return &File{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("observing %s: %w", p.path(), err)
	}
	f, err := ParseFile(string(data))
	if err != nil {
		return nil, fmt.Errorf("parsing %s: %w", p.path(), err)
	}
	return f, nil
}

// Plan returns how the live table differs from what Render would write.
// It renders the file first, so what Push would refuse (a host without
// GUIDs, a rendering OpenSM's grammar would misread) fails the plan too.
func (p *Pusher) Plan(ctx context.Context, sm fabric.SubnetManagerIntent, guids map[string][]string) ([]Diff, error) {
	if _, err := Render(sm, guids); err != nil {
		return nil, fmt.Errorf("planning %s: %w", sm.Name, err)
	}
	want, err := Desired(sm.Partitions, guids)
	if err != nil {
		return nil, fmt.Errorf("planning %s: %w", sm.Name, err)
	}
	live, err := p.Observe(ctx)
	if errors.Is(err, ErrSyntax) {
		return []Diff{unreadable(p.path(), err)}, nil
	}
	if err != nil {
		return nil, err
	}
	return Compare(want, live.Partitions), nil
}

// unreadable is the difference of a live file OpenSM reads otherwise than
// it says: the whole file is to be replaced.
func unreadable(path string, err error) Diff {
	var pe *ParseError
	got := err.Error()
	if errors.As(err, &pe) {
		got = path + ":" + pe.Error()
	}
	return Diff{Field: "file", Want: "as rendered", Got: "unreadable: " + got}
}

// Push makes the subnet manager's partition table the one sm describes:
//
//  1. read the live file (its bytes are the pre-image); if it already means
//     the desired table, stop: no write, no SIGHUP (Changed false);
//  2. copy it to the backup path (cp -p) and write the rendering atomically;
//  3. SIGHUP OpenSM (pidfile, else pidof);
//  4. verify: the file reads back byte for byte, parses to the desired table,
//     and OpenSM is still running after Settle;
//  5. if 3 or 4 fails, put the pre-image back (or remove the file when there
//     was none), SIGHUP again, and return an error wrapping ErrVerify or the
//     signalling error, with RolledBack set.
//
// A live file that does not parse (OpenSM would misread it, or has already
// fallen back to its default configuration over it) is replaced like any
// other; the backup keeps it, and a failed push puts it back.
func (p *Pusher) Push(ctx context.Context, sm fabric.SubnetManagerIntent, guids map[string][]string) (PushResult, error) {
	var res PushResult
	text, err := Render(sm, guids)
	if err != nil {
		return res, err
	}
	want, err := Desired(sm.Partitions, guids)
	if err != nil {
		return res, err
	}
	path := p.path()
	old, err := p.Remote.ReadFile(ctx, path)
	existed := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return res, fmt.Errorf("reading %s: %w", path, err)
	}
	if existed {
		live, err := ParseFile(string(old))
		if err != nil {
			// OpenSM reads it otherwise than it says (a syntax error puts
			// the fabric on its default fallback): replace it, keeping
			// the backup, rather than leave the fabric so.
			res.Diffs = []Diff{unreadable(path, err)}
		} else {
			res.Diffs = Compare(want, live.Partitions)
			res.Extras = live.Extras
			if len(res.Diffs) == 0 {
				res.Extras = nil
				return res, nil
			}
		}
	} else {
		res.Diffs = Compare(want, nil)
	}
	backup := ""
	if existed {
		backup = p.backup()
	}
	var logFrom int64
	if p.Fabric != nil {
		if logFrom, err = p.Fabric.logSize(ctx); err != nil {
			return res, fmt.Errorf("reading OpenSM's log before the push: %w", err)
		}
	}
	if err := p.Remote.WriteFileAtomic(ctx, path, []byte(text), backup); err != nil {
		return res, fmt.Errorf("writing %s: %w", path, err)
	}
	res.Changed, res.Backup = true, backup
	proc := p.process()
	err = p.Remote.Signal(ctx, proc, SIGHUP)
	if err != nil {
		err = fmt.Errorf("reloading %s: %w", proc.Name, err)
	} else {
		err = p.verify(ctx, path, text, want, proc)
	}
	if err == nil && p.Fabric != nil {
		err = p.verifyFabric(ctx, want, logFrom)
	}
	if err == nil {
		return res, nil
	}
	res.RolledBack = true
	return res, errors.Join(err, p.rollback(ctx, path, old, existed, proc))
}

// verifyFabric waits for OpenSM's sweep after the reload, fails on a
// partition error in its log, then compares every CA port's P_Key table
// with want.
func (p *Pusher) verifyFabric(ctx context.Context, want []fabric.PartitionIntent, logFrom int64) error {
	if err := p.Fabric.WaitSweep(ctx, logFrom); err != nil {
		return fmt.Errorf("%w: %w", ErrVerify, err)
	}
	obs, err := p.Fabric.Observe(ctx)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrVerify, err)
	}
	if d := ComparePorts(want, obs); len(d) > 0 {
		return fmt.Errorf("%w: %d port memberships differ from the intent after the reload, first %v", ErrVerify, len(d), d[0])
	}
	return nil
}

// PlanFabric reads the subnet's ports and returns how their P_Key tables
// differ from sm's partitions, and the GUID members no port has. It needs
// Fabric.
func (p *Pusher) PlanFabric(ctx context.Context, sm fabric.SubnetManagerIntent, guids map[string][]string) ([]PortDiff, []string, error) {
	if p.Fabric == nil {
		return nil, nil, nil
	}
	want, err := Desired(sm.Partitions, guids)
	if err != nil {
		return nil, nil, fmt.Errorf("planning %s: %w", sm.Name, err)
	}
	obs, err := p.Fabric.Observe(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the ports of %s's subnet: %w", sm.Name, err)
	}
	return ComparePorts(want, obs), UnknownMembers(want, obs), nil
}

func (p *Pusher) verify(ctx context.Context, path, text string, want []fabric.PartitionIntent, proc Process) error {
	settle := p.Settle
	if settle == 0 {
		settle = time.Second
	}
	t := time.NewTimer(settle)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return fmt.Errorf("verifying %s: %w", path, ctx.Err())
	case <-t.C:
	}
	got, err := p.Remote.ReadFile(ctx, path)
	if err != nil {
		return fmt.Errorf("%w: reading %s back: %w", ErrVerify, path, err)
	}
	if !bytes.Equal(got, []byte(text)) {
		return fmt.Errorf("%w: %s changed under us (%d bytes written, %d read back)", ErrVerify, path, len(text), len(got))
	}
	parsed, err := Parse(string(got))
	if err != nil {
		return fmt.Errorf("%w: parsing %s back: %w", ErrVerify, path, err)
	}
	if d := Compare(want, parsed); len(d) != 0 {
		return fmt.Errorf("%w: %s reads back differently: %v", ErrVerify, path, d[0])
	}
	if err := p.Remote.Signal(ctx, proc, SignalCheck); err != nil {
		return fmt.Errorf("%w: %s after SIGHUP: %w", ErrVerify, proc.Name, err)
	}
	return nil
}

// rollback puts the pre-image back and reloads. It runs even when ctx is
// cancelled (a half-applied change is worse than a late return).
func (p *Pusher) rollback(ctx context.Context, path string, old []byte, existed bool, proc Process) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	var err error
	if existed {
		err = p.Remote.WriteFileAtomic(ctx, path, old, "")
	} else {
		err = p.Remote.Remove(ctx, path)
	}
	if err != nil {
		return fmt.Errorf("rolling back %s: %w", path, err)
	}
	var from int64
	if p.Fabric != nil {
		from, _ = p.Fabric.logSize(ctx)
	}
	if err := p.Remote.Signal(ctx, proc, SIGHUP); err != nil {
		return fmt.Errorf("rolling back %s: file restored; reloading %s: %w", path, proc.Name, err)
	}
	if p.Fabric != nil {
		// Return once OpenSM has applied the previous file again.
		if err := p.Fabric.WaitSweep(ctx, from); err != nil {
			return fmt.Errorf("rolling back %s: file restored and %s reloaded; %w", path, proc.Name, err)
		}
	}
	return nil
}
