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

// Hardware families (Info.Models): EOS's queue commands differ by ASIC.
const (
	// ModelStrata is the Trident/Tomahawk (Broadcom StrataXGS) family, the
	// usual RoCE leaves: unicast egress queues are `uc-tx-queue N` and the
	// map is `qos map traffic-class T to uc-tx-queue Q`. The default.
	ModelStrata = "strata"
	// ModelSand is the Jericho/Qumran (Broadcom StrataDNX, "Sand")
	// deep-buffer family: `tx-queue N` and `qos map traffic-class T to
	// tx-queue Q`.
	ModelSand = "sand"
)

// models are the families; their product prefixes follow Arista's
// "Chipset Mapping for QoS" (EOS User Manual, Quality of Service chapter).
var models = []switchcfg.Model{
	{Name: ModelStrata, Description: "Trident/Tomahawk fixed switches (7050X, 7060X, 7260X, 7300X, 7358X, 7368X, 7388X; vEOS and cEOS-lab too): uc-tx-queue",
		Products: []string{"7010", "7050", "7060", "7160", "7260", "7300", "7320", "7358", "7368", "7388",
			"DCS-7010", "DCS-7050", "DCS-7060", "DCS-7160", "DCS-7260", "DCS-7300", "DCS-7358", "DCS-7368", "DCS-7388", "vEOS", "cEOS"},
		Source: "EOS User Manual, Quality of Service: Trident and Tomahawk platform switches (uc-tx-queue, qos map traffic-class to uc-tx-queue)"},
	{Name: ModelSand, Description: "Jericho/Qumran deep-buffer switches (7020R, 7280R, 7500R, 7800R): tx-queue",
		Products: []string{"7020R", "7280", "7500", "7800", "DCS-7020R", "DCS-7280", "DCS-7500", "DCS-7800"},
		Source:   "EOS User Manual, Quality of Service: Arad and Jericho platform switches (tx-queue, qos map traffic-class to tx-queue)"},
}

// info is the platform's facts (switchcfg.Info).
var info = switchcfg.Info{
	Name: Platform, Description: "Arista EOS", FileExt: ".eos.cfg", Format: "commands",
	// Thresholds are written in kbytes, so a read-back is exact to 1 KiB.
	ThresholdQuantum: 1024,
	// 9214 is EOS's largest interface MTU on every family (`mtu` takes
	// 68..9214; AVD's RoCE examples use mtu 9214).
	MinMTU: MinMTU, MaxMTU: MaxMTU,
	Models: models,
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
