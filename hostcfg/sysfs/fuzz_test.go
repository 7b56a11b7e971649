package sysfs_test

import (
	"math"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/hostcfg/sysfs"
)

func FuzzParseCodeName(f *testing.F) {
	for _, s := range []string{"4: ACTIVE", "5: LinkUp", "1: DOWN", "3: Disabled", ":", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, n, err := sysfs.ParseCodeName(s)
		if err == nil && (c < 0 || n == "" || strings.TrimSpace(n) != n) {
			t.Errorf("ParseCodeName(%q) = %d, %q without error", s, c, n)
		}
	})
}

func FuzzParseRate(f *testing.F) {
	for _, s := range []string{"100 Gb/sec (4X EDR)", "2.5 Gb/sec (1X SDR)", "10 Gb/sec (1X QDR)", "0x1p3 Gb/sec"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		g, err := sysfs.ParseRate(s)
		if err == nil && (g < 0 || math.IsNaN(g)) {
			t.Errorf("ParseRate(%q) = %v without error", s, g)
		}
	})
}

func FuzzParseGID(f *testing.F) {
	for _, s := range []string{"fe80:0000:0000:0000:bace:f6ff:fea1:2b3c", "0000:0000:0000:0000:0000:ffff:0a0a:010b",
		"0000:0000:0000:0000:0000:0000:0000:0000", "::1", "1.2.3.4"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := sysfs.ParseGID(s)
		if err == nil && a.IsValid() && (!a.Is6() || a.IsUnspecified()) {
			t.Errorf("ParseGID(%q) = %v without error", s, a)
		}
	})
}

func FuzzParsePKey(f *testing.F) {
	for _, s := range []string{"0xffff", "0x8002", "0x0000", "0x", "0x7fff\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = sysfs.ParsePKey(s)
	})
}

func FuzzParseTrust(f *testing.F) {
	for _, s := range []string{"Priority trust state: dscp", "Priority trust state: pcp", "dscp", ":"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := sysfs.ParseTrust(s)
		if err == nil && v != "dscp" && v != "pcp" {
			t.Errorf("ParseTrust(%q) = %q", s, v)
		}
	})
}
