package dcbnl

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/hostcfg/dcbnl/internal/nlwire"
	"github.com/fabricctl/fabricctl/internal/testutil"
)

// maskSeqPID zeroes nlmsg_seq and nlmsg_pid of every message in b.
func maskSeqPID(t testing.TB, b []byte) []byte {
	t.Helper()
	b = bytes.Clone(b)
	msgs, err := nlwire.SplitMessages(b)
	if err != nil {
		t.Fatalf("splitting messages: %v", err)
	}
	for _, m := range msgs {
		clear(m[8:16])
	}
	return b
}

func skipUnlessLittleEndian(t *testing.T) {
	t.Helper()
	if binary.NativeEndian.Uint16([]byte{1, 0}) != 1 {
		t.Skip("golden bytes were captured on a little-endian host; netlink is host-endian")
	}
}

// corpusEntry is one "## dcb ..." section of the iproute2 capture: the
// command line and the request bytes it sent.
type corpusEntry struct {
	line    int
	command string
	request []byte
}

func readIproute2Corpus(t *testing.T) []corpusEntry {
	t.Helper()
	const path = "hosts/dcbnl-golden-iproute2-6.1.0.txt"
	f := testutil.CorpusFile(t, "hosts", "dcbnl-golden-iproute2-6.1.0.txt")
	var (
		out []corpusEntry
		cmd string
	)
	sc := bufio.NewScanner(bytes.NewReader(f.Raw))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "## "):
			cmd = strings.TrimPrefix(line, "## ")
		case line == "" || strings.HasPrefix(line, "#"):
		default:
			b, err := hex.DecodeString(line)
			if err != nil {
				t.Fatalf("%s:%d: not hex: %v", path, n, err)
			}
			if cmd == "" {
				t.Fatalf("%s:%d: request bytes before any \"## dcb ...\" heading", path, n)
			}
			out = append(out, corpusEntry{line: n, command: cmd, request: b})
			cmd = ""
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("%s: no request found", path)
	}
	return out
}

// encodeDcbCommand translates the dcb command lines the capture uses into
// this package's encoders. A command it does not know fails the test, so a
// new capture cannot be silently skipped.
func encodeDcbCommand(command string) ([]byte, error) {
	command, _, _ = strings.Cut(command, "  ") // drop the "(verified identical for ...)" note
	f := strings.Fields(command)
	if len(f) < 5 || f[0] != "dcb" || f[3] != "dev" {
		return nil, fmt.Errorf("unknown command form %q", command)
	}
	obj, verb, dev, args := f[1], f[2], f[4], f[5:]
	switch {
	case verb == "show":
		return EncodeIEEEGet(dev)
	case obj == "dcbx" && verb == "set":
		var mode uint8
		for _, a := range args {
			switch a {
			case "host":
				mode |= DCBXHost
			case "lld-managed":
				mode |= DCBXLLDManaged
			case "cee":
				mode |= DCBXVerCEE
			case "ieee":
				mode |= DCBXVerIEEE
			case "static":
				mode |= DCBXStatic
			default:
				return nil, fmt.Errorf("unknown dcbx flag %q", a)
			}
		}
		return EncodeSetDCBX(dev, mode)
	case obj == "app" && (verb == "add" || verb == "del"):
		apps, err := parseAppArgs(args)
		if err != nil {
			return nil, err
		}
		if verb == "add" {
			return EncodeIEEESetApp(dev, apps)
		}
		return EncodeIEEEDelApp(dev, apps)
	}
	return nil, fmt.Errorf("unknown command %q", command)
}

func parseAppArgs(args []string) ([]App, error) {
	var (
		apps []App
		sel  Selector
	)
	for _, a := range args {
		if name, ok := strings.CutSuffix(a, "-prio"); ok {
			if err := sel.UnmarshalText([]byte(name)); err != nil {
				return nil, err
			}
			continue
		}
		k, v, ok := strings.Cut(a, ":")
		if !ok || sel == 0 {
			return nil, fmt.Errorf("bad app mapping %q", a)
		}
		proto, err := strconv.ParseUint(k, 0, 16)
		if err != nil {
			return nil, err
		}
		prio, err := strconv.ParseUint(v, 10, 8)
		if err != nil {
			return nil, err
		}
		apps = append(apps, App{Selector: sel, Protocol: uint16(proto), Priority: uint8(prio)})
	}
	return apps, nil
}

func TestEncodeMatchesIproute2Capture(t *testing.T) {
	skipUnlessLittleEndian(t)
	for _, e := range readIproute2Corpus(t) {
		name, _, _ := strings.Cut(e.command, "  ")
		t.Run(name, func(t *testing.T) {
			got, err := encodeDcbCommand(e.command)
			if err != nil {
				t.Fatalf("line %d: %v", e.line, err)
			}
			want := maskSeqPID(t, e.request)
			if !bytes.Equal(got, want) {
				t.Errorf("line %d: request bytes differ\n got %x\nwant %x", e.line, got, want)
			}
		})
	}
}
