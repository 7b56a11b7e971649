package localizesim

import (
	"math"
	"testing"

	"github.com/fabricctl/fabricctl/checks/localize"
	"github.com/fabricctl/fabricctl/checks/schedule"
)

// TestIncidentWeights: the incident kinds' shares add up to one and keep
// the NIC kinds at one in six, the ratio of Llama 3's Table 5 (35 network
// switch and cable interruptions to 7 NIC ones).
func TestIncidentWeights(t *testing.T) {
	total, nic := 0.0, 0.0
	for _, w := range IncidentWeights {
		if w.Weight <= 0 {
			t.Errorf("%s: weight %v", w.Incident, w.Weight)
		}
		total += w.Weight
		if w.Incident == IncidentNIC || w.Incident == IncidentPauseStorm {
			nic += w.Weight
		}
	}
	if math.Abs(total-1) > 1e-9 {
		t.Errorf("weights add up to %v", total)
	}
	if math.Abs(nic-7.0/42) > 0.005 {
		t.Errorf("NIC kinds share %.3f, want 7/42", nic)
	}
}

// TestHostCounters: a host reads its NIC's link speed and pause-storm
// watchdog; a storming NIC counts, a healthy one does not.
func TestHostCounters(t *testing.T) {
	cfg := Default()
	cfg.Hosts, cfg.Leaves, cfg.Spines = 64, 4, 4
	s := New(cfg, 1)
	f := s.BreakWith(3, Fault{Kind: NIC, Factor: 0.2, Storm: true, Incident: IncidentPauseStorm})
	read, moved, err := s.ReadCounters(t.Context())
	if err != nil || len(read) == 0 {
		t.Fatalf("read %d, err %v", len(read), err)
	}
	speeds, storms := 0, 0
	for _, c := range moved {
		switch c.Kind {
		case localize.Degraded:
			speeds++
			if c.Delta != 0 {
				t.Errorf("%s runs below its speed: %+v", c.At, c)
			}
		case localize.PauseStorm:
			storms++
			if "nic:"+c.At.String() != f.Component {
				t.Errorf("storm counted at %s, fault %s", c.At, f.Component)
			}
		}
	}
	if speeds != cfg.Hosts || storms != 1 {
		t.Errorf("%d speeds, %d storms", speeds, storms)
	}
}

// TestBreakWith: a gray cable spoils about its share of the tests whose
// data crosses it, an intermittent NIC only in its active rounds.
func TestBreakWith(t *testing.T) {
	cfg := Default()
	cfg.Hosts, cfg.Leaves, cfg.Spines = 64, 4, 4
	cfg.SpuriousLoss, cfg.FalseSlow, cfg.VoidRate = 0, 0, 0
	s := New(cfg, 2)
	s.BreakWith(0, Fault{Kind: Cable, Dir: Up, Rate: 0.01, Factor: 0.7, Share: 0.5})
	s.BreakWith(1, Fault{Kind: NIC, Factor: 0.3, Active: 0.5})
	lossy, slowRounds := 0, map[int]bool{}
	const rounds = 40
	for r := range rounds {
		obs, err := s.RunRound(t.Context(), r, schedule.Round{{Client: "h0001", Server: "h0003"}, {Client: "h0002", Server: "h0004"}})
		if err != nil {
			t.Fatal(err)
		}
		if obs[0].Loss {
			lossy++
		}
		if obs[1].Gbps < 0.9*cfg.HostGbps {
			slowRounds[r] = true
		}
	}
	if lossy < rounds/4 || lossy > 3*rounds/4 {
		t.Errorf("gray cable: %d of %d tests lossy, want about half", lossy, rounds)
	}
	if n := len(slowRounds); n < rounds/4 || n > 3*rounds/4 {
		t.Errorf("intermittent NIC: slow in %d of %d rounds, want about half", n, rounds)
	}
}
