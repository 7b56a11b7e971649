package cumulus

import (
	"fmt"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"
)

// Platform is the fabric platform name of this driver.
const Platform = "cumulus-nvue"

// Read-back commands Parse understands, in the order it prefers them.
const (
	// CmdConfigShow is the read-back Observe runs: the applied NVUE
	// configuration as JSON.
	CmdConfigShow = "nv config show -o json"
	// CmdConfigShowYAML is the same in NVUE's YAML form.
	CmdConfigShowYAML = "nv config show"
	// CmdShowRoCE is the operational RoCE view (text table).
	CmdShowRoCE = "nv show qos roce"
	// CmdQoSFeatures is the Linux-file QoS configuration.
	CmdQoSFeatures = "cat /etc/cumulus/datapath/qos/qos_features.conf"
)

// Driver is the Cumulus Linux NVUE driver. It keeps no state and is safe for
// concurrent use.
type Driver struct{}

var _ switchcfg.Driver = (*Driver)(nil)

// New returns the driver.
func New() *Driver { return &Driver{} }

// Register adds the driver to r.
func Register(r *switchcfg.Registry) { r.Add(New()) }

// info is the platform's facts (switchcfg.Info).
var info = switchcfg.Info{
	Name: Platform, Description: "NVIDIA Cumulus Linux (NVUE)", FileExt: ".nvue", Format: "commands",
	// Spectrum-4/5 program 150000 B as 159744 B (NVIDIA, "RoCE" page of
	// Cumulus Linux 5.14) = 13 × 12288 B; NVUE displays rounded KB/MB.
	ThresholdQuantum: 12288,
	MinMTU:           552, MaxMTU: 9216,
	Session: switchcfg.SessionSpec{Scrapli: "cumulus_linux", Shell: true,
		ErrorPrefixes: []string{"Error:", "ERROR:", "Invalid Command:"}},
	ExamplePorts: []string{"swp1", "swp2"},
	PortRange:    "swp1-32",
}

// Info returns the platform's facts: cumulus-nvue, rendered as NVUE commands
// into .nvue files.
func (d *Driver) Info() switchcfg.Info { return info }

// CheckPort accepts swpN and breakouts swpNsM.
func (d *Driver) CheckPort(name string) error { return checkPort(name) }

// ReadbackCommands returns the command Observe runs: `nv config show -o json`.
func (d *Driver) ReadbackCommands() []string { return []string{CmdConfigShow} }

// Parse turns a read-back into the canonical intent. It takes the first of
// CmdConfigShow, CmdConfigShowYAML, CmdShowRoCE and CmdQoSFeatures present in
// rb. Pure.
func (d *Driver) Parse(rb switchcfg.Readback) (fabric.SwitchIntent, error) {
	for _, cmd := range []string{CmdConfigShow, CmdConfigShowYAML} {
		if out, ok := rb[cmd]; ok {
			t, err := DecodeConfig(out)
			if err != nil {
				return fabric.SwitchIntent{}, fmt.Errorf("parsing %q: %w", cmd, err)
			}
			return ParseTree(t)
		}
	}
	if out, ok := rb[CmdShowRoCE]; ok {
		return ParseShowRoCE(string(out))
	}
	if out, ok := rb[CmdQoSFeatures]; ok {
		return ParseQoSFeatures(string(out))
	}
	return fabric.SwitchIntent{}, fmt.Errorf("parsing %s read-back: none of %q, %q, %q, %q present",
		Platform, CmdConfigShow, CmdConfigShowYAML, CmdShowRoCE, CmdQoSFeatures)
}

// ParsePorts is Parse: NVUE's QoS is global (default-global profiles), so
// no port reads differently from another.
func (d *Driver) ParsePorts(rb switchcfg.Readback, _ []string) (fabric.SwitchIntent, error) {
	return d.Parse(rb)
}

// ParseTree turns an NVUE configuration tree into the canonical intent: the
// platform defaults, then the RoCE recipe when `qos roce` is on, then the
// explicit default-global profiles and interface settings.
func ParseTree(t Tree) (fabric.SwitchIntent, error) {
	m, err := fromTree(t)
	if err != nil {
		return fabric.SwitchIntent{}, fmt.Errorf("parsing NVUE configuration: %w", err)
	}
	return m.intent(), nil
}

// CaptureCommands are the outputs a captured NVUE file may be, besides the
// JSON read-back: its YAML form, `nv show qos roce`, qos_features.conf.
func (d *Driver) CaptureCommands() []string {
	return []string{CmdConfigShowYAML, CmdShowRoCE, CmdQoSFeatures}
}
