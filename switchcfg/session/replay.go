package session

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/scrapli/scrapligo/driver/options"
	"github.com/scrapli/scrapligo/transport"
	"github.com/scrapli/scrapligo/util"

	"github.com/fabricctl/fabricctl/switchcfg"
)

// DefaultReplayTimeout bounds each command of a replayed session: a command
// the transcript does not answer fails after this long. The file transport
// yields one byte per read, so long read-backs need seconds under -race.
const DefaultReplayTimeout = 20 * time.Second

// Replay opens a session that plays back a transcript recorded with
// Options.Record, through scrapligo's file transport: no network is used, and
// what the caller sends is not checked against the transcript; compare
// History with the recording's to assert the same commands were sent.
// spec is the platform driver's Info().Session; commandTimeout <= 0 means
// DefaultReplayTimeout.
func Replay(ctx context.Context, platformName string, spec switchcfg.SessionSpec, transcript string, commandTimeout time.Duration) (*Conn, error) {
	prof, err := newProfile(platformName, spec)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(transcript); err != nil {
		return nil, fmt.Errorf("reading transcript: %w", err)
	}
	commandTimeout = durationOr(commandTimeout, DefaultReplayTimeout)
	opts := []util.Option{
		options.WithTransportType(transport.FileTransport),
		options.WithFileTransportFile(transcript),
		options.WithTimeoutOps(commandTimeout),
		// The file transport yields one byte per read; a read delay would
		// make replays of long read-backs take seconds.
		options.WithReadDelay(0),
		// The prompt is the last line: searching the last 256 bytes instead
		// of 1000 after every byte keeps long replays fast.
		options.WithPromptSearchDepth(256),
		options.WithLogger(scrapliLogger(nil, "")),
	}
	c, err := newConn(platformName, prof, "replay", "replay of "+transcript, commandTimeout, "", opts)
	if err != nil {
		return nil, err
	}
	if err := c.open(ctx, commandTimeout); err != nil {
		return nil, err
	}
	return c, nil
}

// Recorder collects a transcript (Options.Record) safely while scrapligo's
// read loop writes to it; WriteFile stores it for Replay.
type Recorder struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p; it is safe for concurrent use.
func (r *Recorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.buf.Write(p)
}

// Bytes returns a copy of the transcript so far.
func (r *Recorder) Bytes() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return bytes.Clone(r.buf.Bytes())
}

// WriteFile stores the transcript at path.
func (r *Recorder) WriteFile(path string) error {
	if err := os.WriteFile(path, r.Bytes(), 0o644); err != nil {
		return fmt.Errorf("writing transcript: %w", err)
	}
	return nil
}
