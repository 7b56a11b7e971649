package dcbnl

import (
	"errors"
	"reflect"
	"testing"
)

func seedReplies(f *testing.F) {
	for _, path := range replyFixtures(f) {
		f.Add(readHex(f, path))
	}
}

// checkDecodeError: a failed decode is either a kernel error or names
// malformed input; nothing else may come out of pure decoding.
func checkDecodeError(t *testing.T, err error) {
	var ke *Error
	if err != nil && !errors.As(err, &ke) && !errors.Is(err, ErrMalformed) {
		t.Fatalf("decoding error is neither *Error nor ErrMalformed: %v", err)
	}
}

func FuzzDecodeIEEE(f *testing.F) {
	seedReplies(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		st, err := DecodeIEEE(b)
		checkDecodeError(t, err)
		if err != nil {
			if !reflect.DeepEqual(st, IEEEState{}) {
				t.Fatalf("failed decode returned a partial state: %+v", st)
			}
			return
		}
		again, err := DecodeIEEE(b)
		if err != nil || !reflect.DeepEqual(st, again) {
			t.Fatalf("decoding is not deterministic: %v", err)
		}
		for _, a := range append(st.Apps, st.Rewr...) {
			if a.Selector.attrType() == 0 && a.Selector != 0 {
				// Entries come only from app-typed attributes; any selector
				// value may appear in them, which is fine, but re-encoding
				// must then refuse it rather than send garbage.
				if _, err := EncodeIEEESetApp("x", []App{a}); err == nil {
					t.Fatalf("re-encoding app with selector %d succeeded", a.Selector)
				}
			}
		}
	})
}

func FuzzDecodeStatus(f *testing.F) {
	seedReplies(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		err := DecodeStatus(b)
		checkDecodeError(t, err)
		var ke *Error
		if errors.As(err, &ke) && ke.Errno == 0 && ke.Cmd != CmdSetDCBX {
			t.Fatalf("kernel error without errno for %s", ke.Cmd)
		}
		_, err = DecodeDCBX(b)
		checkDecodeError(t, err)
	})
}

// Struct codecs: whatever bytes decode must re-encode to bytes that decode
// to the same value.
func FuzzStructRoundTrip(f *testing.F) {
	f.Add(make([]byte, PFCLen))
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, b []byte) {
		roundTrip(t, b, &ETS{}, func() any { return &ETS{} })
		roundTrip(t, b, &PFC{}, func() any { return &PFC{} })
		roundTrip(t, b, &Maxrate{}, func() any { return &Maxrate{} })
		roundTrip(t, b, &Buffer{}, func() any { return &Buffer{} })
		roundTrip(t, b, &App{}, func() any { return &App{} })
	})
}

type binaryCodec interface {
	MarshalBinary() ([]byte, error)
	UnmarshalBinary([]byte) error
}

func roundTrip(t *testing.T, b []byte, v binaryCodec, fresh func() any) {
	if err := v.UnmarshalBinary(b); err != nil {
		if !errors.Is(err, ErrMalformed) {
			t.Fatalf("%T: %v", v, err)
		}
		return
	}
	enc, _ := v.MarshalBinary()
	w := fresh().(binaryCodec)
	if err := w.UnmarshalBinary(enc); err != nil {
		t.Fatalf("%T: re-decoding: %v", v, err)
	}
	if !reflect.DeepEqual(v, w) {
		t.Fatalf("%T: round trip changed %+v into %+v", v, v, w)
	}
}
