package cumulus

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/fabric/lldp"
	"github.com/fabricctl/fabricctl/switchcfg"
)

// TestParseNeighbors: a Cumulus leaf's own lldpd table (suzieq's capture
// of `net show lldp json` on Cumulus Linux 4.3 leaf01, kept with fabric/lldp's
// samples, where its source is recorded) read through the driver: leaf01's
// swp1 and swp2 go to spine01 and spine02's swp1.
func TestParseNeighbors(t *testing.T) {
	b, err := os.ReadFile("../../fabric/lldp/testdata/suzieq-cumulus-leaf01-json0.json")
	if err != nil {
		t.Fatal(err)
	}
	var d switchcfg.NeighborReader = New()
	ns, err := d.ParseNeighbors(switchcfg.Readback{d.NeighborCommands()[0]: b})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range ns {
		got = append(got, n.LocalPort+"→"+n.SystemName+":"+n.PortName())
	}
	if strings.Join(got, " ") != "swp1→spine01:swp1 swp2→spine02:swp1" {
		t.Errorf("neighbours %v", got)
	}
	_, err = d.ParseNeighbors(switchcfg.Readback{CmdLLDPNeighbors: []byte("sudo: lldpcli: command not found\n")})
	if !errors.Is(err, lldp.ErrFormat) || !strings.Contains(err.Error(), CmdLLDPNeighbors) {
		t.Errorf("not lldpcli output: %v", err)
	}
}
