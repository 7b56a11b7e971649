package analyze

import (
	"strings"
	"testing"
)

// TestDetectNCCLTestsAroundLogs: nccl-tests print NCCL's log inside their
// own output; a log holding nccl-tests' table, footer or failure lines is
// an nccl-tests run, whatever share of it NCCL's lines are.
func TestDetectNCCLTestsAroundLogs(t *testing.T) {
	info := strings.Repeat("h1:10:10 [0] NCCL INFO misc/socket.cc:58 -> 6\n", 30)
	for name, c := range map[string]struct {
		text string
		want Kind
	}{
		"failure line":  {info + "h1: Test NCCL failure common.cu:961 'internal error - please report this issue to the NCCL developers / '\n", KindNCCLTests},
		"old footer":    {info + " Out of bounds values : 2 FAILED\n", KindNCCLTests},
		"old 1.x table": {"nThread 1 nGpus 8 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 validation: 1\n#      bytes             N    type      op     time  algbw  busbw      res     time  algbw  busbw      res\n", KindNCCLTests},
		"plain log":     {info, KindNCCL},
	} {
		if got := Detect([]byte(c.text)); got != c.want {
			t.Errorf("%s: %s, want %s", name, got, c.want)
		}
	}
}

// TestUnknownSaysWhatCameClosest: a file no kind is told in says which
// kinds were tried and which came closest, with its score.
func TestUnknownSaysWhatCameClosest(t *testing.T) {
	f := Analyze("x.txt", []byte("some notes\nrun ib_write_bw later\n"))
	if f.Kind != KindUnknown || len(f.Findings) != 1 {
		t.Fatalf("%+v", f)
	}
	x := f.Findings[0]
	if !strings.Contains(x.Summary, "closest perftest (score 1") || len(x.Evidence) != 1 || !strings.Contains(x.Evidence[0], "ibv_devinfo") || !strings.Contains(x.Evidence[0], "nccl-log") {
		t.Errorf("%+v", x)
	}
	if f := Analyze("y.txt", []byte("nothing at all\n")); !strings.Contains(f.Findings[0].Summary, "no line of any kind") {
		t.Errorf("%+v", f.Findings)
	}
}

// TestEmptyFileSaysSo: an empty capture (nvidia-smi nvlink prints nothing
// on a one-GPU VM) is a skip that says it is empty.
func TestEmptyFileSaysSo(t *testing.T) {
	f := Analyze("nvlink-s.txt", []byte("\n \n"))
	if f.Worst() != "skip" || !strings.Contains(f.Findings[0].Summary, "empty") {
		t.Errorf("%+v", f)
	}
}
