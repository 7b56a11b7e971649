package nlwire

import (
	"bytes"
	"errors"
	"testing"
)

func TestBuilderRoundTrip(t *testing.T) {
	b := NewMessage(78, FlagRequest|FlagAck, 7, 9)
	b.Raw([]byte{0, 21, 0, 0})
	b.StringZ(1, "eth0")
	b.Nest(13 | AttrNested)
	b.U8(2, 5)
	b.Attr(3, []byte{1, 2, 3, 4, 5, 6})
	b.End()
	msg := b.Bytes()
	msgs, err := ParseMessages(append(msg, msg...))
	if err != nil || len(msgs) != 2 {
		t.Fatalf("%d messages, %v", len(msgs), err)
	}
	m := msgs[0]
	if m.Type != 78 || m.Flags != FlagRequest|FlagAck || m.Seq != 7 || m.PID != 9 {
		t.Fatalf("header %+v", m)
	}
	attrs, err := ParseAttrs(m.Payload[4:])
	if err != nil || len(attrs) != 2 || string(attrs[0].Data) != "eth0\x00" || attrs[1].Type != 13 || !attrs[1].Nested {
		t.Fatalf("attrs %+v, %v", attrs, err)
	}
	inner, err := ParseAttrs(attrs[1].Data)
	if err != nil || len(inner) != 2 || inner[0].Data[0] != 5 || !bytes.Equal(inner[1].Data, []byte{1, 2, 3, 4, 5, 6}) {
		t.Fatalf("nest %+v, %v", inner, err)
	}
}

func TestParseRejectsBadLengths(t *testing.T) {
	for name, b := range map[string][]byte{
		"short header":     {1, 2, 3},
		"length too small": {4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
		"length too big":   {32, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
	} {
		if _, err := ParseMessages(b); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: got %v", name, err)
		}
	}
	for name, b := range map[string][]byte{
		"stray bytes":  {5, 0, 1, 0, 9, 0, 0, 0, 1},
		"len < header": {2, 0, 1, 0},
		"len > rest":   {9, 0, 1, 0, 1},
	} {
		if _, err := ParseAttrs(b); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: got %v", name, err)
		}
	}
	if got := WalkAttrs([]byte{5, 0, 1, 0, 9, 0, 0, 0, 0xff, 0xff}); len(got) != 1 {
		t.Errorf("WalkAttrs must stop quietly at junk: %+v", got)
	}
}

func FuzzParse(f *testing.F) {
	b := NewMessage(78, FlagRequest, 1, 0)
	b.StringZ(1, "lo")
	f.Add(b.Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		msgs, err := ParseMessages(b)
		raw, err2 := SplitMessages(b)
		if (err == nil) != (err2 == nil) || len(msgs) != len(raw) {
			t.Fatalf("ParseMessages and SplitMessages disagree: %v / %v", err, err2)
		}
		attrs, err := ParseAttrs(b)
		walked := WalkAttrs(b)
		if err == nil && len(attrs) != len(walked) {
			t.Fatalf("strict parse found %d attributes, walk %d", len(attrs), len(walked))
		}
		if err != nil && !errors.Is(err, ErrMalformed) {
			t.Fatal(err)
		}
		for _, m := range msgs {
			if m.Type == TypeError {
				_, _ = ParseError(m.Payload)
			}
		}
	})
}
