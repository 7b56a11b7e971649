package netnstest

import (
	"net"
	"strings"
	"testing"
	"time"
)

func TestHostsReachableFromController(t *testing.T) {
	n := New(t, 2)
	if out := n.Exec(t, n.Hosts[0], "ip", "-o", "addr", "show", "dev", "eth0"); !strings.Contains(out, n.Hosts[0].Addr) {
		t.Fatalf("eth0 lacks its address: %s", out)
	}
	// The controller (initial namespace) reaches a host namespace over the bridge.
	_, err := net.DialTimeout("tcp", n.Hosts[1].Addr+":9", time.Second)
	if err == nil || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("want connection refused from the host namespace (reachable, nothing listening), got %v", err)
	}
}
