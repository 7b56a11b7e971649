package switchcfg

import (
	"fmt"
	"strings"
)

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
	// MinMTU and MaxMTU bound the MTU Render accepts on any model; a
	// model's own range (Models) may be narrower.
	MinMTU, MaxMTU int
	// Models are the hardware families whose configuration or limits
	// differ; the first is the default (a switch without `model:`). Empty
	// when the platform configures every model alike.
	Models []Model
	// Session says how switchcfg/session drives the platform's CLI.
	Session SessionSpec
	// ExamplePorts are two valid port names that exist on the platform's
	// simulator (tests, examples).
	ExamplePorts []string
	// PortRange is a port range a generated fabric gives a switch of this
	// platform ("swp1-32").
	PortRange string
}

// Model is one hardware family of a platform: what a fabric's `model:`
// names, and the facts that differ from the platform's other families.
type Model struct {
	// Name is the family's name in a fabric's `model:` ("strata").
	Name string
	// Description says which hardware it is, for people.
	Description string
	// Products are prefixes of product names in the family ("7050",
	// "DCS-7050"): `model: 7050CX3-32S` names the family too. Matched
	// without regard to case.
	Products []string
	// MinMTU and MaxMTU bound the port MTU (0: the platform's).
	MinMTU, MaxMTU int
	// QueueBufferBytes is the egress queue buffer that ECN fill levels are
	// a percentage of, on platforms that take them so (0: none known).
	QueueBufferBytes int64
	// Source names where the family's facts come from.
	Source string
}

// Model returns the family a fabric's `model:` names: "" is the default
// (the first of Models, or the platform itself when it has none); a
// family name or a product name starting with one of a family's Products
// picks that family. The returned Model has the platform's MTU limits
// filled in where it has none of its own. An unknown name is an error
// listing the valid ones.
func (i Info) Model(name string) (Model, error) {
	fill := func(m Model) Model {
		if m.MinMTU == 0 {
			m.MinMTU = i.MinMTU
		}
		if m.MaxMTU == 0 {
			m.MaxMTU = i.MaxMTU
		}
		return m
	}
	if len(i.Models) == 0 {
		if name == "" {
			return fill(Model{}), nil
		}
		return Model{}, fmt.Errorf("%s takes no model (its configuration is the same on all its hardware); remove model %q", i.Name, name)
	}
	if name == "" {
		return fill(i.Models[0]), nil
	}
	lower := strings.ToLower(name)
	for _, m := range i.Models {
		if strings.ToLower(m.Name) == lower {
			return fill(m), nil
		}
	}
	for _, m := range i.Models {
		for _, p := range m.Products {
			if strings.HasPrefix(lower, strings.ToLower(p)) {
				return fill(m), nil
			}
		}
	}
	var names []string
	for _, m := range i.Models {
		names = append(names, m.Name)
	}
	return Model{}, fmt.Errorf("unknown %s model %q: name one of %s, or a product of theirs (%s)",
		i.Name, name, strings.Join(names, ", "), i.products())
}

// products lists the families' product prefixes, for messages.
func (i Info) products() string {
	var out []string
	for _, m := range i.Models {
		for _, p := range m.Products {
			out = append(out, p+"…")
		}
	}
	return strings.Join(out, ", ")
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
