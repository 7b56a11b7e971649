package cumulus

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/switchcfg"
)

// TestDecodeConfigBounded (issue 28): a 100 MiB NVUE file peaked at
// 938 MB, and yaml.v3 checks a mapping's keys against each other, so 300,000
// keys under one object took minutes. A YAML document larger than
// maxYAML, or a document of more than maxNodes objects, lists and values,
// is refused, naming the bound; JSON is read value by value; a mapping of
// many keys reads in linear time (the 2 MiB of them in about a second, not
// minutes); aliases count once per use.
func TestDecodeConfigBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("- set:\n    system:\n      hostname: leaf\n    qos:\n")
	for i := 0; b.Len() < maxYAML-64; i++ {
		fmt.Fprintf(&b, "      k%d: v\n", i)
	}
	start := time.Now()
	if _, err := DecodeConfig([]byte(b.String())); err != nil {
		t.Errorf("%d KB of keys under one mapping: %v", b.Len()>>10, err)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("%d KB of keys under one mapping took %v", b.Len()>>10, took)
	}

	big := "- set:\n    system:\n      hostname: " + strings.Repeat("x", maxYAML) + "\n"
	if _, err := DecodeConfig([]byte(big)); err == nil || !strings.Contains(err.Error(), "MiB") {
		t.Errorf("a YAML document past %d bytes: %v", maxYAML, err)
	}

	var j strings.Builder
	j.WriteString(`[{"set": {"system": {"hostname": "leaf"}, "qos": {`)
	for i := 0; i <= maxNodes; i++ {
		fmt.Fprintf(&j, `"k%d": "v", `, i)
	}
	j.WriteString(`"z": "v"}}}]`)
	if _, err := DecodeConfig([]byte(j.String())); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Errorf("a JSON document of %d values: %v", maxNodes, err)
	}

	// Aliases: every use counts (a billion laughs is refused, not expanded).
	laughs := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	for i, prev := 0, "a"; i < 8; i++ {
		name := fmt.Sprintf("b%d", i)
		laughs += fmt.Sprintf("%s: &%s [*%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s]\n", name, name, prev, prev, prev, prev, prev, prev, prev, prev, prev, prev)
		prev = name
	}
	if _, err := DecodeConfig([]byte("qos: {}\n" + laughs)); err == nil {
		t.Error("a billion laughs decoded")
	}
	// Duplicate keys are refused with their line, as yaml.v3 refuses them.
	if _, err := DecodeConfig([]byte("qos:\n  roce: {}\n  roce: {}\n")); err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("a duplicate key: %v", err)
	}
}

// TestParseRefusesBadNumbers (issue 28): numbers out of their range —
// negative, past any switch buffer, not a number — are refused with where
// they are, never read.
func TestParseRefusesBadNumbers(t *testing.T) {
	for _, tc := range []struct {
		cmd, text, want string
	}{
		{CmdConfigShow, `{"qos": {"congestion-control": {"default-global": {"traffic-class": {"3": {"min-threshold": 99999999999999, "max-threshold": 200000}}}}}}`, "min-threshold"},
		{CmdConfigShow, `{"qos": {"congestion-control": {"default-global": {"traffic-class": {"3": {"min-threshold": 100000, "max-threshold": 1e23}}}}}}`, "max-threshold"},
		{CmdShowRoCE, "pfc\n  pfc-priority      3\n  cable-length      -100\nmode                lossless\n", "cable-length"},
		{CmdShowRoCE, "congestion-control\n  enabled-tc        3\n  probability       101\nmode                lossless\n", "probability"},
		{CmdShowRoCE, "congestion-control\n  enabled-tc        3\n  min-threshold     9999999 GB\nmode                lossless\n", "min-threshold"},
	} {
		_, err := New().Parse(switchcfg.Readback{tc.cmd: []byte(tc.text)})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v", tc.want, err)
		}
	}
}
