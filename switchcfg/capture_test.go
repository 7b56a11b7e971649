package switchcfg_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"
	"github.com/fabricctl/fabricctl/switchcfg/cumulus"
	"github.com/fabricctl/fabricctl/switchcfg/eos"
	"github.com/fabricctl/fabricctl/switchcfg/junos"
	"github.com/fabricctl/fabricctl/switchcfg/nxos"
	"github.com/fabricctl/fabricctl/switchcfg/sonic"
)

// readers are the switch configuration readers of captures.
var readers = []switchcfg.Driver{cumulus.New(), eos.New(), junos.New(), nxos.New(), sonic.New()}

// garbage returns n pseudo-random bytes (the same ones every run).
func garbage(n int, seed uint64) []byte {
	b := make([]byte, n)
	r := rand.New(rand.NewChaCha8([32]byte{byte(seed)}))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// printable returns lines of random printable ASCII.
func printable(lines int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 28))
	var b strings.Builder
	for range lines {
		for range r.IntN(80) {
			b.WriteByte(byte(' ' + r.IntN(95)))
		}
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

const (
	eosConfig   = "! device: leaf1 (DCS-7050CX3-32S, EOS-4.28.3M)\nhostname leaf1\ninterface Ethernet1\n   qos trust dscp\n   priority-flow-control on\n"
	junosConfig = "class-of-service {\n    forwarding-classes {\n        class fc3 queue-num 3 no-loss pfc-priority 3;\n    }\n}\n"
)

// TestParseCaptureRefusesGarbage (issue 28): 64 KiB of random bytes read
// as an arista-eos, cisco-nxos or cumulus-nvue capture (exit 0, an empty
// intent), and drift then reported drift instead of an error. No reader
// takes what is not its platform's configuration: binary data is refused
// before any reader sees it, naming the line ("line N: not a PLATFORM
// configuration: binary data …"), even around lines that are; text no
// reader recognises is refused naming the platform and each reader's
// reason, and wraps ErrNotThisFormat.
func TestParseCaptureRefusesGarbage(t *testing.T) {
	inputs := map[string][]byte{
		"64 KiB of random bytes":     garbage(64<<10, 1),
		"random bytes around a line": append(append(garbage(4<<10, 2), "\nhostname leaf\ninterface Ethernet1\n"...), garbage(4<<10, 3)...),
		"random printable lines":     printable(800, 4),
		"a JSON document":            []byte(`{"interfaces": {"Ethernet1": {"mtu": 9214}}, "qos": [1, 2]}` + "\n"),
		"UTF-16 text":                append([]byte{0xff, 0xfe}, []byte(strings.Join(strings.Split(eosConfig, ""), "\x00"))...),
	}
	for _, d := range readers {
		name := d.Info().Name
		for what, data := range inputs {
			got, err := switchcfg.ParseCapture(d, data, fabric.SwitchIntent{})
			if err == nil {
				t.Errorf("%s read %s: %d classes, %d ports", name, what, len(got.Classes), len(got.Ports))
				continue
			}
			article := "a "
			if name == "arista-eos" {
				article = "an "
			}
			if !errors.Is(err, switchcfg.ErrNotThisFormat) || !strings.Contains(err.Error(), "not "+article+name+" configuration") {
				t.Errorf("%s on %s: %.300v", name, what, err)
			}
		}
	}
	// Binary data is named with its line, before any reader runs.
	bin := append([]byte("hostname leaf\ninterface Ethernet1\n"), garbage(1<<10, 5)...)
	bin[40] = 0
	if _, err := switchcfg.ParseCapture(eos.New(), bin, fabric.SwitchIntent{}); err == nil ||
		!strings.HasPrefix(err.Error(), "line 3: not an arista-eos configuration: binary data (a NUL byte at byte 41)") {
		t.Errorf("a NUL byte on line 3: %v", err)
	}
	// A capture of another platform's CLI is refused: Junos to EOS and
	// NX-OS, EOS to NX-OS (both IOS-like) and to Junos.
	for _, tc := range []struct {
		d    switchcfg.Driver
		text string
	}{{eos.New(), junosConfig}, {nxos.New(), junosConfig}, {nxos.New(), eosConfig}, {junos.New(), eosConfig},
		{cumulus.New(), eosConfig}, {sonic.New(), junosConfig}} {
		if _, err := switchcfg.ParseCapture(tc.d, []byte(tc.text), fabric.SwitchIntent{}); !errors.Is(err, switchcfg.ErrNotThisFormat) {
			t.Errorf("%s read another platform's configuration: %v", tc.d.Info().Name, err)
		}
	}
	// Near misses still read: each platform's own, text in Latin-1, an
	// empty file, Junos statements under any top-level hierarchy.
	for _, tc := range []struct {
		d    switchcfg.Driver
		text string
	}{{eos.New(), eosConfig}, {eos.New(), eosConfig + "interface Ethernet2\n   description caf\xe9\n"}, {eos.New(), ""},
		{junos.New(), junosConfig}, {junos.New(), "system {\n    host-name leaf;\n}\n" + junosConfig}} {
		if _, err := switchcfg.ParseCapture(tc.d, []byte(tc.text), fabric.SwitchIntent{}); err != nil {
			t.Errorf("%s refused its own configuration: %v", tc.d.Info().Name, err)
		}
	}
}

// TestParseCaptureBounds (issue 28): a capture of more lines than any
// switch prints (32 MiB of newlines cost 1.6 GB through the readers'
// per-line bookkeeping) and a CLI line longer than any command are
// refused with their size; Unparsed lists at most MaxUnparsed lines and
// counts the rest.
func TestParseCaptureBounds(t *testing.T) {
	lines := []byte(strings.Repeat("\n", switchcfg.MaxCaptureLines+1))
	for _, d := range readers {
		if _, err := switchcfg.ParseCapture(d, lines, fabric.SwitchIntent{}); err == nil || !strings.Contains(err.Error(), "more than the 2000000 lines") {
			t.Errorf("%s: %d lines: %v", d.Info().Name, switchcfg.MaxCaptureLines+1, err)
		}
	}
	long := "hostname leaf\ninterface Ethernet1\n   description " + strings.Repeat("x", switchcfg.MaxCLILine) + "\n"
	for _, d := range []switchcfg.Driver{eos.New(), nxos.New()} {
		if _, err := switchcfg.ParseCapture(d, []byte(long), fabric.SwitchIntent{}); err == nil || !strings.Contains(err.Error(), "line 3: not ") {
			t.Errorf("%s: a line of %d bytes: %v", d.Info().Name, switchcfg.MaxCLILine, err)
		}
	}
	var b strings.Builder
	b.WriteString("hostname leaf\n")
	for i := range 3 * switchcfg.MaxUnparsed {
		fmt.Fprintf(&b, "qos unknown-setting %d\n", i)
	}
	got, err := switchcfg.ParseCapture(eos.New(), []byte(b.String()), fabric.SwitchIntent{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(got.Unparsed); n != switchcfg.MaxUnparsed+1 || !strings.Contains(got.Unparsed[n-1].Reason, "2000 more lines") ||
		got.Unparsed[n-1].Line != switchcfg.MaxUnparsed+2 {
		t.Errorf("%d unparsed, the last %+v", n, got.Unparsed[n-1])
	}
}
