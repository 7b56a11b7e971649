package task

import "testing"

func TestNodeName(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	hostname := func() (string, error) { return "gpu07.example", nil }
	if got := NodeName("", getenv, hostname); got != "gpu07.example" {
		t.Errorf("nothing set: %q, want the host name", got)
	}
	env["NODE_NAME"] = "k8s-7"
	if got := NodeName("", getenv, hostname); got != "k8s-7" {
		t.Errorf("NODE_NAME: %q", got)
	}
	env["SLURMD_NODENAME"] = "slurm-7"
	if got := NodeName("", getenv, hostname); got != "slurm-7" {
		t.Errorf("SLURMD_NODENAME before NODE_NAME: %q", got)
	}
	if got := NodeName("n7", getenv, hostname); got != "n7" {
		t.Errorf("--node: %q", got)
	}
}
