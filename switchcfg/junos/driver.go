package junos

import (
	"regexp"
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
	// MinMTU and MaxMTU bound the interface MTU.
	MinMTU, MaxMTU = 256, 9216
	// DefaultQueueBufferBytes is the reference queue buffer that drop-profile
	// fill levels are a percentage of (see doc.go).
	DefaultQueueBufferBytes = 3_000_000
	// ThresholdQuantumBytes is the resolution of an ECN threshold read back
	// through whole fill-level percents of DefaultQueueBufferBytes.
	ThresholdQuantumBytes = DefaultQueueBufferBytes / 100
)

// Driver renders, parses and pushes Junos (QFX) class-of-service
// configuration. QueueBufferBytes is the buffer that drop-profile fill levels
// are a percentage of. A Driver is not modified by its methods; one value
// serves any number of switches concurrently.
type Driver struct {
	QueueBufferBytes int64
}

var _ switchcfg.Driver = (*Driver)(nil)

// New returns the Junos driver with DefaultQueueBufferBytes.
func New() *Driver { return &Driver{QueueBufferBytes: DefaultQueueBufferBytes} }

// Register adds the Junos driver to r.
func Register(r *switchcfg.Registry) { r.Add(New()) }

// Info returns the platform's facts: junos, rendered as set statements into
// .junos.set files. The threshold quantum is 1 % of the driver's queue
// buffer: drop profiles are whole fill-level percents of it.
func (d *Driver) Info() switchcfg.Info {
	return switchcfg.Info{
		Name: Platform, Description: "Juniper Junos (QFX)", FileExt: ".junos.set", Format: "set",
		ThresholdQuantum: d.queueBuffer() / 100,
		MinMTU:           MinMTU, MaxMTU: MaxMTU,
		Session: switchcfg.SessionSpec{Scrapli: "juniper_junos", ConfigPrivilege: "configuration-private",
			ErrorPrefixes: []string{"syntax error", "unknown command", "error:", "is ambiguous", "No valid completions"}},
		ExamplePorts: []string{"et-0/0/0", "et-0/0/1"},
		PortRange:    "et-0/0/0-31",
	}
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

func (d *Driver) queueBuffer() int64 {
	if d == nil || d.QueueBufferBytes <= 0 {
		return DefaultQueueBufferBytes
	}
	return d.QueueBufferBytes
}
