package journal

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/hostcfg"
)

// Record states.
const (
	// StateApplying: an apply was writing (or is: see Status.InProgress).
	StateApplying = "applying"
	// StateApplied: the apply ran to its end; its caller has not settled it.
	StateApplied = "applied"
	// StateRecoveryFailed: a recovery ran and could not restore everything;
	// Record.Error says why, and the next recovery tries again.
	StateRecoveryFailed = "recovery-failed"
)

// Kind is the record's kind field.
const Kind = "ApplyJournal"

// Sentinel errors.
var (
	// ErrBusy: another apply holds the host's journal lock right now.
	ErrBusy = errors.New("another apply is in progress on this host")
	// ErrInterrupted: an earlier apply's journal is pending; recover it
	// first (errors.As with *InterruptedError gives the record).
	ErrInterrupted = errors.New("an earlier apply was interrupted")
	// ErrOtherJournal: the pending journal is not the one named.
	ErrOtherJournal = errors.New("the pending journal is another apply's")
)

// Entry is one setting an apply was about to write, with its pre-image.
type Entry struct {
	Interface string `json:"interface"`
	Setting   string `json:"setting"`
	Backend   string `json:"backend,omitempty"`
	// Pre is the live value read just before the write; New what was written.
	Pre string `json:"pre"`
	New string `json:"new"`
}

// Record is one host's journal file.
type Record struct {
	APIVersion string    `json:"apiVersion"`
	Kind       string    `json:"kind"`
	ID         string    `json:"id"`
	Host       string    `json:"host"`
	Started    time.Time `json:"started"`
	PID        int       `json:"pid"`
	State      string    `json:"state"`
	// Written lists every write the apply started, in order; the last one
	// may not have happened (or only in part) when the apply was killed.
	Written []Entry `json:"written"`
	// Error is the last recovery's failure (StateRecoveryFailed).
	Error string `json:"error,omitempty"`
}

// Undo is the plan that restores every written setting's pre-image,
// newest first; hostcfg's apply leaves a setting already at its pre-image
// alone and refuses one someone changed since (neither pre nor new).
func (r Record) Undo() hostcfg.Plan {
	p := hostcfg.Plan{APIVersion: fabric.APIVersion, Host: r.Host, Changes: []hostcfg.Change{}}
	for i := len(r.Written) - 1; i >= 0; i-- {
		e := r.Written[i]
		p.Changes = append(p.Changes, hostcfg.Change{Target: r.Host, Interface: e.Interface, Setting: e.Setting,
			Backend: e.Backend, Old: e.New, New: e.Pre})
	}
	return p
}

// Summary is one line for messages: id, state, start and size.
func (r Record) Summary() string {
	return fmt.Sprintf("journal %s (%s, started %s by pid %d, %d write(s))", r.ID, r.State,
		r.Started.UTC().Format(time.RFC3339), r.PID, len(r.Written))
}

// InterruptedError is ErrInterrupted with the pending record.
type InterruptedError struct{ Record Record }

func (e *InterruptedError) Error() string {
	return fmt.Sprintf("an earlier apply was interrupted and may have left the host half-changed: %s; recover it first", e.Record.Summary())
}

// Unwrap returns ErrInterrupted.
func (e *InterruptedError) Unwrap() error { return ErrInterrupted }

// Dir is a state directory holding one journal (and one lock file) per
// host. Its methods are safe for concurrent use by goroutines and
// processes: every change happens under the host's flock.
type Dir struct {
	path string
}

// Open returns the state directory at path; a leading "~/" is the user's
// home directory. Nothing is created until an apply begins (the directory,
// mode 0700): looking at a host that never applied leaves no trace.
func Open(path string) (*Dir, error) {
	if path == "" {
		return nil, errors.New("opening the journal: no state directory")
	}
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil, fmt.Errorf("opening the journal in %s: %w", path, err)
		}
		path = filepath.Join(home, rest)
	}
	return &Dir{path: path}, nil
}

// exists reports whether the host has a journal file.
func (d *Dir) exists(host string) bool {
	_, err := os.Lstat(d.journalPath(host))
	return err == nil
}

// Path returns the state directory.
func (d *Dir) Path() string { return d.path }

// fileName turns a host name into a file name: anything but letters,
// digits, '.', '-' and '_' becomes '_', and a name of dots is prefixed.
func fileName(host string) string {
	if host == "" {
		host = "localhost"
	}
	b := []byte(host)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
			b[i] = '_'
		}
	}
	if strings.Trim(string(b), ".") == "" {
		return "_" + string(b)
	}
	return string(b)
}

func (d *Dir) journalPath(host string) string {
	return filepath.Join(d.path, fileName(host)+".journal")
}

func (d *Dir) lockPath(host string) string { return filepath.Join(d.path, fileName(host)+".lock") }

// lock opens the host's lock file and takes it; wait polls until ctx ends
// when another process holds it.
func (d *Dir) lock(ctx context.Context, host string, wait bool) (*os.File, error) {
	f, err := os.OpenFile(d.lockPath(host), os.O_RDWR|os.O_CREATE|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening the journal lock: %w", err)
	}
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, unix.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("locking the journal: %w", err)
		}
		if !wait {
			f.Close()
			return nil, ErrBusy
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("waiting for the apply in progress to end: %w: %w", ErrBusy, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func unlock(f *os.File) {
	_ = unix.Flock(int(f.Fd()), unix.LOCK_UN)
	_ = f.Close()
}

// read loads the host's record; found is false when there is none.
func (d *Dir) read(host string) (rec Record, found bool, err error) {
	b, err := os.ReadFile(d.journalPath(host))
	if errors.Is(err, fs.ErrNotExist) {
		return Record{}, false, nil
	}
	if err != nil {
		return Record{}, false, fmt.Errorf("reading the journal: %w", err)
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		return Record{}, true, fmt.Errorf("reading the journal %s: %w", d.journalPath(host), err)
	}
	return rec, true, nil
}

// write replaces the host's record atomically: a temporary file in the
// same directory, synced, renamed over the journal, the directory synced.
func (d *Dir) write(rec Record) error {
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return fmt.Errorf("writing the journal: %w", err)
	}
	tmp, err := os.CreateTemp(d.path, ".journal-*")
	if err != nil {
		return fmt.Errorf("writing the journal: %w", err)
	}
	name := tmp.Name()
	_, werr := tmp.Write(append(b, '\n'))
	if werr == nil {
		werr = tmp.Sync()
	}
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(name, d.journalPath(rec.Host))
	}
	if werr != nil {
		_ = os.Remove(name)
		return fmt.Errorf("writing the journal: %w", werr)
	}
	return d.syncDir()
}

func (d *Dir) remove(host string) error {
	if err := os.Remove(d.journalPath(host)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("removing the journal: %w", err)
	}
	return d.syncDir()
}

func (d *Dir) syncDir() error {
	f, err := os.Open(d.path)
	if err != nil {
		return fmt.Errorf("syncing the journal directory: %w", err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("syncing the journal directory: %w", err)
	}
	return nil
}

// Status is what a look at a host's journal finds, without changing it.
type Status struct {
	// Pending is true when a journal exists; Record is it.
	Pending bool   `json:"pending"`
	Record  Record `json:"record,omitempty"`
	// InProgress is true when an apply holds the lock now (its journal is
	// being written, not interrupted).
	InProgress bool `json:"inProgress,omitempty"`
}

// Status looks at the host's journal; it creates nothing.
func (d *Dir) Status(host string) (Status, error) {
	var st Status
	if !d.exists(host) {
		return st, nil
	}
	if f, err := d.lock(context.Background(), host, false); errors.Is(err, ErrBusy) {
		st.InProgress = true
	} else if err != nil {
		return st, err
	} else {
		defer unlock(f)
	}
	rec, found, err := d.read(host)
	st.Pending, st.Record = found, rec
	return st, err
}

// Hosts lists the hosts with a pending journal, sorted.
func (d *Dir) Hosts() ([]string, error) {
	entries, err := os.ReadDir(d.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing the journals: %w", err)
	}
	var hosts []string
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".journal") || e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(d.path, e.Name()))
		if err != nil {
			continue
		}
		var rec Record
		if json.Unmarshal(b, &rec) == nil && rec.Host != "" {
			hosts = append(hosts, rec.Host)
		}
	}
	sort.Strings(hosts)
	return hosts, nil
}

// NewID returns a fresh random journal id.
func NewID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Txn is one journaled apply. It holds the host's lock from Begin until
// Finish or Close; pass it to hostcfg.Host.ApplyRecorded. A Txn is not
// safe for concurrent use.
type Txn struct {
	d    *Dir
	lock *os.File
	rec  Record
}

var _ hostcfg.Recorder = (*Txn)(nil)

// Begin takes the host's lock and writes a new journal (id: NewID when
// empty) before anything is changed. It fails with ErrBusy when another
// apply holds the lock, and with an *InterruptedError when an earlier
// apply's journal is still pending.
func (d *Dir) Begin(host, id string) (*Txn, error) {
	if err := os.MkdirAll(d.path, 0o700); err != nil {
		return nil, fmt.Errorf("making the journal directory: %w", err)
	}
	f, err := d.lock(context.Background(), host, false)
	if err != nil {
		return nil, err
	}
	rec, found, err := d.read(host)
	if err != nil {
		unlock(f)
		return nil, err
	}
	if found {
		unlock(f)
		return nil, &InterruptedError{Record: rec}
	}
	if id == "" {
		id = NewID()
	}
	t := &Txn{d: d, lock: f, rec: Record{APIVersion: fabric.APIVersion, Kind: Kind, ID: id, Host: host,
		Started: time.Now().UTC(), PID: os.Getpid(), State: StateApplying, Written: []Entry{}}}
	if err := d.write(t.rec); err != nil {
		unlock(f)
		return nil, err
	}
	return t, nil
}

// ID is the journal's id.
func (t *Txn) ID() string { return t.rec.ID }

// Writing records a write before it happens (hostcfg.Recorder).
func (t *Txn) Writing(c hostcfg.Change, pre string) error {
	t.rec.Written = append(t.rec.Written, Entry{Interface: c.Interface, Setting: c.Setting, Backend: c.Backend, Pre: pre, New: c.New})
	return t.d.write(t.rec)
}

// Finish ends the apply: a journal with no writes is removed (there is
// nothing to undo), any other is marked applied and stays until Settle or
// Recover. The lock is released either way.
func (t *Txn) Finish() (Record, error) {
	defer t.Close()
	if len(t.rec.Written) == 0 {
		return t.rec, t.d.remove(t.rec.Host)
	}
	t.rec.State = StateApplied
	return t.rec, t.d.write(t.rec)
}

// Close releases the lock without touching the journal (it stays as the
// interrupted apply left it).
func (t *Txn) Close() {
	if t.lock != nil {
		unlock(t.lock)
		t.lock = nil
	}
}

// Settle removes the host's journal with this id once its apply is
// acknowledged (verified, or rolled back by its caller). No journal is not
// an error; another apply's journal is (ErrOtherJournal).
func (d *Dir) Settle(ctx context.Context, host, id string) error {
	if !d.exists(host) {
		return nil
	}
	f, err := d.lock(ctx, host, true)
	if err != nil {
		return err
	}
	defer unlock(f)
	rec, found, err := d.read(host)
	switch {
	case err != nil:
		return err
	case !found:
		return nil
	case rec.ID != id:
		return fmt.Errorf("settling journal %s: %w (%s)", id, ErrOtherJournal, rec.Summary())
	}
	return d.remove(host)
}

// Recovered is what Recover did.
type Recovered struct {
	// Found is false when no journal was pending.
	Found bool `json:"found"`
	// Record is the journal that was recovered (or failed to be).
	Record Record `json:"record,omitempty"`
	// Result is the restore: Applied holds the settings set back to their
	// pre-image, Unchanged those already there.
	Result hostcfg.Result `json:"result,omitempty"`
}

// Recover rolls back the host's pending journal: it waits (until ctx ends)
// for an apply in progress to release the lock, restores every written
// setting's pre-image through h, and removes the journal when all were
// restored. When some could not be, the journal stays, marked
// StateRecoveryFailed with the error, for the next attempt.
func (d *Dir) Recover(ctx context.Context, host string, h *hostcfg.Host) (Recovered, error) {
	if !d.exists(host) {
		return Recovered{}, nil
	}
	f, err := d.lock(ctx, host, true)
	if err != nil {
		return Recovered{}, err
	}
	defer unlock(f)
	rec, found, err := d.read(host)
	if err != nil || !found {
		return Recovered{Found: found, Record: rec}, err
	}
	res, aerr := h.Restore(ctx, rec.Undo())
	out := Recovered{Found: true, Record: rec, Result: res}
	if aerr != nil {
		rec.State, rec.Error = StateRecoveryFailed, aerr.Error()
		return out, errors.Join(fmt.Errorf("restoring the pre-images of %s: %w", rec.Summary(), aerr), d.write(rec))
	}
	return out, d.remove(host)
}
