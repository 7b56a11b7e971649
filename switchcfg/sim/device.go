package sim

import (
	"errors"
	"fmt"
	"github.com/fabricctl/fabricctl/fabric"
	"time"
)

// device is one simulated NOS: its configuration store and transaction state.
// Every method runs with Server.mu held.
type device interface {
	defaultUser() string
	// banner is printed after Banner at login (the platform's own MOTD).
	banner() string
	newShell(user string) shell
	// apply edits the running configuration directly (Server.Apply).
	apply(lines []string) error
	// readback prints the running configuration as the main read-back command does.
	readback() string
}

// shell is one login session's CLI state (mode, candidate, here-document, ...).
// Every method runs with Server.mu held.
type shell interface {
	// prompt is printed after every reply (a continuation prompt while the
	// shell waits for more input, e.g. "> " inside a here-document).
	prompt() string
	// exec runs one input line.
	exec(line string) reply
	// eof handles a line ended by ^D.
	eof(line string) reply
	// reject answers line with the platform's invalid-input error (Faults.Reject).
	reject(line string) string
}

// reply is a shell's answer to one line.
type reply struct {
	out    string
	exit   bool // close the session after out
	failed bool // exit status 1 for exec requests
}

func say(format string) reply { return reply{out: format} }

func fail(out string) reply { return reply{out: out, failed: true} }

// env is what devices share with their server: the clock, the hostname, the
// counters and the single confirmed-commit timer.
type env struct {
	server   *Server
	now      func() time.Time
	hostname string
	model    string // Options.Model
	lldp     func() ([]fabric.Neighbor, error)
	counters func() ([]PortErrors, error)
	// congestion is Options.Congestion (congestion.go).
	congestion func() ([]PortCongestion, error)
	stats      Stats
	timer      *confirmTimer
}

// confirmTimer is a pending confirmed commit: when it fires, rollback runs
// (with Server.mu held).
type confirmTimer struct {
	t        *time.Timer
	rollback func()
	deadline time.Time // wall clock, for status queries
}

// armTimer starts the confirm window; an earlier pending window is replaced
// (its rollback is dropped: the new commit was made on top of it).
func (e *env) armTimer(d time.Duration, rollback func()) {
	e.stopTimer()
	ct := &confirmTimer{rollback: rollback, deadline: time.Now().Add(d)}
	ct.t = time.AfterFunc(d, func() {
		e.server.mu.Lock()
		defer e.server.mu.Unlock()
		if e.timer == ct {
			e.fireTimer()
		}
	})
	e.timer = ct
}

// stopTimer cancels the pending window (the commit was confirmed).
func (e *env) stopTimer() {
	if e.timer != nil {
		e.timer.t.Stop()
		e.timer = nil
	}
}

// rollbackNow runs the pending window's rollback at the user's request
// (NVUE --confirm-no, EOS abort): counted as a rollback, not an automatic
// one. It reports whether a window was pending.
func (e *env) rollbackNow() bool { return e.endTimer(&e.stats.Rollbacks) }

// left is the time until the pending window ends (0 when none is pending).
func (e *env) left() time.Duration {
	if e.timer == nil {
		return 0
	}
	return max(time.Until(e.timer.deadline), 0)
}

// fireTimer rolls back now, as an expired window does; it reports
// whether a window was pending.
func (e *env) fireTimer() bool { return e.endTimer(&e.stats.AutoRollbacks) }

// endTimer runs the pending window's rollback and counts it in count.
func (e *env) endTimer(count *int) bool {
	ct := e.timer
	if ct == nil {
		return false
	}
	ct.t.Stop()
	e.timer = nil
	ct.rollback()
	*count++
	return true
}

// deviceError is a refusal whose text the simulated NOS prints verbatim
// (capitalised the NOS's way); Error keeps Go's lowercase convention.
type deviceError struct{ text string }

func (e *deviceError) Error() string { return "device refused: " + e.text }

func refusal(format string, args ...any) error {
	return &deviceError{text: fmt.Sprintf(format, args...)}
}

// says returns what the device prints for err.
func says(err error) string {
	var de *deviceError
	if errors.As(err, &de) {
		return de.text
	}
	return err.Error()
}
