package eos

import (
	"os"
	"testing"

	"github.com/fabricctl/fabricctl/switchcfg/drivertest"
)

// TestCountersGolden: every sample under testdata/counters parses into
// its golden counters, through the driver's CounterReader.
func TestCountersGolden(t *testing.T) {
	drivertest.CounterGolden(t, New(), "counters/*.json", 3)
}

// TestCounterPorts: the errors land on the port that counted them, by
// kind; Port-Channels, subinterfaces, VLANs and loopbacks are not read.
func TestCounterPorts(t *testing.T) {
	b, err := os.ReadFile("testdata/counters/own-gpu-leaf-errors.json")
	if err != nil {
		t.Fatal(err)
	}
	got := drivertest.CounterValues(t, New(), b)
	for k, v := range map[string]uint64{"Ethernet1/1 fcsErrors": 1841, "Ethernet1/1 symbolErrors": 12, "Ethernet2/1 inDiscards": 77,
		"Ethernet49/1 alignmentErrors": 3, "Ethernet50/1 fcsErrors": 0, "Management1 inDiscards": 0} {
		if g, ok := got[k]; !ok || g != v {
			t.Errorf("%s = %d (read %v), want %d", k, g, ok, v)
		}
	}
	for _, k := range []string{"Port-Channel10 fcsErrors", "Ethernet50/1.100 fcsErrors", "Management1 fcsErrors", "Ethernet49/1 runtFrames"} {
		if _, ok := got[k]; ok {
			t.Errorf("%s read, want left out", k)
		}
	}
	if len(got) != 4*4+1 {
		t.Errorf("%d counters, want 17: %v", len(got), got)
	}
}

// TestCounterErrors: output that is not the JSON is an error naming the
// command and where, never an empty list.
func TestCounterErrors(t *testing.T) {
	drivertest.CounterErrors(t, New(), ErrCounters, map[string]string{
		"% Invalid input detected at '^' marker.\n": "line 1, column 1",
		`{"lldpNeighbors": []}`:                     "no interfaces object",
		"{\"interfaces\": {\"Ethernet1\": {\"hardware\": \"ethernet\",\n \"interfaceCounters\": {\"inDiscards\": -1}}}}":          "line 2",
		`{"interfaces": {"Ethernet1": {"hardware": "ethernet", "interfaceCounters": {"inputErrorsDetail": {"fcsErrors": 1.5}}}}}`: "line 1",
		`{"interfaces": []}`:          "line 1",
		`{"interfaces": {}} trailing`: "text after the JSON document",
	})
}

// FuzzParseInterfaceCounters: any output parses or fails with
// ErrCounters, without panicking.
func FuzzParseInterfaceCounters(f *testing.F) {
	drivertest.CounterFuzz(f, New(), "counters/*.json", ErrCounters)
}
