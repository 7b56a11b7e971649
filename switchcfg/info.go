package switchcfg

// Info is what fabricctl knows about a switch platform besides its code:
// every fact that other packages used to keep in their own table keyed by
// platform name. A driver returns it from Driver.Info; the registry hands it
// to whoever needs it (render file names, sessions, comparison tolerances,
// simulators, generated fabrics), so a platform added with one Register line
// is known everywhere at once. Grow it, rather than starting a table
// elsewhere, when a new fact is needed (models, per-model limits).
type Info struct {
	// Name is the platform name used in fabric files ("cumulus-nvue").
	Name string
	// Description names the operating system for people ("NVIDIA Cumulus
	// Linux (NVUE)").
	Description string
	// FileExt is the extension `fabricctl render --out` gives the native
	// configuration (".nvue", ".config_db.json").
	FileExt string
	// Format is Config.Format of what Render returns: "commands", "json" or
	// "set".
	Format string
	// ThresholdQuantum is the ECN threshold programming granularity in bytes:
	// Compare tolerates an observed threshold that differs from the desired
	// one by up to one quantum (or the relative tolerance, whichever is
	// larger). 0 when only the relative tolerance applies.
	ThresholdQuantum int64
	// MinMTU and MaxMTU bound the MTU Render accepts.
	MinMTU, MaxMTU int
	// Session says how switchcfg/session drives the platform's CLI.
	Session SessionSpec
	// ExamplePorts are two valid port names that exist on the platform's
	// simulator (tests, examples).
	ExamplePorts []string
	// PortRange is a port range a generated fabric gives a switch of this
	// platform ("swp1-32").
	PortRange string
}

// SessionSpec says how switchcfg/session talks to the platform over SSH
// (scrapligo v1).
type SessionSpec struct {
	// Scrapli is a scrapligo built-in platform definition ("cumulus_linux",
	// "arista_eos", "cisco_nxos", "juniper_junos").
	Scrapli string
	// ScrapliYAML is a platform definition of fabricctl's own, for platforms
	// scrapligo does not ship (SONiC's bash shell); it wins over Scrapli.
	ScrapliYAML []byte
	// ConfigPrivilege is the scrapligo privilege level SendConfig enters when
	// the prompt is not already a configuration prompt; "" means the platform
	// has no configuration mode (shell platforms: lines run where they are).
	ConfigPrivilege string
	// ErrorPrefixes start (after blanks) the output lines by which the device
	// reports a command it rejected ("% Invalid input", "syntax error").
	ErrorPrefixes []string
	// Shell is set for platforms driven through bash: bash's own failures
	// ("command not found", "Permission denied") count as rejections too.
	Shell bool
}
