package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/switchcfg/session"
	"github.com/fabricctl/fabricctl/switchcfg/sim"
)

func TestSwitchSimServesUntilInterrupted(t *testing.T) {
	t.Setenv("SIM_TEST_PASSWORD", "s3cret")
	hostKey := filepath.Join(t.TempDir(), "host_key")
	outR, outW := io.Pipe()
	var errb strings.Builder
	g := &globals{stdin: strings.NewReader(""), stdout: outW, stderr: &errb}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- execute(ctx, g, []string{"switch-sim", "--platform", "junos", "--listen", "127.0.0.1:0",
			"--password-env", "SIM_TEST_PASSWORD", "--host-key", hostKey})
		outW.Close()
	}()
	lines := bufio.NewScanner(outR)
	var banner, known string
	if lines.Scan() {
		banner = lines.Text()
	}
	if lines.Scan() {
		known = lines.Text()
	}
	go io.Copy(io.Discard, outR)
	f := strings.Fields(banner)
	if len(f) < 5 || f[0] != "simulated" || f[1] != "junos" {
		t.Fatalf("stdout %q %q; stderr %s", banner, known, errb.String())
	}
	kh := filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(kh, []byte(known+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	junos, err := switchRegistry().Driver("junos")
	if err != nil {
		t.Fatal(err)
	}
	c, err := session.Dial(ctx, session.Options{Platform: "junos", Spec: junos.Info().Session, Address: f[4], User: "admin",
		PasswordEnv: "SIM_TEST_PASSWORD", KnownHostsFile: kh, CommandTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.Send(ctx, "show version")
	if err != nil || !strings.Contains(out, "SIMULATOR") {
		t.Fatalf("show version: %v %q", err, out)
	}
	c.Close()
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d, stderr %s", code, errb.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("switch-sim did not stop when interrupted")
	}
	if _, err := sim.LoadOrCreateHostKey(hostKey); err != nil {
		t.Fatalf("the host key was not kept for the next run: %v", err)
	}
}

func TestSwitchSimNeedsCredentials(t *testing.T) {
	code, _, errs := runCLI(t, "switch-sim", "--platform", "sonic", "--listen", "127.0.0.1:0")
	if code != exitError || !strings.Contains(errs, "--password-env or --authorized-keys") {
		t.Fatalf("code %d, stderr %q", code, errs)
	}
	code, _, errs = runCLI(t, "switch-sim", "--platform", "ios", "--listen", "127.0.0.1:0", "--password-env", "PATH")
	if code != exitError || !strings.Contains(errs, "unknown simulator platform") {
		t.Fatalf("code %d, stderr %q", code, errs)
	}
}
