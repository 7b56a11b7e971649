package task

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
)

// gzipArgs packs raw bytes as EncodeArgs would (gzip, URL-safe base64, ArgChunk pieces),
// whatever they hold.
func gzipArgs(t testing.TB, write func(w io.Writer)) []string {
	t.Helper()
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	write(zw)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	s := base64.RawURLEncoding.EncodeToString(b.Bytes())
	var out []string
	for len(s) > ArgChunk {
		out, s = append(out, s[:ArgChunk]), s[ArgChunk:]
	}
	return append(out, s)
}

// allocated is how many bytes fn allocated.
func allocated(fn func()) uint64 {
	runtime.GC()
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	fn()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

func argBytes(args []string) int {
	n := 0
	for _, a := range args {
		n += len(a)
	}
	return n
}

// retained is how many bytes of heap fn's result holds.
func retained(fn func() any) int64 {
	runtime.GC() // twice: sync.Pools keep their contents through one
	runtime.GC()
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	v := fn()
	runtime.GC()
	runtime.ReadMemStats(&b)
	runtime.KeepAlive(v)
	return int64(b.HeapAlloc) - int64(a.HeapAlloc)
}

// TestTaskSpecGzipBombRefusedWhileReading: a spec whose JSON inflates past MaxJSON (a string that never
// ends: 100 MiB from 100 KB of arguments) is refused once MaxJSON bytes went by, none of them
// kept. Before, the whole 256 MiB it allowed was read into memory first (a 400 KB bomb took
// 612 MB).
func TestTaskSpecGzipBombRefusedWhileReading(t *testing.T) {
	args := gzipArgs(t, func(w io.Writer) {
		io.WriteString(w, `{"v":1,"kind":"round","jobs":[{"server":{"node":"`)
		chunk := bytes.Repeat([]byte("a"), 1<<20)
		for range 100 {
			w.Write(chunk)
		}
	})
	var err error
	alloc := allocated(func() { _, err = DecodeArgs(args) })
	t.Logf("bomb of %d argument bytes: %v; %d bytes allocated", argBytes(args), err, alloc)
	want := fmt.Sprintf("invalid task spec: decompressed size exceeds %d bytes", MaxJSON)
	if !errors.Is(err, ErrSpec) || !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want ErrSpec saying %q", err, want)
	}
	if alloc > 4<<20 {
		t.Errorf("refusing the bomb allocated %d bytes, want under 4 MiB", alloc)
	}
}

// emptyJobs is a round whose jobs are n empty objects: 3 bytes of JSON each, a Job (over 250
// bytes) each once decoded.
func emptyJobs(key string, n int) func(w io.Writer) {
	return func(w io.Writer) {
		io.WriteString(w, `{"v":1,"kind":"round","`+key+`":[{}`)
		chunk := []byte(strings.Repeat(",{}", 4096))
		for range n / 4096 {
			w.Write(chunk)
		}
		io.WriteString(w, "]}")
	}
}

// TestTaskSpecDecodedSizeBounded: JSON well under MaxJSON that decodes into far more memory — a
// million `{}` jobs, 3 MB of JSON from 3 KB of arguments, are 550 MB of Jobs (a slice of them
// growing) — is refused before it is decoded, whichever spelling of the field name
// encoding/json would take for "jobs".
func TestTaskSpecDecodedSizeBounded(t *testing.T) {
	// encoding/json matches field names case-insensitively, after unescaping, with Unicode
	// folding: each of these is Jobs
	for _, key := range []string{"jobs", "JOBS", "job\\u0073", "jobſ"} {
		var s Spec
		if err := json.Unmarshal([]byte(`{"`+key+`":[{}]}`), &s); err != nil || len(s.Jobs) != 1 {
			t.Fatalf("%q is not Jobs to encoding/json: %v", key, err)
		}
	}
	for _, key := range []string{"jobs", "JOBS", "job\\u0073", "jobſ"} {
		args := gzipArgs(t, emptyJobs(key, 1<<20))
		var err error
		alloc := allocated(func() { _, err = DecodeArgs(args) })
		t.Logf("%q: %d argument bytes: %v; %d bytes allocated", key, argBytes(args), err, alloc)
		want := fmt.Sprintf("invalid task spec: decoding would take more than %d bytes of memory", MaxDecoded)
		if !errors.Is(err, ErrSpec) || !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want ErrSpec saying %q", key, err, want)
		}
		if alloc > 4<<20 {
			t.Errorf("%q: refusing allocated %d bytes, want under 4 MiB", key, alloc)
		}
	}
}

// TestTaskEstimateCoversDecoding: for specs that decode, the estimate is at least the heap the
// decoded spec holds, and for a 10,000-host preflight step (22 MB of JSON) within a quarter of
// MaxDecoded.
func TestTaskEstimateCoversDecoding(t *testing.T) {
	b, err := os.ReadFile("../../../hostcfg/testdata/desired/rxe.json")
	if err != nil {
		t.Fatal(err)
	}
	var in fabric.HostIntent
	if err := json.Unmarshal(b, &in); err != nil {
		t.Fatal(err)
	}
	hosts := make([]fabric.HostIntent, 10000)
	for i := range hosts {
		hosts[i] = in
		hosts[i].Host = fmt.Sprintf("gpu%05d", i)
		hosts[i].Address = fmt.Sprintf("10.0.%d.%d", i/250, i%250+1)
	}
	for name, s := range map[string]Spec{
		"preflight of 10,000 hosts": PreflightSpec(hosts, hosts, func(h string) string { return h }),
		"round of 20,000 nodes":     roundSpec(20000),
		"100,000 empty jobs": func() Spec {
			var s Spec
			json.Unmarshal([]byte(`{"v":1,"kind":"round","jobs":[{}`+strings.Repeat(",{}", 100000)+`]}`), &s)
			return s
		}(),
	} {
		s.Version = Version
		js, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		cost, err := estimate(bytes.NewReader(js), reflect.TypeFor[Spec]())
		args, _ := EncodeArgs(s)
		held := retained(func() any {
			var got Spec
			if err := unpack(args, &got); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			return &got
		})
		runtime.KeepAlive(js)
		runtime.KeepAlive(args)
		t.Logf("%s: %d bytes of JSON, estimated %d bytes, holds %d bytes decoded", name, len(js), cost, held)
		if err != nil || cost < held {
			t.Errorf("%s: estimate %d (%v) below the %d bytes the decoded spec holds", name, cost, err, held)
		}
		if s.Kind == KindPreflight && cost > MaxDecoded/4 {
			t.Errorf("%s: estimated at %d bytes, want at most a quarter of MaxDecoded", name, cost)
		}
	}
}

// TestTaskCollectAllocatesForFramesThatCame: a frame line saying its result has 100,000 frames
// costs what the line holds, not 100,000 slots; 300 such lines of other nodes cost 300 lines
// (it was 1.6 MB a line).
func TestTaskCollectAllocatesForFramesThatCame(t *testing.T) {
	var in strings.Builder
	for i := range 300 {
		fmt.Fprintf(&in, "%s v%d n%03d 1/%d AAAA\n", FrameTag, Version, i, maxFrames)
	}
	var c Collected
	alloc := allocated(func() { c = Collect(strings.NewReader(in.String()), nil) })
	t.Logf("300 lines of 1/%d: %d bytes allocated", maxFrames, alloc)
	if len(c.Errors) != 300 || !strings.Contains(c.Errors[0].Error(), "1 of 100000 frames arrived") {
		t.Errorf("errors: %d, first %v", len(c.Errors), c.Errors[0])
	}
	if alloc > 1<<20 {
		t.Errorf("300 frame lines allocated %d bytes, want under 1 MiB", alloc)
	}
	long := fmt.Sprintf("%s v%d n1 1/1 %s\n", FrameTag, Version, strings.Repeat("A", framePayload+1))
	if c := Collect(strings.NewReader(long), nil); len(c.Errors) != 1 || !strings.Contains(c.Errors[0].Error(), "n1: line 1: a frame of 401 bytes, over 400") {
		t.Errorf("a frame longer than WriteResult writes: %v", c.Errors)
	}
}

// TestTaskCollectRefusesAResultBomb: a node's result that inflates past MaxJSON is an error naming
// the node, found without keeping what was inflated.
func TestTaskCollectRefusesAResultBomb(t *testing.T) {
	args := gzipArgs(t, func(w io.Writer) {
		io.WriteString(w, `{"v":1,"node":"gpu07","error":"`)
		chunk := bytes.Repeat([]byte(" "), 1<<20)
		for range 80 {
			w.Write(chunk)
		}
	})
	payload := strings.Join(args, "")
	n := (len(payload) + framePayload - 1) / framePayload
	var in strings.Builder
	for i := range n {
		fmt.Fprintf(&in, "%s v%d gpu07 %d/%d %s\n", FrameTag, Version, i+1, n, payload[i*framePayload:min((i+1)*framePayload, len(payload))])
	}
	var c Collected
	alloc := allocated(func() { c = Collect(strings.NewReader(in.String()), nil) })
	t.Logf("%d frames: %v; %d bytes allocated", n, c.Errors, alloc)
	want := fmt.Sprintf("invalid task result: gpu07: decompressed size exceeds %d bytes", MaxJSON)
	if len(c.Errors) != 1 || !errors.Is(c.Errors[0], ErrTooLarge) || c.Errors[0].Error() != want {
		t.Errorf("got %v, want %q", c.Errors, want)
	}
	if alloc > 4<<20 {
		t.Errorf("refusing the result allocated %d bytes, want under 4 MiB", alloc)
	}
}

// FuzzTaskEstimate: the sizer reads all JSON that encoding/json reads (were it to stop early on a
// value encoding/json then decodes, what follows would not be counted), and never panics.
func FuzzTaskEstimate(f *testing.F) {
	good, _ := json.Marshal(roundSpec(4))
	f.Add(string(good))
	f.Add(`{"v":1,"kind":"round","job\u0073":[{"server":{"node":"a\"b","port":1e3}},{}],"test":{"Test":"write_bw"}}`)
	f.Add(`{"hosts":[{"intent":{"labels":{"a":"b"},"interfaces":[{"dscpMap":[{"dscp":-0.5E+2}]}]}}],"nccl":null}`)
	f.Add(` [true, false, null, {"x": [[]]}] `)
	f.Fuzz(func(t *testing.T, s string) {
		z := walk(strings.NewReader(s), reflect.TypeFor[Spec]())
		if z.bad && json.Valid([]byte(s)) {
			t.Fatalf("the sizer stopped on valid JSON %q", s)
		}
		if z.cost < 0 {
			t.Fatalf("negative cost %d", z.cost)
		}
	})
}
