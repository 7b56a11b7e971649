package fabric

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// splitNumberUnit splits "150 KB" into its number and its unit, for every
// unit type (and Rate).
func splitNumberUnit(s string) (num, unit string) {
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	return s[:i], strings.TrimSpace(s[i:])
}

// Bytes is a size in bytes; YAML accepts integers or strings with a unit
// (B, KB, KiB, MB, MiB, GB, GiB; KB = 1000 B).
type Bytes int64

var byteUnits = map[string]int64{
	"": 1, "B": 1, "KB": 1000, "KiB": 1024, "MB": 1000 * 1000, "MiB": 1 << 20,
	"GB": 1000 * 1000 * 1000, "GiB": 1 << 30,
}

// ParseBytes parses "150KB", "1.5MiB", "4096" into bytes.
func ParseBytes(s string) (Bytes, error) {
	num, unit := splitNumberUnit(s)
	mult, ok := byteUnits[unit]
	if !ok || num == "" {
		return 0, fmt.Errorf("%q is not a size; use a number with B, KB, KiB, MB, MiB, GB or GiB", s)
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f*float64(mult) > math.MaxInt64/2 {
		return 0, fmt.Errorf("%q is not a size", s)
	}
	b := f * float64(mult)
	if b != math.Trunc(b) {
		return 0, fmt.Errorf("%q is not a whole number of bytes", s)
	}
	return Bytes(b), nil
}

func (b *Bytes) decodeNode(d *decoder, n *yaml.Node, path string) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" || n.Tag == "!!bool" {
		d.errAt(n, path, "expected a size such as 150KB, got %s", kindName(n))
		return
	}
	v, err := ParseBytes(n.Value)
	if err != nil {
		d.errAt(n, path, "%v", err)
		return
	}
	*b = v
}

// String prints the size in the largest exact unit (150KB, 64KiB, 9000B).
func (b Bytes) String() string {
	for _, u := range []struct {
		name string
		mult int64
	}{{"GiB", 1 << 30}, {"GB", 1e9}, {"MiB", 1 << 20}, {"MB", 1e6}, {"KiB", 1024}, {"KB", 1000}} {
		if b != 0 && int64(b)%u.mult == 0 {
			return fmt.Sprintf("%d%s", int64(b)/u.mult, u.name)
		}
	}
	return fmt.Sprintf("%dB", int64(b))
}

func (b Bytes) MarshalYAML() (any, error) { return b.String(), nil }

// Duration accepts strings with a unit (ns, us, ms, s, m, h).
type Duration time.Duration

var durationUnits = map[string]time.Duration{
	"ns": time.Nanosecond, "us": time.Microsecond, "µs": time.Microsecond, "ms": time.Millisecond,
	"s": time.Second, "m": time.Minute, "h": time.Hour,
}

// ParseDuration parses "100ms", "5us", "5s".
func ParseDuration(s string) (Duration, error) {
	num, unit := splitNumberUnit(s)
	mult, ok := durationUnits[unit]
	if !ok || num == "" {
		return 0, fmt.Errorf("%q is not a duration; use a number with us, ms or s (e.g. 100ms)", s)
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f*float64(mult) > math.MaxInt64/2 {
		return 0, fmt.Errorf("%q is not a duration", s)
	}
	return Duration(f * float64(mult)), nil
}

func (t *Duration) decodeNode(d *decoder, n *yaml.Node, path string) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" || n.Tag == "!!bool" {
		d.errAt(n, path, "expected a duration such as 100ms, got %s", kindName(n))
		return
	}
	if n.Tag == "!!int" || n.Tag == "!!float" {
		d.errAt(n, path, "duration %s has no unit; write e.g. %sms or %ss", n.Value, n.Value, n.Value)
		return
	}
	v, err := ParseDuration(n.Value)
	if err != nil {
		d.errAt(n, path, "%v", err)
		return
	}
	*t = v
}

func (t Duration) String() string { return time.Duration(t).String() }

func (t Duration) MarshalYAML() (any, error) { return t.String(), nil }

// SwitchMTU is a switch port MTU in bytes, or SwitchMTUMax ("max" in YAML):
// the largest MTU of each switch's model.
type SwitchMTU int

// SwitchMTUMax is `switchMtu: max`.
const SwitchMTUMax SwitchMTU = -1

// DefaultSwitchMTU is the switch MTU of a profile without switchMtu, where
// the switch model takes it (else the model's largest).
const DefaultSwitchMTU = 9216

func (m *SwitchMTU) decodeNode(d *decoder, n *yaml.Node, path string) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" && n.Value == "max" {
		*m = SwitchMTUMax
		return
	}
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
		d.errAt(n, path, "expected an MTU in bytes or \"max\", got %s", kindName(n))
		return
	}
	if v, ok := d.intValue(n, path); ok {
		if v <= 0 || v > 1<<20 {
			d.errAt(n, path, "%s is not an MTU; write bytes (e.g. 9216) or \"max\"", n.Value)
			return
		}
		*m = SwitchMTU(v)
	}
}

// MarshalYAML writes "max" or the number.
func (m SwitchMTU) MarshalYAML() (any, error) {
	if m == SwitchMTUMax {
		return "max", nil
	}
	return int(m), nil
}

// MarshalJSON writes "max" or the number.
func (m SwitchMTU) MarshalJSON() ([]byte, error) {
	if m == SwitchMTUMax {
		return []byte(`"max"`), nil
	}
	return []byte(strconv.Itoa(int(m))), nil
}

// Meters is a length in metres; YAML accepts integers or "5m" / "1km".
type Meters int

func (m *Meters) decodeNode(d *decoder, n *yaml.Node, path string) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" || n.Tag == "!!bool" {
		d.errAt(n, path, "expected a length such as 5m, got %s", kindName(n))
		return
	}
	num, unit := splitNumberUnit(n.Value)
	mult := map[string]int{"": 1, "m": 1, "km": 1000}[unit]
	i, err := strconv.Atoi(num)
	if mult == 0 || err != nil || i > 1_000_000 {
		d.errAt(n, path, "%q is not a length; use whole metres such as 5m", n.Value)
		return
	}
	*m = Meters(i * mult)
}

func (m Meters) MarshalYAML() (any, error) { return fmt.Sprintf("%dm", int(m)), nil }

// PKey is an InfiniBand partition key; YAML accepts integers or "0x0002".
type PKey uint16

func (p *PKey) decodeNode(d *decoder, n *yaml.Node, path string) {
	if n.Kind != yaml.ScalarNode || (n.Tag != "!!int" && n.Tag != "!!str") {
		d.errAt(n, path, "expected a partition key such as 0x0002, got %s", kindName(n))
		return
	}
	i, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64)
	if err != nil || i < 0 || i > 0xffff {
		d.errAt(n, path, "%q is not a 16-bit partition key", n.Value)
		return
	}
	*p = PKey(i)
}

func (p PKey) MarshalYAML() (any, error) { return fmt.Sprintf("0x%04x", uint16(p)), nil }
