package main

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/report"
)

func TestCheckRejectsBadFlags(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"check"}, "no fabric file"},
		{[]string{"check", "-f", "x.yaml", "--suite", "preflight,bogus"}, `unknown suite "bogus"`},
		{[]string{"check", "-f", "x.yaml", "-o", "yaml"}, `output "yaml" is not one of table, json, junit, html`},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(t, c.args...)
		if code != exitError || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 1 and %q", c.args, code, stderr, c.want)
		}
	}
}

func TestCheckExitCodes(t *testing.T) {
	v := 1.0
	cases := []struct {
		results []checks.Status
		pairs   []checks.Status
		want    int
	}{
		{[]checks.Status{checks.StatusPass, checks.StatusWarn, checks.StatusSkip}, []checks.Status{checks.StatusPass}, exitOK},
		{[]checks.Status{checks.StatusPass}, []checks.Status{checks.StatusFail, checks.StatusPass}, exitChanges},
		{[]checks.Status{checks.StatusFail, checks.StatusError}, nil, exitError},
	}
	for i, c := range cases {
		rep := report.New("t", time.Unix(0, 0), report.SuitePreflight)
		for _, s := range c.results {
			rep.Add(checks.Result{ID: "preflight/x", Target: "h", Status: s})
		}
		for _, s := range c.pairs {
			rep.AddPairs(report.Pair{A: "a", B: "b", Test: "write_bw", Value: &v, Unit: checks.UnitGbps, Status: s})
		}
		code := exitOK
		var ec exitCodeError
		if err := checkExit(rep); errors.As(err, &ec) {
			code = ec.code
		}
		if code != c.want {
			t.Errorf("case %d: exit %d, want %d", i, code, c.want)
		}
	}
}

func TestCheckFromDir(t *testing.T) {
	dir := t.TempDir()
	host := filepath.Join(dir, "gpu-01")
	os.MkdirAll(host, 0o755)
	for src, dst := range map[string]string{
		"../../checks/hostparse/testdata/ibstat/roce_and_ib.txt":                  "ibstat.txt",
		"../../checks/perftest/testdata/text/write_bw_client_roce_2qp_gbits.txt":  "ib_write_bw.txt",
		"../../checks/perftest/testdata/text/err_oob_connect_client.txt":          "ib_read_bw.txt",
		"../../checks/hostparse/testdata/showgids/roce_v2_ipv4_and_shared_ip.txt": "show_gids.txt",
		// Named for what it is about, not for the tool: told by content.
		"../../checks/analyze/testdata/nccl_lib_locations.txt":               "nccl_lib_locations.txt",
		"../../checks/hostparse/testdata/topo/four_gpus_two_nics_legend.txt": "gpu-links.txt",
	} {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(host, dst), b, 0o644)
	}
	report := filepath.Join(t.TempDir(), "report.html")
	code, out, errs := runCLI(t, "check", "--from-dir", dir, "-o", "json", "--report", report)
	if html, err := os.ReadFile(report); err != nil || !strings.Contains(string(html), "<html") || !strings.Contains(string(html), "oob-connect") {
		t.Errorf("--report: %v, %d bytes without the OOB failure", err, len(html))
	}
	if code != 2 {
		t.Fatalf("exit %d, want 2 (the OOB connect failure): %s", code, errs)
	}
	for _, want := range []string{`"captured/ibstat/port-state"`, `"gpu-01/ib_read_bw.txt"`, `"oob-connect"`, `"captured/show_gids/roce-gid"`, `"captured/topo/gpu-nic-affinity"`} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %s", want)
		}
	}
	// The library listing is accounted for as unrecognised, never read as
	// an NCCL log.
	if strings.Contains(out, "no NCCL output") || !regexp.MustCompile(`"captured/unrecognised"[^]]*"evidence": \[[^]]*nccl_lib_locations`).MatchString(out) {
		t.Errorf("a library listing was taken for an NCCL log, or not accounted for:\n%s", out)
	}
	// The report names the fabricctl that wrote it (issue 30), in JSON and on the page.
	if b := build(); !strings.Contains(out, `"generator": {`) || !strings.Contains(out, `"version": "`+b.Version+`"`) {
		t.Errorf("the JSON report does not name its fabricctl %s", b.Version)
	}
	if html, _ := os.ReadFile(report); !strings.Contains(string(html), `id="generator">fabricctl `+build().Version) {
		t.Errorf("the HTML report does not name its fabricctl %s", build().Version)
	}
	if code, _, errs := runCLI(t, "check", "--from-dir", filepath.Join(dir, "missing")); code != 1 || !strings.Contains(errs, "missing: no such directory") {
		t.Errorf("a missing directory: exit %d, %s", code, errs)
	}
}
