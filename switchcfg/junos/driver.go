package junos

import (
	"regexp"

	"github.com/fabricctl/fabricctl/fabric"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/switchcfg"
)

// Platform is the fabric name of this driver.
const Platform = "junos"

// Read-back commands: the class-of-service hierarchy and the interfaces (for
// the MTU), both as set statements.
const (
	ReadbackClassOfService = "show configuration class-of-service | display set"
	ReadbackInterfaces     = "show configuration interfaces | display set"
)

// Names of what Render defines; forwarding classes, schedulers and drop
// profiles are named after the intent's classes.
const (
	ClassifierName       = "FABRICCTL-CLASSIFIER"
	SchedulerMapName     = "FABRICCTL-SCHEDULER-MAP"
	CongestionProfile    = "FABRICCTL-CNP"
	schedulerSuffix      = "-sched"
	dropProfileSuffix    = "-dp"
	unnamedClassPrefix   = "tc"
	defaultLossPriority  = "low"
	wildcardUnit         = "*"
	maxForwardingClasses = 8
)

// Limits of Junos (QFX) that Render enforces (see doc.go for the reasons).
const (
	// MaxNoLossClasses is the number of no-loss forwarding classes accepted.
	MaxNoLossClasses = 6
	// maxWatchdogMs bounds the PFC watchdog's poll-interval and recovery
	// (milliseconds, uint16 in Juniper's YANG).
	maxWatchdogMs = 65535
	// MinMTU and MaxMTU bound the interface MTU.
	MinMTU, MaxMTU = 256, 9216
)

// mb is a megabyte as switch datasheets count buffers.
const mb = 1_000_000

// models are the QFX families. Drop-profile fill levels are percents of
// the buffer a queue may fill, so an ECN threshold in bytes becomes a
// percentage of the model's packet buffer: the ASIC's shared buffer as the
// QFX datasheets give it (Broadcom Trident/Tomahawk generations). A
// profile's queueBuffer overrides it where a design sizes queues otherwise.
// Juniper's validated designs show the scale: fill-level [ 1 2 ] on the
// QFX5120 compute leaves, [ 55 90 ] on the QFX5240 AI leaves (Juniper/jvd).
var models = []switchcfg.Model{
	{Name: "qfx5120", Description: "QFX5120 (Trident 3, 32 MB)", Products: []string{"qfx5120"}, QueueBufferBytes: 32 * mb,
		Source: "Juniper QFX5120 datasheet; JVD 5-stage EVPN compute leaves (fill-level [ 1 2 ])"},
	{Name: "qfx5100", Description: "QFX5100 (Trident 2, 12 MB)", Products: []string{"qfx5100"}, QueueBufferBytes: 12 * mb,
		Source: "Juniper QFX5100 datasheet"},
	{Name: "qfx5110", Description: "QFX5110 (Trident 2+, 16 MB)", Products: []string{"qfx5110"}, QueueBufferBytes: 16 * mb,
		Source: "Juniper QFX5110 datasheet"},
	{Name: "qfx5200", Description: "QFX5200 (Tomahawk, 16 MB)", Products: []string{"qfx5200"}, QueueBufferBytes: 16 * mb,
		Source: "Juniper QFX5200 datasheet"},
	{Name: "qfx5210", Description: "QFX5210 (Tomahawk 2, 42 MB)", Products: []string{"qfx5210"}, QueueBufferBytes: 42 * mb,
		Source: "Juniper QFX5210 datasheet"},
	{Name: "qfx5130", Description: "QFX5130 (Trident 4, 132 MB; Junos EVO)", Products: []string{"qfx5130"}, QueueBufferBytes: 132 * mb,
		Source: "Juniper QFX5130 datasheet; JVD storage leaves"},
	{Name: "qfx5220", Description: "QFX5220 (Tomahawk 3, 64 MB; Junos EVO)", Products: []string{"qfx5220"}, QueueBufferBytes: 64 * mb,
		Source: "Juniper QFX5220 datasheet"},
	{Name: "qfx5230", Description: "QFX5230 (Tomahawk 4, 113 MB; Junos EVO)", Products: []string{"qfx5230"}, QueueBufferBytes: 113 * mb,
		Source: "Juniper QFX5230 datasheet"},
	{Name: "qfx5240", Description: "QFX5240 (Tomahawk 5, 165 MB; Junos EVO)", Products: []string{"qfx5240"}, QueueBufferBytes: 165 * mb,
		Source: "Juniper QFX5240 datasheet; JVD AI/ML multitenancy backend leaves (fill-level [ 55 90 ])"},
}

// evolved are the models that run Junos OS Evolved; the others run classic
// Junos. The two take different configuration schemas (Juniper publishes
// one YANG set per family): Evolved types a drop profile's fill levels as
// decimals (decimal64, 9 fraction digits), classic Junos as whole percents.
var evolved = map[string]bool{"qfx5130": true, "qfx5220": true, "qfx5230": true, "qfx5240": true}

// Evolved says whether model (a family or product name, "" the default
// qfx5120) runs Junos OS Evolved; an unknown model is classic.
func Evolved(model string) bool {
	m, err := info.Model(model)
	return err == nil && evolved[m.Name]
}

// Driver renders, parses and pushes Junos (QFX) class-of-service
// configuration. It keeps no state; one value serves any number of switches
// concurrently.
type Driver struct{}

var (
	_ switchcfg.Driver       = (*Driver)(nil)
	_ switchcfg.IntentParser = (*Driver)(nil)
	_ switchcfg.Quantizer    = (*Driver)(nil)
)

// New returns the Junos driver.
func New() *Driver { return &Driver{} }

// Register adds the Junos driver to r.
func Register(r *switchcfg.Registry) { r.Add(New()) }

// info is the platform's facts (switchcfg.Info).
var info = switchcfg.Info{
	Name: Platform, Description: "Juniper Junos (QFX)", FileExt: ".junos.set", Format: "set",
	// 1 % of the default model's buffer; ThresholdQuantumFor gives each
	// switch its own.
	ThresholdQuantum: models[0].QueueBufferBytes / 100,
	MinMTU:           MinMTU, MaxMTU: MaxMTU,
	Models: models,
	Session: switchcfg.SessionSpec{Scrapli: "juniper_junos", ConfigPrivilege: "configuration-private",
		ErrorPrefixes: []string{"syntax error", "unknown command", "error:", "is ambiguous", "No valid completions"}},
	ExamplePorts: []string{"et-0/0/0", "et-0/0/1"},
	PortRange:    "et-0/0/0-31",
}

// Info returns the platform's facts: junos, rendered as set statements into
// .junos.set files, with the QFX families as models.
func (d *Driver) Info() switchcfg.Info { return info }

// queueBuffer is the buffer fill levels are a percentage of on the switch
// si describes: the profile's queueBuffer, else its model's (0 when the
// model is unknown).
func queueBuffer(si fabric.SwitchIntent) int64 {
	if si.QueueBufferBytes > 0 {
		return si.QueueBufferBytes
	}
	m, err := info.Model(si.Model)
	if err != nil {
		return 0
	}
	return m.QueueBufferBytes
}

// ThresholdQuantumFor is one fill-level step of the switch's queue buffer:
// 1 % on classic Junos (whole percents), 0.01 % on Junos OS Evolved
// (fillScale).
func (d *Driver) ThresholdQuantumFor(si fabric.SwitchIntent) int64 {
	q, rem := mulDivRem(queueBuffer(si), 1, 100*fillScale(si))
	if rem > 0 {
		q++ // a whole step, rounded up
	}
	return max(q, 1)
}

// portRE matches et-/xe-/ge- FPC/PIC/port with an optional channel.
var portRE = regexp.MustCompile(`^(et|xe|ge)-([0-9]+)/([0-9]+)/([0-9]+)(?::([0-9]+))?$`)

var checkPort = switchcfg.PortPattern(Platform, portRE, "et-0/0/0, xe-0/0/1 or et-0/0/12:1")

// CheckPort accepts Junos physical port names.
func (*Driver) CheckPort(name string) error { return checkPort(name) }

// ReadbackCommands returns the commands whose outputs Parse reads.
func (*Driver) ReadbackCommands() []string {
	return []string{ReadbackClassOfService, ReadbackInterfaces}
}

// comparePorts orders port names by type, FPC, PIC, port and channel.
func comparePorts(a, b string) int {
	ma, mb := portRE.FindStringSubmatch(a), portRE.FindStringSubmatch(b)
	if ma != nil && mb != nil {
		if ma[1] != mb[1] {
			return map[bool]int{true: -1, false: 1}[ma[1] < mb[1]]
		}
		for i := 2; i < len(ma); i++ {
			x, _ := strconv.Atoi(ma[i])
			y, _ := strconv.Atoi(mb[i])
			if ma[i] == "" {
				x = -1
			}
			if mb[i] == "" {
				y = -1
			}
			if x != y {
				return x - y
			}
		}
	}
	return strings.Compare(a, b)
}

// CaptureCommands are the outputs a captured Junos file may be: the whole
// configuration, or its class-of-service hierarchy, curly or set.
func (d *Driver) CaptureCommands() []string {
	return []string{"show configuration", "show configuration class-of-service"}
}
