package sonic

import (
	_ "embed"
	"fmt"
	"regexp"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"
)

// Platform is the fabric platform name of this driver.
const Platform = "sonic"

// Read-back commands Parse understands.
const (
	// CmdRunningConfig prints the whole CONFIG_DB as JSON; Observe runs it.
	CmdRunningConfig = "show runningconfiguration all"
	// CmdShowPFCWD prints the PFC watchdog configuration as a table; when
	// present it overrides the PFC_WD table of CmdRunningConfig.
	CmdShowPFCWD = "show pfcwd config"
)

var checkPort = switchcfg.PortPattern(Platform, regexp.MustCompile(`^Ethernet(0|[1-9][0-9]{0,3})$`), "Ethernet0")

// Driver is the SONiC driver. It keeps no state and is safe for concurrent use.
type Driver struct{}

var _ switchcfg.Driver = (*Driver)(nil)

// New returns the driver.
func New() *Driver { return &Driver{} }

// Register adds the driver to r.
func Register(r *switchcfg.Registry) { r.Add(New()) }

// sonicDefinition is fabricctl's scrapligo platform definition for SONiC's
// bash shell; scrapligo v1 ships none.
//
//go:embed sonic_bash.yaml
var sonicDefinition []byte

// ASIC families (Info.Models): SONiC's QoS tables are the same everywhere
// but for the PFC priority → priority group map, which orchagent applies on
// Mellanox (Spectrum) and Barefoot ASICs only (sonic-buildimage
// files/build_templates/qos_config.j2: pfc_to_pg_map_supported_asics), and
// for the line cards of a VOQ chassis (DEVICE_METADATA switch_type voq),
// which key QUEUE and BUFFER_QUEUE by system port,
// "<hostname>|<asic>|EthernetN|q" (sonic-queue.yang VOQ_QUEUE_LIST,
// sonic-buffer-queue.yang VOQ_BUFFER_QUEUE_LIST).
const (
	ModelBroadcom = "broadcom" // the default
	ModelMellanox = "mellanox"
	ModelBarefoot = "barefoot"
	ModelVOQ      = "voq"
)

// voqASIC is the ASIC a voq render keys its queues by: a line card's
// first (asic0, a single-ASIC card's only) ASIC. Push keys them by the
// switch's own DEVICE_METADATA hostname and asic_name instead.
const voqASIC = "asic0"

var models = []switchcfg.Model{
	{Name: ModelBroadcom, Description: "Broadcom ASICs (Trident, Tomahawk, Jericho): no pfc_to_pg_map",
		Products: []string{"Arista-", "Force10-", "Dell", "Celestica-", "Nokia-", "Accton-", "Quanta-", "td", "th", "jr"},
		Source:   "sonic-buildimage qos_config.j2 (pfc_to_pg_map_supported_asics = mellanox, barefoot)"},
	{Name: ModelMellanox, Description: "NVIDIA Spectrum ASICs (SN2000…SN5000): pfc_to_pg_map",
		Products: []string{"Mellanox-", "ACS-MSN", "ACS-SN", "spc", "spectrum"},
		Source:   "sonic-buildimage qos_config.j2; sonic-utilities gcu_field_operation_validators.conf.json (spc1…spc6)"},
	{Name: ModelBarefoot, Description: "Intel/Barefoot Tofino: pfc_to_pg_map", Products: []string{"tofino"},
		Source: "sonic-buildimage qos_config.j2"},
	{Name: "marvell", Description: "Marvell ASICs: no pfc_to_pg_map", Products: []string{"marvell"},
		Source: "sonic-buildimage qos_config.j2"},
	{Name: "cisco-8000", Description: "Cisco Silicon One: no pfc_to_pg_map", Products: []string{"cisco-8"},
		Source: "sonic-buildimage qos_config.j2"},
	{Name: "vs", Description: "the virtual switch (sonic-vs): no pfc_to_pg_map", Source: "sonic-buildimage qos_config.j2"},
	{Name: ModelVOQ, Description: "a line card of a VOQ chassis (switch_type voq: Broadcom Jericho, Cisco 8000): QUEUE and BUFFER_QUEUE keyed by system port <switch name>|asic0|EthernetN|q; no pfc_to_pg_map",
		Source: "sonic-buildimage sonic-queue.yang VOQ_QUEUE_LIST, sonic-buffer-queue.yang VOQ_BUFFER_QUEUE_LIST, qos_config.j2"},
}

// isVOQ reports whether the model is a VOQ chassis line card.
func isVOQ(model string) bool {
	m, err := info.Model(model)
	return err == nil && m.Name == ModelVOQ
}

// pfcToPG reports whether the model's orchagent takes pfc_to_pg_map.
func pfcToPG(model string) bool {
	m, err := info.Model(model)
	return err == nil && (m.Name == ModelMellanox || m.Name == ModelBarefoot)
}

// info is the platform's facts (switchcfg.Info).
var info = switchcfg.Info{
	Name: Platform, Description: "SONiC (CONFIG_DB)", FileExt: ".config_db.json", Format: "json",
	// The Spectrum figure of cumulus-nvue (SONiC's most common lossless
	// ASIC); Broadcom cells (208–254 B) are finer.
	ThresholdQuantum: 12288,
	MinMTU:           MinMTU, MaxMTU: MaxMTU,
	Models: models,
	Session: switchcfg.SessionSpec{ScrapliYAML: sonicDefinition, Shell: true,
		ErrorPrefixes: []string{"Error:", "Failed to apply patch", "Failed to rollback",
			"Failed to create checkpoint", "Root privileges are required"}},
	ExamplePorts: []string{"Ethernet0", "Ethernet4"},
	PortRange:    "Ethernet0-31",
}

// Info returns the platform's facts: sonic, rendered as a CONFIG_DB JSON
// document into .config_db.json files.
func (d *Driver) Info() switchcfg.Info { return info }

// CheckPort accepts EthernetN.
func (d *Driver) CheckPort(name string) error { return checkPort(name) }

// ReadbackCommands returns `show runningconfiguration all`.
func (d *Driver) ReadbackCommands() []string { return []string{CmdRunningConfig} }

// Parse decodes the CONFIG_DB JSON of CmdRunningConfig (merging the PFC_WD
// rows of CmdShowPFCWD when present) and returns ParseConfigDB's intent. Pure.
func (d *Driver) Parse(rb switchcfg.Readback) (fabric.SwitchIntent, error) {
	return d.ParsePorts(rb, nil)
}

// ParsePorts is Parse over the given ports (nil: the ports PORT_QOS_MAP
// binds to fabricctl's maps, else every bound port): each port is read on
// its own and what they all agree on is the switch's.
func (d *Driver) ParsePorts(rb switchcfg.Readback, ports []string) (fabric.SwitchIntent, error) {
	out, ok := rb[CmdRunningConfig]
	if !ok {
		return fabric.SwitchIntent{}, fmt.Errorf("parsing %s read-back: %q missing", Platform, CmdRunningConfig)
	}
	db, err := DecodeConfigDB(out)
	if err != nil {
		return fabric.SwitchIntent{}, fmt.Errorf("parsing %q: %w", CmdRunningConfig, err)
	}
	if text, ok := rb[CmdShowPFCWD]; ok {
		wd, err := ParseShowPFCWD(string(text))
		if err != nil {
			return fabric.SwitchIntent{}, fmt.Errorf("parsing %q: %w", CmdShowPFCWD, err)
		}
		delete(db, tPFCWD)
		db.Merge(wd)
	}
	si, err := ParseConfigDBPorts(db, ports)
	if err != nil {
		return fabric.SwitchIntent{}, fmt.Errorf("parsing %q: %w", CmdRunningConfig, err)
	}
	return si, nil
}

// Merge copies other's entries into db, field by field.
func (db ConfigDB) Merge(other ConfigDB) {
	for table, entries := range other {
		for key, fields := range entries {
			for f, v := range fields {
				db.set(table, key, f, v)
			}
			if len(fields) == 0 {
				if db[table] == nil {
					db[table] = map[string]map[string]string{}
				}
				if db[table][key] == nil {
					db[table][key] = map[string]string{}
				}
			}
		}
	}
}
