package hostparse

import (
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// KernelLog is what the NVIDIA driver (NVRM) wrote to a kernel log: dmesg,
// dmesg -T, journalctl -k, /var/log/messages or kern.log, whatever precedes
// "NVRM:" on a line (timestamps, host, "kernel:").
type KernelLog struct {
	// Driver is the version of the last "NVRM: loading NVIDIA UNIX …
	// Kernel Module" line.
	Driver string `json:"driver,omitempty"`
	// NVRMLines counts the lines the driver wrote.
	NVRMLines int `json:"nvrmLines"`
	// GPUs are the GPUs the driver names (in Xid lines, fallen-off-the-bus
	// lines or its UUID lines), in the order the log first names them.
	GPUs     []KernelGPU `json:"gpus,omitempty"`
	Warnings []string    `json:"warnings,omitempty"`
	NumberErrors
}

// KernelGPU is one GPU's events.
type KernelGPU struct {
	// Bus is the GPU's PCI domain:bus:device, as the driver names it in
	// Xid lines ("0000:3b:00"); "unknown" where a line names none.
	Bus string `json:"bus"`
	// UUID is from the driver's "GPU at PCI:<bus>: GPU-<uuid>" line.
	UUID   string     `json:"uuid,omitempty"`
	Events []XidEvent `json:"events"`
}

// XidEvent is one kind of event a GPU reported, with its repeats.
type XidEvent struct {
	Xid int `json:"xid"`
	// Variant tells events of one Xid apart: for 154 the recovery action
	// it changed to ("0x2 (Node Reboot Required)"), for 144-150 the
	// NVLink5 unit and severity ("RLW_REMAP Nonfatal"), for a "fallen off
	// the bus" line without an Xid line VariantNoXidLine (Xid 79).
	Variant string `json:"variant,omitempty"`
	Count   int    `json:"count"`
	// Line and LastLine are the first and last occurrence's line numbers.
	Line     int `json:"line"`
	LastLine int `json:"lastLine"`
	// Text is the first occurrence's line.
	Text string `json:"text"`
}

// The driver's lines. Xid lines in every era: "NVRM: Xid (PCI:0000:3b:00):
// 79, pid=…, name=…, <message>" (open-gpu-kernel-modules
// src/nvidia/src/kernel/gpu/rc/kernel_rc.c, krcReportXid), with
// " GPU-I:NN GPU-CI:NN" inside the parenthesis on a MIG GPU, and the older
// "NVRM: Xid (0000:01:00): 3, Ch …" without "PCI:" or pid. The GPU that
// fell off the bus is also named without an Xid: "NVRM: GPU 0000:01:00.0:
// GPU has fallen off the bus.", "NVRM: GPU at 0000:02:00.0 has fallen off
// the bus.", "NVRM: The NVIDIA GPU 0000:03:00.0 (PCI ID: …) installed in
// this system has fallen off the bus …".
var (
	xidLineRe    = regexp.MustCompile(`NVRM: Xid \(([^)]*)\):\s*([^,\s]*)[,\s]*(.*)$`)
	fellOffRe    = regexp.MustCompile(`NVRM: .*fallen off the bus`)
	pciAddrRe    = regexp.MustCompile(`\b(?:PCI:)?((?:[0-9A-Fa-f]{4,8}:)?[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2})(?:\.[0-7])?\b`)
	gpuUUIDRe    = regexp.MustCompile(`NVRM: GPU at PCI:([0-9A-Fa-f:.]+): (GPU-[0-9A-Fa-f-]+)`)
	driverLoadRe = regexp.MustCompile(`NVRM: loading NVIDIA UNIX.*?Kernel Module\S*(?:\s+for\s+\S+)?\s+(\d+\.\d+(?:\.\d+)?)\b`)
	xidProcRe    = regexp.MustCompile(`^pid=[^,]*,\s*(?:name=[^,]*,\s*)?`)
	recoveryToRe = regexp.MustCompile(`recovery action changed from\s+\S+(?:\s*\([^)]*\))?\s+to\s+(0x[0-9A-Fa-f]+(?:\s*\([^)]*\))?)`)
	nvlink5Re    = regexp.MustCompile(`^(\S+)\s+(Fatal|Nonfatal|Non-fatal)\b`)
)

// maxEventText bounds the line an event keeps.
const maxEventText = 400

// ParseKernelLog reads the NVIDIA driver's lines from a kernel log: its Xid
// events per GPU (repeats counted), GPUs fallen off the bus without an Xid
// line, the driver version and the GPUs' UUIDs. An Xid line whose number
// cannot be read is a warning. Input without a line from the driver is
// ErrNoData.
func ParseKernelLog(r io.Reader) (*KernelLog, error) {
	k := &KernelLog{}
	index := map[string]int{}  // bus → GPUs index
	events := map[string]int{} // bus, Xid, variant → Events index
	gpu := func(bus string) *KernelGPU {
		i, ok := index[bus]
		if !ok {
			i = len(k.GPUs)
			index[bus] = i
			k.GPUs = append(k.GPUs, KernelGPU{Bus: bus, Events: []XidEvent{}})
		}
		return &k.GPUs[i]
	}
	add := func(n int, bus string, xid int, variant, line string) {
		g := gpu(bus)
		key := bus + "\x00" + strconv.Itoa(xid) + "\x00" + variant
		if i, ok := events[key]; ok {
			g.Events[i].Count++
			g.Events[i].LastLine = n
			return
		}
		events[key] = len(g.Events)
		g.Events = append(g.Events, XidEvent{Xid: xid, Variant: variant, Count: 1, Line: n, LastLine: n, Text: clip(strings.TrimSpace(line))})
	}
	err := scan(r, func(n, _ int, line string) {
		if !strings.Contains(line, "NVRM:") {
			return
		}
		k.NVRMLines++
		switch m := xidLineRe.FindStringSubmatch(line); {
		case m != nil:
			xid, ok := k.index(n, "Xid number", m[2])
			if !ok {
				if !numeric(m[2]) {
					k.Warnings = append(k.Warnings, located(n, "Xid number %q is not a number", clip(m[2])))
				}
				return
			}
			add(n, normBus(m[1]), xid, xidVariant(xid, m[3]), line)
		case fellOffRe.MatchString(line):
			bus := "unknown"
			if a := pciAddrRe.FindStringSubmatch(line[strings.Index(line, "NVRM:"):]); a != nil {
				bus = normBus(a[1])
			}
			add(n, bus, 79, VariantNoXidLine, line)
		default:
			if m := gpuUUIDRe.FindStringSubmatch(line); m != nil {
				gpu(normBus(m[1])).UUID = m[2]
			} else if m := driverLoadRe.FindStringSubmatch(line); m != nil {
				k.Driver = m[1]
			}
		}
	})
	if err != nil {
		return nil, err
	}
	if k.NVRMLines == 0 {
		return nil, ErrNoData
	}
	return k, nil
}

// xidVariant reads what tells events of one Xid apart from the text after
// its number (past the pid= and name= fields).
func xidVariant(xid int, rest string) string {
	rest = xidProcRe.ReplaceAllString(strings.TrimSpace(rest), "")
	switch {
	case xid == 154:
		if m := recoveryToRe.FindStringSubmatch(rest); m != nil {
			return strings.Join(strings.Fields(m[1]), " ")
		}
	case xid >= 144 && xid <= 150:
		if m := nvlink5Re.FindStringSubmatch(rest); m != nil {
			sev := "Fatal"
			if !strings.EqualFold(m[2], "Fatal") {
				sev = "Nonfatal"
			}
			return clip(m[1]) + " " + sev
		}
	}
	return ""
}

// normBus turns the bus id the driver prints ("PCI:0000:3b:00",
// "0000:01:00", "0000:00:01.0", "PCI:0008:01:00 GPU-I:02", "01:00") into
// domain:bus:device, lower case, the domain four digits wide.
func normBus(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return "unknown"
	}
	s = strings.ToLower(strings.TrimPrefix(strings.TrimPrefix(f[0], "PCI:"), "pci:"))
	if i := strings.IndexByte(s, '.'); i >= 0 {
		s = s[:i]
	}
	parts := strings.Split(s, ":")
	if len(parts) == 2 {
		parts = append([]string{"0000"}, parts...)
	}
	if len(parts) != 3 || !hexWidth(parts[1], 2) || !hexWidth(parts[2], 2) || !hexWidth(parts[0], 4, 8) {
		return clip(s)
	}
	if len(parts[0]) == 8 && strings.HasPrefix(parts[0], "0000") {
		parts[0] = parts[0][4:]
	}
	return strings.Join(parts, ":")
}

// hexWidth reports whether s is hexadecimal of one of the widths.
func hexWidth(s string, widths ...int) bool {
	ok := false
	for _, w := range widths {
		ok = ok || len(s) == w
	}
	if !ok {
		return false
	}
	_, err := strconv.ParseUint(s, 16, 64)
	return err == nil
}

// clip bounds a kept string.
func clip(s string) string {
	if len(s) <= maxEventText {
		return s
	}
	n := maxEventText
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
