package perftest

import (
	"fmt"
	"strings"
)

// Verb is the RDMA operation a perftest binary exercises.
type Verb string

// The verbs of the ib_* binaries.
const (
	Write  Verb = "write"
	Read   Verb = "read"
	Send   Verb = "send"
	Atomic Verb = "atomic"
)

// Kind says whether a binary measures bandwidth or latency.
type Kind string

// The kinds of the ib_* binaries.
const (
	BW  Kind = "bw"
	Lat Kind = "lat"
)

// Test names one perftest binary: {Write, BW} is ib_write_bw.
type Test struct {
	Verb Verb `json:"verb"`
	Kind Kind `json:"kind"`
}

// The eight binaries fabricctl drives.
var (
	WriteBW   = Test{Write, BW}
	ReadBW    = Test{Read, BW}
	SendBW    = Test{Send, BW}
	AtomicBW  = Test{Atomic, BW}
	WriteLat  = Test{Write, Lat}
	ReadLat   = Test{Read, Lat}
	SendLat   = Test{Send, Lat}
	AtomicLat = Test{Atomic, Lat}
)

// String returns the short name used in fabric files: "write_bw".
func (t Test) String() string { return string(t.Verb) + "_" + string(t.Kind) }

// MarshalText writes the short name; the zero Test writes nothing.
func (t Test) MarshalText() ([]byte, error) {
	if t == (Test{}) {
		return nil, nil
	}
	return []byte(t.String()), nil
}

// UnmarshalText reads the short or binary name.
func (t *Test) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*t = Test{}
		return nil
	}
	v, err := ParseTest(string(b))
	if err != nil {
		return err
	}
	*t = v
	return nil
}

// Binary returns the executable name: "ib_write_bw".
func (t Test) Binary() string { return "ib_" + t.String() }

// Valid reports whether t is one of the eight binaries.
func (t Test) Valid() bool {
	switch t.Verb {
	case Write, Read, Send, Atomic:
	default:
		return false
	}
	return t.Kind == BW || t.Kind == Lat
}

// ParseTest reads "write_bw" or "ib_write_bw".
func ParseTest(s string) (Test, error) {
	name := strings.TrimPrefix(strings.TrimSpace(s), "ib_")
	verb, kind, ok := strings.Cut(name, "_")
	t := Test{Verb(verb), Kind(kind)}
	if !ok || !t.Valid() {
		return Test{}, fmt.Errorf("parsing test name %q: %w (want one of write_bw, read_bw, send_bw, atomic_bw, write_lat, read_lat, send_lat, atomic_lat)", s, ErrUnknownTest)
	}
	return t, nil
}

// testFromTitle derives the Test from a banner title such as "RDMA_Write BW Test",
// "Atomic CMP_AND_SWAP BW Test", "Send Latency Test" or the JSON form
// "RDMA_Write_Latency_Test". ok is false when the title names neither.
func testFromTitle(title string) (t Test, bidir, postList, ok bool) {
	words := strings.FieldsFunc(strings.ToLower(title), func(r rune) bool { return r == ' ' || r == '_' })
	for i, w := range words {
		switch w {
		case "write":
			t.Verb = Write
		case "read":
			t.Verb = Read
		case "send":
			t.Verb = Send
		case "atomic":
			t.Verb = Atomic
		case "bw":
			t.Kind = BW
		case "latency", "lat":
			t.Kind = Lat
		case "bidirectional":
			bidir = true
		case "list":
			postList = postList || (i > 0 && words[i-1] == "post")
		}
	}
	return t, bidir, postList, t.Valid()
}
