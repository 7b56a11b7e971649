package session

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/scrapli/scrapligo/driver/options"
	"github.com/scrapli/scrapligo/transport"
	"github.com/scrapli/scrapligo/util"
)

// DefaultReplayTimeout bounds each command of a replayed session: a command
// the transcript does not answer fails after this long.
const DefaultReplayTimeout = 3 * time.Second

// Replay opens a session that plays back a transcript recorded with
// Options.Record, through scrapligo's file transport: no network is used, and
// what the caller sends is not checked against the transcript; compare
// History with the recording's to assert the same commands were sent.
// commandTimeout <= 0 means DefaultReplayTimeout.
func Replay(ctx context.Context, platformName, transcript string, commandTimeout time.Duration) (*Conn, error) {
	prof, err := lookupProfile(platformName)
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
