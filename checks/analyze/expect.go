package analyze

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/fabricctl/fabricctl/fabric"
)

// Expect holds the yardsticks the figures in a file are judged against. A
// zero field is no yardstick: the figure is reported with status skip, never
// pass — a number alone says nothing about whether the fabric is healthy.
type Expect struct {
	// BusBW is the floor of nccl-tests' best bus bandwidth, GB/s.
	BusBW float64 `json:"busbw,omitempty"`
	// BW is the floor of a perftest bandwidth test's average, Gb/s.
	BW float64 `json:"bw,omitempty"`
	// Lat is the ceiling of a perftest latency test's typical (or, where
	// perftest prints no typical, average) latency, µs.
	Lat float64 `json:"lat,omitempty"`
}

// Options are what Analyze judges with.
type Options struct {
	Expect Expect
}

// ErrExpect is wrapped by ParseExpect's errors.
var ErrExpect = errors.New("invalid expectation")

// expectUnits are the units each key accepts and their factor to the
// field's unit.
var expectUnits = map[string]map[string]float64{
	"busbw": {"": 1, "GB/s": 1, "GBps": 1},
	"bw":    {"": 1, "Gb/s": 1, "Gbps": 1, "Gbit/s": 1, "Mb/s": 1e-3, "Mbps": 1e-3},
	"lat":   {"": 1, "us": 1, "µs": 1, "usec": 1, "ms": 1000, "ns": 1e-3},
}

// ParseExpect reads `--expect busbw=120,bw=350Gb/s,lat=4us`: busbw in GB/s
// (nccl-tests' unit), bw in Gb/s (or Mb/s), lat in µs (or ms, ns).
func ParseExpect(s string) (Expect, error) {
	var e Expect
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		key, val, ok := strings.Cut(part, "=")
		key = strings.ToLower(strings.TrimSpace(key))
		units, known := expectUnits[key]
		if !ok || !known {
			return Expect{}, fmt.Errorf("%q: want busbw=GB/s, bw=Gb/s or lat=µs: %w", part, ErrExpect)
		}
		val = strings.TrimSpace(val)
		i := strings.IndexFunc(val, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
		num, unit := val, ""
		if i >= 0 {
			num, unit = val[:i], strings.TrimSpace(val[i:])
		}
		mult, ok := units[unit]
		f, err := strconv.ParseFloat(num, 64)
		if !ok || err != nil || f <= 0 || f > 1e7 {
			return Expect{}, fmt.Errorf("%q: %q is not a positive %s value: %w", part, val, key, ErrExpect)
		}
		switch key {
		case "busbw":
			e.BusBW = f * mult
		case "bw":
			e.BW = f * mult
		case "lat":
			e.Lat = f * mult
		}
	}
	return e, nil
}

// FabricExpect takes the yardsticks a fabric declares: the perftest floor
// from its pairwise (else loopback) portRate and minPercentOfPortRate, the
// latency ceiling from maxLatency. The busbw floor is not taken from a
// fabric: it scales with the NICs of each host, which a fabric does not
// declare (the nccl suite takes them from preflight); give --expect busbw.
func FabricExpect(f *fabric.Fabric) Expect {
	var e Expect
	if f == nil || f.Spec.Checks == nil {
		return e
	}
	c := f.Spec.Checks
	pct := func(p int) float64 {
		if p <= 0 {
			return 0
		}
		return float64(p) / 100
	}
	switch {
	case c.Pairwise != nil && c.Pairwise.PortRate > 0:
		e.BW = float64(c.Pairwise.PortRate) * pct(c.Pairwise.MinPercentOfPortRate)
	case c.Loopback != nil && c.Loopback.PortRate > 0:
		e.BW = float64(c.Loopback.PortRate) * pct(c.Loopback.MinPercentOfPortRate)
	}
	switch {
	case c.Pairwise != nil && c.Pairwise.MaxLatency > 0:
		e.Lat = float64(time.Duration(c.Pairwise.MaxLatency).Nanoseconds()) / 1e3
	case c.Loopback != nil && c.Loopback.MaxLatency > 0:
		e.Lat = float64(time.Duration(c.Loopback.MaxLatency).Nanoseconds()) / 1e3
	}
	return e
}

// Or fills e's zero fields from o.
func (e Expect) Or(o Expect) Expect {
	if e.BusBW == 0 {
		e.BusBW = o.BusBW
	}
	if e.BW == 0 {
		e.BW = o.BW
	}
	if e.Lat == 0 {
		e.Lat = o.Lat
	}
	return e
}
