package scripted

import (
	"context"
	"errors"
	"io"

	"github.com/fabricctl/fabricctl/switchcfg"
)

// Session is a scripted switchcfg.Session. Send records every command in
// Sent and answers from Replies; a command in Rejects comes back with its
// message appended and as a *switchcfg.LineError (as real sessions report a
// refused line); after a command in Drops every call fails with
// io.ErrUnexpectedEOF, as a lost connection would. SendConfig always fails
// with NoSendConfig: the drivers tested with it send lines with Send.
type Session struct {
	Replies map[string]string
	Rejects map[string]string // command → the device's error message
	Drops   map[string]bool
	Sent    []string
	// Dead is set once a command in Drops was sent.
	Dead bool
	// NoSendConfig is SendConfig's error text (why the driver must not call it).
	NoSendConfig string
}

var _ switchcfg.Session = (*Session)(nil)

// Send plays the script for cmd.
func (f *Session) Send(_ context.Context, cmd string) (string, error) {
	if f.Dead {
		return "", io.ErrUnexpectedEOF
	}
	f.Sent = append(f.Sent, cmd)
	if f.Drops[cmd] {
		f.Dead = true
		return "", io.ErrUnexpectedEOF
	}
	out := f.Replies[cmd]
	if msg, ok := f.Rejects[cmd]; ok {
		return out + msg, &switchcfg.LineError{Line: cmd, Message: msg}
	}
	return out, nil
}

// SendConfig fails: the scripted drivers send every line with Send.
func (f *Session) SendConfig(context.Context, []string) (string, error) {
	msg := f.NoSendConfig
	if msg == "" {
		msg = "scripted session: the driver must send lines with Send"
	}
	return "", errors.New(msg)
}

// Close does nothing.
func (f *Session) Close() error { return nil }
