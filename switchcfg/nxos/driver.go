package nxos

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/switchcfg"
)

// Platform is the fabric name of this driver.
const Platform = "cisco-nxos"

// ReadbackRunningConfig is the only read-back command Parse needs.
const ReadbackRunningConfig = "show running-config"

// Names of the policies Render writes.
const (
	QoSPolicy        = "FABRICCTL-QOS"
	QueuingPolicy    = "FABRICCTL-QUEUING"
	NetworkQoSPolicy = "FABRICCTL-NETWORK-QOS"
	// InputQueuingPolicy holds the pause buffer thresholds of cables above 100 m.
	InputQueuingPolicy = "FABRICCTL-INPUT-QUEUING"
)

// Limits of NX-OS that Render enforces (see doc.go for the reasons).
const (
	// MaxNoDropClasses is the number of no-drop (pause pfc-cos) classes accepted.
	MaxNoDropClasses = 3
	// MaxStrictClasses is the number of strict-priority (priority level 1) classes accepted.
	MaxStrictClasses = 1
	// MinMTU and MaxMTU bound the interface and network-qos MTU.
	MinMTU, MaxMTU = 576, 9216
	// BytesPerKbyte is how this driver reads the CLI unit "kbytes".
	BytesPerKbyte = 1000
)

// Driver renders, parses and pushes Cisco NX-OS (Nexus 9000) configuration.
// It holds no state; one value serves any number of switches concurrently.
type Driver struct{}

var (
	_ switchcfg.Driver    = (*Driver)(nil)
	_ switchcfg.Recoverer = (*Driver)(nil)
)

// New returns the NX-OS driver.
func New() *Driver { return &Driver{} }

// Register adds the NX-OS driver to r.
func Register(r *switchcfg.Registry) { r.Add(New()) }

// info is the platform's facts (switchcfg.Info).
var info = switchcfg.Info{
	Name: Platform, Description: "Cisco NX-OS (Nexus 9000)", FileExt: ".nxos.cfg", Format: "commands",
	// Thresholds are written in kbytes, so a read-back is exact to 1 KiB.
	ThresholdQuantum: 1024,
	MinMTU:           MinMTU, MaxMTU: MaxMTU,
	Session: switchcfg.SessionSpec{Scrapli: "cisco_nxos", ConfigPrivilege: "configuration",
		ErrorPrefixes: []string{"% Invalid command", "% Invalid parameter", "% Incomplete command",
			"% Ambiguous command", "% Invalid input detected", "% Unknown command", "ERROR:"}},
	ExamplePorts: []string{"Ethernet1/1", "Ethernet1/2"},
	PortRange:    "Ethernet1/1-32",
}

// Info returns the platform's facts: cisco-nxos, rendered as CLI commands
// into .nxos.cfg files.
func (*Driver) Info() switchcfg.Info { return info }

// portRE matches EthernetN/M and EthernetN/M/K (breakout).
var portRE = regexp.MustCompile(`^Ethernet([1-9][0-9]*)/([1-9][0-9]*)(?:/([1-9][0-9]*))?$`)

var checkPort = switchcfg.PortPattern(Platform, portRE, "Ethernet1/1 or Ethernet1/49/2")

// CheckPort accepts NX-OS Ethernet port names.
func (*Driver) CheckPort(name string) error { return checkPort(name) }

// ReadbackCommands returns the commands whose outputs Parse reads.
func (*Driver) ReadbackCommands() []string { return []string{ReadbackRunningConfig} }

// portOrder orders port names by slot, port and breakout lane.
func portOrder(a, b string) int {
	ma, mb := portRE.FindStringSubmatch(a), portRE.FindStringSubmatch(b)
	for i := 1; ma != nil && mb != nil && i < len(ma); i++ {
		x, _ := strconv.Atoi(ma[i])
		y, _ := strconv.Atoi(mb[i])
		if x != y {
			return x - y
		}
	}
	return strings.Compare(a, b)
}
