package sonic

import (
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

var (
	_ switchcfg.Driver     = (*Driver)(nil)
	_ switchcfg.Transactor = (*Driver)(nil)
)

// New returns the driver.
func New() *Driver { return &Driver{} }

// Register adds the driver to r.
func Register(r *switchcfg.Registry) { r.Add(New()) }

// Platform returns "sonic".
func (d *Driver) Platform() string { return Platform }

// CheckPort accepts EthernetN.
func (d *Driver) CheckPort(name string) error { return checkPort(name) }

// ReadbackCommands returns `show runningconfiguration all`.
func (d *Driver) ReadbackCommands() []string { return []string{CmdRunningConfig} }

// Parse decodes the CONFIG_DB JSON of CmdRunningConfig (merging the PFC_WD
// rows of CmdShowPFCWD when present) and returns ParseConfigDB's intent. Pure.
func (d *Driver) Parse(rb switchcfg.Readback) (fabric.SwitchIntent, error) {
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
	si, err := ParseConfigDB(db)
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
