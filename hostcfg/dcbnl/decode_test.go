package dcbnl

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/fabricctl/fabricctl/hostcfg/dcbnl/internal/nlwire"
	"github.com/fabricctl/fabricctl/internal/testutil"
)

type decodedError struct {
	Message      string `json:"message"`
	Cmd          string `json:"cmd"`
	Errno        int    `json:"errno"`
	InBand       bool   `json:"inBand"`
	DriverStatus uint8  `json:"driverStatus,omitempty"`
}

type decodedReply struct {
	State  *IEEEState    `json:"state,omitempty"`
	DCBX   *uint8        `json:"dcbx,omitempty"`
	Status string        `json:"status,omitempty"`
	Error  *decodedError `json:"error,omitempty"`
}

// decodeFixture decodes a reply with the decoder its file name names.
func decodeFixture(name string, b []byte) (decodedReply, error) {
	var out decodedReply
	var err error
	switch {
	case strings.HasPrefix(name, "ieee-get-"), strings.HasPrefix(name, "error-"):
		var st IEEEState
		if st, err = DecodeIEEE(b); err == nil {
			out.State = &st
		}
	case strings.HasPrefix(name, "status-"):
		if err = DecodeStatus(b); err == nil {
			out.Status = "ok"
		}
	case strings.HasPrefix(name, "gdcbx-"):
		var m uint8
		if m, err = DecodeDCBX(b); err == nil {
			out.DCBX = &m
		}
	default:
		panic("fixture " + name + " has no decoder")
	}
	var ke *Error
	if errors.As(err, &ke) {
		out.Error = &decodedError{Message: err.Error(), Cmd: ke.Cmd.String(), Errno: int(ke.Errno), InBand: ke.InBand, DriverStatus: ke.DriverStatus}
		err = nil
	}
	return out, err
}

func replyFixtures(t testing.TB) []string {
	files, err := filepath.Glob("testdata/replies/*.hex")
	if err != nil || len(files) == 0 {
		t.Fatalf("no reply fixtures: %v", err)
	}
	return files
}

// Every hand-built reply decodes to its golden JSON (go test -update rewrites).
func TestDecodeReplyGoldens(t *testing.T) {
	skipUnlessLittleEndian(t)
	for _, path := range replyFixtures(t) {
		name := strings.TrimSuffix(filepath.Base(path), ".hex")
		t.Run(name, func(t *testing.T) {
			out, err := decodeFixture(name, readHex(t, path))
			if err != nil {
				t.Fatalf("decoding: %v", err)
			}
			got, _ := json.MarshalIndent(out, "", "  ")
			testutil.Golden(t, filepath.Join("decoded", name+".golden"), append(got, '\n'))
		})
	}
}

// What callers rely on, asserted directly rather than through the goldens.
func TestDecodeSemantics(t *testing.T) {
	skipUnlessLittleEndian(t)
	st, err := DecodeIEEE(readHex(t, "testdata/replies/ieee-get-mlx5.hex"))
	if err != nil {
		t.Fatal(err)
	}
	if st.IfName != "eth2" || st.ETS == nil || st.PFC == nil || st.Buffer == nil || st.Maxrate == nil {
		t.Fatalf("mlx5 reply: missing parts: %+v", st)
	}
	if st.PFC.PFCEn != 1<<3 || st.PFC.Delay != 7 || st.PFC.Requests[3] != 1234 || st.PFC.Indications[3] != 5 {
		t.Errorf("PFC = %+v", *st.PFC)
	}
	if st.ETS.PrioTC != [8]uint8{1, 0, 2, 3, 4, 5, 6, 7} || st.ETS.TCTSA[6] != TSAStrict {
		t.Errorf("ETS = %+v", *st.ETS)
	}
	if st.HasTrust || !st.HasRewr || len(st.Rewr) != 0 || !st.HasDCBX || st.DCBX != DCBXHostIEEE {
		t.Errorf("trust/rewr/dcbx = %v %v %v %v %#x", st.HasTrust, st.HasRewr, st.Rewr, st.HasDCBX, st.DCBX)
	}
	wantApps := []App{{SelDSCP, 6, 48}, {SelDSCP, 3, 26}}
	if len(st.Apps) != 2 || st.Apps[0] != wantApps[0] || st.Apps[1] != wantApps[1] {
		t.Errorf("apps = %v, want %v", st.Apps, wantApps)
	}

	st, err = DecodeIEEE(readHex(t, "testdata/replies/ieee-get-trust-nested.hex"))
	if err != nil {
		t.Fatal(err)
	}
	if st.PFC != nil || st.Buffer != nil || st.Maxrate != nil || st.HasDCBX || st.HasRewr {
		t.Errorf("absent attributes decoded as present: %+v", st)
	}
	if !st.HasTrust || len(st.Trust) != 1 || st.Trust[0] != SelPCP {
		t.Errorf("trust = %v (has %v)", st.Trust, st.HasTrust)
	}
	if st.ETS == nil || st.ETS.Willing != 1 || st.ETS.RecoPrioTC != [8]uint8{} {
		t.Errorf("longer ETS misread: %+v", st.ETS)
	}
	if len(st.Apps) != 2 || st.Apps[0] != (App{SelPCP, 5, 11}) || st.Apps[1] != (App{SelEthertype, 4, 0x8915}) {
		t.Errorf("apps = %v", st.Apps)
	}

	for file, want := range map[string]syscall.Errno{
		"error-enodev":              syscall.ENODEV,
		"error-eopnotsupp-set":      syscall.EOPNOTSUPP,
		"status-ieee-set-einval":    syscall.EINVAL,
		"status-ieee-del-enoent":    syscall.ENOENT,
		"status-ieee-set-ehwpoison": syscall.Errno(133),
	} {
		b := readHex(t, "testdata/replies/"+file+".hex")
		var err error
		if strings.HasPrefix(file, "error-") {
			_, err = DecodeIEEE(b)
		} else {
			err = DecodeStatus(b)
		}
		if !errors.Is(err, want) {
			t.Errorf("%s: got %v, want an error matching %v", file, err, want)
		}
	}
	if err := DecodeStatus(readHex(t, "testdata/replies/status-ieee-set-ok.hex")); err != nil {
		t.Errorf("ok status: %v", err)
	}
	if err := DecodeStatus(readHex(t, "testdata/replies/status-sdcbx-rejected.hex")); !errors.Is(err, ErrDCBXRejected) {
		t.Errorf("sdcbx rejected: got %v", err)
	}
	// A status reply is not an IEEE_GET reply and vice versa.
	if _, err := DecodeIEEE(readHex(t, "testdata/replies/status-ieee-set-ok.hex")); !errors.Is(err, ErrMalformed) {
		t.Errorf("DecodeIEEE of a status reply: got %v, want ErrMalformed", err)
	}
	if err := DecodeStatus(readHex(t, "testdata/replies/ieee-get-mlx5.hex")); !errors.Is(err, ErrMalformed) {
		t.Errorf("DecodeStatus of a get reply: got %v, want ErrMalformed", err)
	}
}

// Truncating a valid reply anywhere but between two messages must give an
// error from every decoder, never a panic and never a silently shorter state.
func TestDecodeTruncated(t *testing.T) {
	for _, path := range replyFixtures(t) {
		b := readHex(t, path)
		msgs, err := nlwire.SplitMessages(b)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		boundary := map[int]bool{}
		off := 0
		for _, m := range msgs {
			off += nlwire.Align(len(m))
			boundary[off] = true
		}
		for n := 0; n < len(b); n++ {
			if boundary[n] {
				continue
			}
			cut := b[:n]
			if _, err := DecodeIEEE(cut); err == nil {
				t.Errorf("%s cut at %d: DecodeIEEE succeeded", path, n)
			}
			if err := DecodeStatus(cut); err == nil {
				t.Errorf("%s cut at %d: DecodeStatus succeeded", path, n)
			}
			if _, err := DecodeDCBX(cut); err == nil {
				t.Errorf("%s cut at %d: DecodeDCBX succeeded", path, n)
			}
		}
	}
}
