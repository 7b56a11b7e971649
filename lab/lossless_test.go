package lab

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/internal/testutil"
)

func TestValidatePFCOff(t *testing.T) {
	if err := ValidateNetem([]string{PFCOff}); err != nil {
		t.Errorf("pfc-off refused: %v", err)
	}
	for _, bad := range [][]string{{PFCOff, "2%"}, {PFCOff, "loss", "2%"}, {"loss", "2%", PFCOff}, {"pfc"}, {"PFC-OFF"}} {
		err := ValidateNetem(bad)
		if !errors.Is(err, ErrBadFault) {
			t.Errorf("%q accepted: %v", bad, err)
			continue
		}
		if IsPFCOff(bad) && !strings.Contains(err.Error(), "pfc-off takes no arguments") {
			t.Errorf("%q: %v, want it to say pfc-off takes no arguments", bad, err)
		}
	}
	// a netem that is not known names pfc-off among what may be given
	if err := ValidateNetem([]string{"pause"}); err == nil || !strings.Contains(err.Error(), PFCOff) {
		t.Errorf("unknown netem: %v, want pfc-off named", err)
	}
	if err := ValidateNetem(nil); err == nil || !strings.Contains(err.Error(), PFCOff) {
		t.Errorf("nothing given: %v, want pfc-off named", err)
	}
}

// TestPFCOffPoint: pfc-off sits on the machine's side of the host's port —
// the tap in the lab namespace, or swpN in its leaf's namespace — and only
// a host/NAME target has one.
func TestPFCOffPoint(t *testing.T) {
	one, err := Plan(DefaultTopology(), Options{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	p, err := one.hostPortPoint("host/lab-h4")
	if err != nil || p != (FaultPoint{Dev: one.VMs[3].Tap}) || one.pointNetns(p) != one.Netns {
		t.Errorf("one bridge, host/lab-h4: %+v %v", p, err)
	}
	two, err := Plan(TwoLeafTopology(), Options{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	p, err = two.hostPortPoint("host/lab-h4")
	if err != nil || p != (FaultPoint{Netns: two.Netns + "-leaf-02", Dev: "swp2"}) {
		t.Errorf("two leaves, host/lab-h4: %+v %v", p, err)
	}
	if got := p.String(); got != two.Netns+"-leaf-02:swp2" {
		t.Errorf("point %q", got)
	}
	for _, bad := range []string{"link/lab-h1", "link/leaf-01~leaf-02", "host/", "host/lab-h9", "lab-h1"} {
		_, err := two.hostPortPoint(bad)
		if !errors.Is(err, ErrBadFault) || !strings.Contains(err.Error(), bad) {
			t.Errorf("%q: %v, want ErrBadFault naming it", bad, err)
		}
		if strings.HasPrefix(bad, "link/") && !strings.Contains(err.Error(), "want host/NAME") {
			t.Errorf("%q: %v, want it to say host/NAME", bad, err)
		}
	}
	// AddFault refuses before it changes anything (the lab is only planned:
	// a command would fail on the missing namespace, not with ErrBadFault)
	for _, args := range []struct {
		target string
		netem  []string
	}{{"link/lab-h1", []string{PFCOff}}, {"host/lab-h1", []string{PFCOff, "now"}}, {"host/nobody", []string{PFCOff}}} {
		if _, err := two.AddFault(t.Context(), args.target, args.netem); !errors.Is(err, ErrBadFault) {
			t.Errorf("%s %q: %v, want ErrBadFault", args.target, args.netem, err)
		}
	}
	if f, _ := two.Faults(); len(f) != 0 {
		t.Errorf("refused faults recorded: %+v", f)
	}
}

func TestPortQueueArgs(t *testing.T) {
	got := strings.Join(portQueueArgs("fabricctl-lab-leaf-01", "swp1", 256), " ")
	if want := "-n fabricctl-lab-leaf-01 link set dev swp1 txqueuelen 256"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestLosslessAtLabUp: lab up gives every host's port — each tap, in the
// lab namespace or in its leaf's — the lossless emulation's queue, before
// it joins the bridge; no other port is touched.
func TestLosslessAtLabUp(t *testing.T) {
	for _, topo := range []Topology{DefaultTopology(), TwoLeafTopology()} {
		s, err := Plan(topo, Options{StateDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		steps := s.networkSteps()
		if len(s.Leaves) > 0 {
			steps = append(steps, s.leafSteps()...)
		}
		var queued []string
		for i, st := range steps {
			if !slices.Contains(st, "txqueuelen") {
				continue
			}
			ns, dev := st[1], st[5]
			queued = append(queued, dev)
			if want := portQueueArgs(ns, dev, LosslessQueueLen); !slices.Equal(st, want) {
				t.Errorf("%v, want %v", st, want)
			}
			enslaved := slices.IndexFunc(steps, func(x []string) bool {
				return x[1] == ns && slices.Contains(x, dev) && slices.Contains(x, "master")
			})
			if enslaved < i {
				t.Errorf("%s:%s joins its bridge (step %d) before its queue is set (step %d)", ns, dev, enslaved, i)
			}
		}
		var taps []string
		for _, v := range s.VMs {
			taps = append(taps, v.Tap)
		}
		if !slices.Equal(queued, taps) {
			t.Errorf("leaves %d: queues set on %v, want the hosts' ports %v", len(s.Leaves), queued, taps)
		}
	}
}

func TestMergeFault(t *testing.T) {
	at := time.Unix(1, 0).UTC()
	loss := Fault{Target: "host/lab-h4", Netem: []string{"loss", "2%"}, Added: at}
	pfc := Fault{Target: "host/lab-h4", Netem: []string{PFCOff}, Added: at}
	other := Fault{Target: "host/lab-h1", Netem: []string{"delay", "5ms"}, Added: at}
	got := mergeFault(mergeFault([]Fault{other}, pfc), loss)
	want := []Fault{other, loss, pfc}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("netem and pfc-off on one host:\n got %v\nwant %v", got, want)
	}
	worse := Fault{Target: "host/lab-h4", Netem: []string{"loss", "5%"}, Added: at}
	got = mergeFault(got, worse)
	if fmt.Sprint(got) != fmt.Sprint([]Fault{other, worse, pfc}) {
		t.Errorf("a second netem replaces the first, pfc-off stays: %v", got)
	}
	if got = mergeFault(got, pfc); len(got) != 3 {
		t.Errorf("pfc-off twice: %v", got)
	}
}

func TestFaultDescribe(t *testing.T) {
	f := Fault{Target: "host/lab-h4", Netem: []string{PFCOff}, Points: []FaultPoint{{Netns: "fabricctl-lab-leaf-02", Dev: "swp2"}}}
	got := f.Describe()
	for _, want := range []string{"pfc-off", "fabricctl-lab-leaf-02:swp2", fmt.Sprint(PFCOffQueueLen), fmt.Sprint(LosslessQueueLen)} {
		if !strings.Contains(got, want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
	n := Fault{Target: "host/lab-h1", Netem: []string{"loss", "2%"}, Points: []FaultPoint{{Host: "lab-h1", Dev: "eth0"}}}
	if got, want := n.Describe(), "netem loss 2% on RoCE v2 (UDP 4791) leaving lab-h1:eth0"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestParsePortQueueGolden: the sysfs files HostPortQueue reads, as the lab
// gave them (testdata/port-queue/README.md says how they were captured).
func TestParsePortQueueGolden(t *testing.T) {
	var b strings.Builder
	for _, name := range []string{"lossless.txt", "pfc-off.txt"} {
		raw, err := os.ReadFile("testdata/port-queue/" + name)
		if err != nil {
			t.Fatal(err)
		}
		n, tx, drop, err := parsePortQueue(string(raw))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		q := PortQueue{Len: n, TxPackets: tx, TxDropped: drop}
		fmt.Fprintf(&b, "%s: len %d lossless %v tx_packets %d tx_dropped %d\n", name, q.Len, q.Lossless(), q.TxPackets, q.TxDropped)
	}
	testutil.Golden(t, "port-queue.golden", []byte(b.String()))
	for _, bad := range []string{"", "1000\n5\n", "x 1 2", "-1 1 2", "10 1 -2", "10 1 2 3"} {
		if _, _, _, err := parsePortQueue(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func FuzzParsePortQueue(f *testing.F) {
	f.Add("10000\n1234\n0\n")
	f.Add("256\n1704707\n183218\n")
	f.Add("x")
	f.Fuzz(func(t *testing.T, s string) {
		n, _, _, err := parsePortQueue(s)
		if err == nil && (n < 0 || len(strings.Fields(s)) != 3) {
			t.Fatalf("accepted %q as %d", s, n)
		}
	})
}
