package eos

import (
	"regexp"
	"strconv"

	"github.com/fabricctl/fabricctl/switchcfg"
)

// Platform is the fabric name of this driver.
const Platform = "arista-eos"

// ReadbackRunningConfig is the only read-back command Parse needs.
const ReadbackRunningConfig = "show running-config"

// Limits of EOS that Render enforces (see doc.go for the reasons).
const (
	// MaxNoDropPriorities is the number of PFC no-drop priorities accepted.
	MaxNoDropPriorities = 2
	// MinMTU and MaxMTU bound the interface MTU EOS accepts.
	MinMTU, MaxMTU = 68, 9214
	// BytesPerKbyte is how this driver reads the CLI unit "kbytes".
	BytesPerKbyte = 1000
)

// Driver renders, parses and pushes Arista EOS configuration. It holds no
// state; one value serves any number of switches concurrently.
type Driver struct{}

var _ switchcfg.Driver = (*Driver)(nil)

// New returns the EOS driver.
func New() *Driver { return &Driver{} }

// Register adds the EOS driver to r.
func Register(r *switchcfg.Registry) { r.Add(New()) }

// info is the platform's facts (switchcfg.Info).
var info = switchcfg.Info{
	Name: Platform, Description: "Arista EOS", FileExt: ".eos.cfg", Format: "commands",
	// Thresholds are written in kbytes, so a read-back is exact to 1 KiB.
	ThresholdQuantum: 1024,
	MinMTU:           MinMTU, MaxMTU: MaxMTU,
	Session: switchcfg.SessionSpec{Scrapli: "arista_eos", ConfigPrivilege: "configuration",
		ErrorPrefixes: []string{"% Invalid input", "% Incomplete command", "% Ambiguous command",
			"% Error", "% Cannot commit", "% Unavailable command", "% Not supported"}},
	ExamplePorts: []string{"Ethernet1", "Ethernet2"},
	PortRange:    "Ethernet1-32",
}

// Info returns the platform's facts: arista-eos, rendered as CLI commands
// into .eos.cfg files.
func (*Driver) Info() switchcfg.Info { return info }

// portRE matches EthernetN, EthernetN/M and EthernetN/M/K (modular chassis).
var portRE = regexp.MustCompile(`^Ethernet([1-9][0-9]*)(?:/([1-9][0-9]*))?(?:/([1-9][0-9]*))?$`)

var checkPort = switchcfg.PortPattern(Platform, portRE, "Ethernet1, Ethernet1/1 or Ethernet3/1/1")

// CheckPort accepts EOS front-panel port names.
func (*Driver) CheckPort(name string) error { return checkPort(name) }

// ReadbackCommands returns the commands whose outputs Parse reads.
func (*Driver) ReadbackCommands() []string { return []string{ReadbackRunningConfig} }

// portKey orders EOS port names numerically (Ethernet2 before Ethernet10,
// Ethernet3/1 after Ethernet3).
func portKey(name string) [3]int {
	var k [3]int
	m := portRE.FindStringSubmatch(name)
	for i := 1; m != nil && i < len(m); i++ {
		if m[i] != "" {
			k[i-1], _ = strconv.Atoi(m[i])
		}
	}
	return k
}

func portLess(a, b string) bool {
	ka, kb := portKey(a), portKey(b)
	if ka != kb {
		for i := range ka {
			if ka[i] != kb[i] {
				return ka[i] < kb[i]
			}
		}
	}
	return a < b
}
