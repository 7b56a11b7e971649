package hostparse

import (
	"fmt"
	"io"
	"math"
	"regexp"
	"strings"
)

// SMIQuery is what nvidia-smi -q prints, reduced to what a preflight judges:
// the driver, the CUDA version it supports, and per GPU its model, VBIOS,
// PCIe link with the replay counters and its memory-error state.
type SMIQuery struct {
	Driver string   `json:"driver,omitempty"` // "Driver Version"
	CUDA   string   `json:"cuda,omitempty"`   // "CUDA Version" (the newest CUDA the driver supports)
	GPUs   []SMIGPU `json:"gpus"`
	// Failures are nvidia-smi's own error messages: a GPU it cannot get a
	// handle for, a driver it cannot reach (see SMIFailure).
	Failures []SMIFailure `json:"failures,omitempty"`
	Warnings []string     `json:"warnings,omitempty"`
	NumberErrors
}

// SMIGPU is one "GPU 00000000:18:00.0" block.
type SMIGPU struct {
	BusID   string `json:"busID"`             // "00000000:18:00.0"
	Product string `json:"product,omitempty"` // "Product Name": "NVIDIA H200"
	UUID    string `json:"uuid,omitempty"`
	VBIOS   string `json:"vbios,omitempty"` // "VBIOS Version"
	// PCIe link: "PCIe Generation" Max/Current and "Link Width" Max/Current.
	// NVML's Max is what the GPU and the slot both support
	// (nvmlDeviceGetMaxPcieLinkGeneration/Width); the current generation
	// drops while the GPU idles, so compare it under load.
	PCIeGenMax     int `json:"pcieGenMax,omitempty"`
	PCIeGenCurrent int `json:"pcieGenCurrent,omitempty"`
	WidthMax       int `json:"widthMax,omitempty"`
	WidthCurrent   int `json:"widthCurrent,omitempty"`
	// Replays is "Replays Since Reset": link-level retransmissions of the
	// PCIe link (bad signal integrity when it grows); ReplayRollovers is
	// "Replay Number Rollovers". Nil when not printed.
	Replays         *int64 `json:"replays,omitempty"`
	ReplayRollovers *int64 `json:"replayRollovers,omitempty"`
	// Addressing is "Addressing Mode" (HMM, ATS, None) on recent drivers.
	Addressing string `json:"addressing,omitempty"`
	// Memory is the "ECC Errors", "Retired Pages" and "Remapped Rows"
	// sections; nil when the capture shows none of them.
	Memory *SMIMemory `json:"memory,omitempty"`
	// Unreadable lists the fields nvidia-smi printed as "Unknown Error"
	// (NVML could not read them): "Addressing Mode".
	Unreadable []string `json:"unreadable,omitempty"`
}

// SMIMemory is a GPU's memory-error state as nvidia-smi -q prints it, across
// driver eras: "SRAM/DRAM Correctable/Uncorrectable" counters (Ampere and
// later, with Hopper's "Uncorrectable Parity/SEC-DED" split), "Single
// Bit/Double Bit … Total" counters (earlier GPUs), page retirement (Pascal,
// Volta) and row remapping (Ampere and later). A nil counter was not printed
// or printed "N/A" (ECC disabled or unsupported).
type SMIMemory struct {
	// Sums over the "ECC Errors/Volatile" (since the driver loaded) and
	// "ECC Errors/Aggregate" (lifetime) counters.
	VolatileCorrectable    *int64 `json:"volatileCorrectable,omitempty"`
	VolatileUncorrectable  *int64 `json:"volatileUncorrectable,omitempty"`
	AggregateCorrectable   *int64 `json:"aggregateCorrectable,omitempty"`
	AggregateUncorrectable *int64 `json:"aggregateUncorrectable,omitempty"`
	// SRAMThresholdExceeded is "SRAM Threshold Exceeded: Yes".
	SRAMThresholdExceeded bool `json:"sramThresholdExceeded,omitempty"`
	// "Retired Pages": pages retired after single- and double-bit errors,
	// and "Pending Page Blacklist" (a retirement waits for a reboot).
	RetiredSingleBit *int64 `json:"retiredSingleBit,omitempty"`
	RetiredDoubleBit *int64 `json:"retiredDoubleBit,omitempty"`
	RetirePending    bool   `json:"retirePending,omitempty"`
	// "Remapped Rows": rows remapped after correctable and uncorrectable
	// errors, "Pending" (the remap waits for a GPU reset) and "Remapping
	// Failure Occurred" (no spare row left: the GPU needs servicing).
	RemappedCorrectable   *int64 `json:"remappedCorrectable,omitempty"`
	RemappedUncorrectable *int64 `json:"remappedUncorrectable,omitempty"`
	RemapPending          bool   `json:"remapPending,omitempty"`
	RemapFailure          bool   `json:"remapFailure,omitempty"`
	// Blackwell-era flags under "ECC Errors": "Channel Repair Pending",
	// "TPC Repair Pending" and "Unrepairable Memory".
	RepairPending      []string `json:"repairPending,omitempty"`
	UnrepairableMemory bool     `json:"unrepairableMemory,omitempty"`
}

// SMIFailure is a message nvidia-smi prints in place of (or before) its
// output when NVML cannot reach the driver or a GPU. Kind is one of the
// SMIFail… constants; Reason is NVML's error string where the message
// carries one (nvmlErrorString: "Unknown Error", "GPU is lost",
// "Driver/library version mismatch", "Insufficient Permissions" …).
type SMIFailure struct {
	Line    int    `json:"line"`
	Kind    string `json:"kind"`
	BusID   string `json:"busID,omitempty"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message"`
}

// The failure messages nvidia-smi prints.
const (
	// "Unable to determine the device handle for GPU 0000:0B:00.0: Unknown Error"
	// (nvmlDeviceGetHandleByIndex failed: the GPU is lost, fell off the bus or needs a reset).
	SMIFailDeviceHandle = "device-handle"
	// "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."
	SMIFailDriver = "driver"
	// "Failed to initialize NVML: Driver/library version mismatch" (nvmlInit failed).
	SMIFailNVMLInit = "nvml-init"
	// "No devices were found": NVML sees no GPU it can use.
	SMIFailNoDevices = "no-devices"
	// "NVIDIA-SMI couldn't find libnvidia-ml.so library in your system."
	SMIFailLibrary = "library"
)

var smiFailureRes = []struct {
	kind string
	re   *regexp.Regexp
}{
	// The apostrophe may be typographic (’) where the text went through a word processor.
	{SMIFailDeviceHandle, regexp.MustCompile(`Unable to determine the device handle for (?i:gpu)\s*([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7])?:?\s*(.*)$`)},
	{SMIFailDriver, regexp.MustCompile(`NVIDIA-SMI has failed because it couldn.t communicate with the NVIDIA driver`)},
	{SMIFailNVMLInit, regexp.MustCompile(`Failed to initialize NVML:\s*(.*)$`)},
	{SMIFailNoDevices, regexp.MustCompile(`^\W*No devices were found\.?$`)},
	{SMIFailLibrary, regexp.MustCompile(`NVIDIA-SMI couldn.t find libnvidia-ml\.so`)},
}

// parseSMIFailure recognises one of nvidia-smi's failure messages in a line
// (quote markers and surrounding blanks ignored).
func parseSMIFailure(n int, line string) (SMIFailure, bool) {
	s := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), ">"))
	for _, f := range smiFailureRes {
		m := f.re.FindStringSubmatch(s)
		if m == nil {
			continue
		}
		out := SMIFailure{Line: n, Kind: f.kind, Message: s}
		switch f.kind {
		case SMIFailDeviceHandle:
			out.BusID, out.Reason = m[1], strings.TrimSpace(m[2])
		case SMIFailNVMLInit:
			out.Reason = strings.TrimSpace(m[1])
		}
		return out, true
	}
	return SMIFailure{}, false
}

var smiGPURe = regexp.MustCompile(`^GPU ([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7])$`)

// smiSection is one open section of nvidia-smi -q's indented tree.
type smiSection struct {
	indent int
	name   string
}

// ParseNvidiaSMIQ reads nvidia-smi -q (any -d selection), and the failure
// messages nvidia-smi prints instead of it. Keys are matched by their section
// path, so drivers that add fields do no harm.
func ParseNvidiaSMIQ(r io.Reader) (*SMIQuery, error) {
	var out SMIQuery
	var gpu *SMIGPU
	var stack []smiSection
	content := false
	err := scan(r, func(n, indent int, raw string) {
		s := strings.TrimSpace(raw)
		if s == "" || strings.HasPrefix(s, "====") {
			return
		}
		if f, ok := parseSMIFailure(n, s); ok {
			out.Failures, content = append(out.Failures, f), true
			return
		}
		if indent == 0 {
			if m := smiGPURe.FindStringSubmatch(s); m != nil {
				out.GPUs = append(out.GPUs, SMIGPU{BusID: m[1]})
				gpu = &out.GPUs[len(out.GPUs)-1]
				stack = stack[:0]
				content = true
				return
			}
		}
		for len(stack) > 0 && stack[len(stack)-1].indent >= indent {
			stack = stack[:len(stack)-1]
		}
		key, val, ok := strings.Cut(s, ":")
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		if !ok {
			stack = append(stack, smiSection{indent, s})
			return
		}
		switch {
		case key == "Driver Version":
			out.Driver, content = val, true
		case key == "CUDA Version":
			out.CUDA, content = val, true
		case gpu != nil:
			gpu.set(&out, n, stack, key, val)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("parsing nvidia-smi -q output: %w", err)
	}
	if !content {
		return nil, fmt.Errorf("parsing nvidia-smi -q output: %w", ErrNoData)
	}
	return &out, nil
}

// set records one "key : value" line of the GPU's block, found under the
// sections of stack.
func (g *SMIGPU) set(out *SMIQuery, n int, stack []smiSection, key, val string) {
	names := make([]string, 0, len(stack)+1)
	for _, sec := range stack {
		names = append(names, sec.name)
	}
	parent := ""
	if len(names) > 0 {
		parent = names[len(names)-1]
	}
	path := strings.Join(append(names, key), "/")
	if val == "Unknown Error" {
		g.Unreadable = append(g.Unreadable, path)
		return
	}
	num := func() int {
		digits := strings.TrimSuffix(val, "x")
		v, ok := out.index(n, key, digits)
		if !ok && !numeric(digits) && val != "N/A" && val != "" {
			out.Warnings = append(out.Warnings, located(n, "%s %q is not a number", key, val))
		}
		return v
	}
	count := func() *int64 {
		v, ok := out.count(n, key, val)
		if !ok {
			if !numeric(val) {
				out.Warnings = append(out.Warnings, located(n, "%s %q is not a number", key, val))
			}
			return nil
		}
		return &v
	}
	switch {
	case key == "Product Name":
		g.Product = val
	case key == "GPU UUID":
		g.UUID = val
	case key == "VBIOS Version":
		g.VBIOS = val
	case key == "Addressing Mode":
		g.Addressing = val
	case parent == "PCIe Generation" && key == "Max":
		g.PCIeGenMax = num()
	case parent == "PCIe Generation" && key == "Current":
		g.PCIeGenCurrent = num()
	case parent == "Link Width" && key == "Max":
		g.WidthMax = num()
	case parent == "Link Width" && key == "Current":
		g.WidthCurrent = num()
	case key == "Replays Since Reset":
		g.Replays = count()
	case key == "Replay Number Rollovers":
		g.ReplayRollovers = count()
	case len(names) > 0 && (names[0] == "ECC Errors" || names[0] == "Retired Pages" || names[0] == "Remapped Rows"):
		if g.Memory == nil {
			g.Memory = &SMIMemory{}
		}
		g.Memory.set(out, n, names, key, val)
	}
}

// set records one line of the memory-error sections; names are the sections
// above it, from the GPU's level down.
func (m *SMIMemory) set(out *SMIQuery, n int, names []string, key, val string) {
	yes := strings.EqualFold(val, "Yes")
	count := func() (int64, bool) {
		if val == "N/A" || val == "" {
			return 0, false
		}
		v, ok := out.count(n, key, val)
		if !ok && !numeric(val) {
			out.Warnings = append(out.Warnings, located(n, "%s %q is not a number", key, val))
		}
		return v, ok
	}
	add := func(p **int64) {
		if v, ok := count(); ok {
			if *p == nil {
				*p = new(int64)
			}
			if **p > math.MaxInt64-v {
				out.bad(n, key, val, "overflows the sum of its counters")
				return
			}
			**p += v
		}
	}
	switch names[0] {
	case "ECC Errors":
		m.setECC(names[1:], key, yes, add)
	case "Retired Pages":
		switch key {
		case "Single Bit ECC":
			add(&m.RetiredSingleBit)
		case "Double Bit ECC":
			add(&m.RetiredDoubleBit)
		case "Pending Page Blacklist", "Pending":
			m.RetirePending = yes
		}
	case "Remapped Rows":
		if len(names) > 1 {
			return // "Bank Remap Availability Histogram"
		}
		switch key {
		case "Correctable Error":
			add(&m.RemappedCorrectable)
		case "Uncorrectable Error":
			add(&m.RemappedUncorrectable)
		case "Pending":
			m.RemapPending = yes
		case "Remapping Failure Occurred":
			m.RemapFailure = yes
		}
	}
}

// setECC records an "ECC Errors" counter. sub are the sections below "ECC
// Errors": "Volatile" or "Aggregate", then on older GPUs "Single Bit" or
// "Double Bit" (whose "Total" line sums the others). Breakdowns such as
// "Aggregate Uncorrectable SRAM Sources" repeat counted errors and are skipped.
func (m *SMIMemory) setECC(sub []string, key string, yes bool, add func(**int64)) {
	if len(sub) == 0 {
		switch key {
		case "Channel Repair Pending", "TPC Repair Pending":
			if yes {
				m.RepairPending = append(m.RepairPending, key)
			}
		case "Unrepairable Memory":
			m.UnrepairableMemory = yes
		}
		return
	}
	var corr, uncorr **int64
	switch sub[0] {
	case "Volatile":
		corr, uncorr = &m.VolatileCorrectable, &m.VolatileUncorrectable
	case "Aggregate":
		corr, uncorr = &m.AggregateCorrectable, &m.AggregateUncorrectable
	default:
		return
	}
	switch {
	case key == "SRAM Threshold Exceeded":
		m.SRAMThresholdExceeded = m.SRAMThresholdExceeded || yes
	case len(sub) > 1 && sub[1] == "Single Bit":
		if key == "Total" {
			add(corr)
		}
	case len(sub) > 1 && sub[1] == "Double Bit":
		if key == "Total" {
			add(uncorr)
		}
	case len(sub) > 1:
	case strings.Contains(key, "Uncorrectable"):
		add(uncorr)
	case strings.Contains(key, "Correctable"):
		add(corr)
	}
}

// SMISummary is the table plain nvidia-smi prints: the driver and CUDA
// versions of its header and one entry per GPU, and the failure messages
// nvidia-smi prints instead of (or above) the table.
type SMISummary struct {
	Version  string          `json:"version,omitempty"` // "NVIDIA-SMI 580.159.04"
	Driver   string          `json:"driver,omitempty"`
	CUDA     string          `json:"cuda,omitempty"` // absent before driver 410
	GPUs     []SMISummaryGPU `json:"gpus"`
	Failures []SMIFailure    `json:"failures,omitempty"`
	NumberErrors
}

// SMISummaryGPU is one GPU entry of the table: its first row (index, name,
// bus ID, ECC) and the rows below it up to the next rule.
type SMISummaryGPU struct {
	Index int    `json:"index"`
	Name  string `json:"name"`
	BusID string `json:"busID,omitempty"`
	// Errors names the fields nvidia-smi printed as "ERR!" (NVML could not
	// read them: a GPU in a bad state): "Pwr:Usage", "Volatile Uncorr. ECC".
	Errors []string `json:"errors,omitempty"`
	// VolatileUncorrectable is the "Volatile Uncorr. ECC" column (the "DB"
	// count of drivers that printed "Volatile ECC SB / DB");
	// VolatileCorrectable is that SB count. Nil when "N/A".
	VolatileUncorrectable *int64 `json:"volatileUncorrectable,omitempty"`
	VolatileCorrectable   *int64 `json:"volatileCorrectable,omitempty"`
}

var (
	smiHeaderRe = regexp.MustCompile(`NVIDIA-SMI ([\d.]+)\s+Driver Version: ([\d.]+)(?:\s+CUDA Version: ([\d.]+))?`)
	// The first row of a GPU: "|   0  NVIDIA H200   On  |   00000000:00:06.0 Off |   0 |";
	// drivers before 2013 printed "| 0.  Tesla C2050   | 0000:02:00.0  On  |" (no persistence column).
	smiRowRe = regexp.MustCompile(`^\|\s*(\d+)\.?\s+(.*?)\s+(?:(?:On|Off)\s*)?\|\s*([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7])(?:\s|\|)`)
)

// ParseNvidiaSMI reads the table plain nvidia-smi prints, every driver era
// (with and without "CUDA Version" in the header, with and without the MIG
// row), a fragment of it (GPU rows without the header), and the failure
// messages nvidia-smi prints instead.
func ParseNvidiaSMI(r io.Reader) (*SMISummary, error) {
	var out SMISummary
	content := false
	cur, row := -1, 0
	err := scan(r, func(n, _ int, raw string) {
		s := strings.TrimSpace(raw)
		if f, ok := parseSMIFailure(n, s); ok {
			out.Failures, content = append(out.Failures, f), true
			return
		}
		if m := smiHeaderRe.FindStringSubmatch(raw); m != nil {
			out.Version, out.Driver, out.CUDA, content = "NVIDIA-SMI "+m[1], m[2], m[3], true
			return
		}
		if m := smiRowRe.FindStringSubmatch(s); m != nil {
			idx, _ := out.index(n, "GPU index", m[1])
			out.GPUs = append(out.GPUs, SMISummaryGPU{Index: idx, Name: m[2], BusID: m[3]})
			cur, row, content = len(out.GPUs)-1, 0, true
			out.GPUs[cur].readRow(&out.NumberErrors, n, 0, s)
			return
		}
		if cur < 0 || !strings.HasPrefix(s, "|") || strings.HasPrefix(s, "|-") || strings.HasPrefix(s, "|=") {
			cur = -1 // a rule or anything else ends the GPU's entry
			return
		}
		row++
		out.GPUs[cur].readRow(&out.NumberErrors, n, row, s)
	})
	if err != nil {
		return nil, fmt.Errorf("parsing nvidia-smi output: %w", err)
	}
	if !content {
		return nil, fmt.Errorf("parsing nvidia-smi output: %w", ErrNoData)
	}
	return &out, nil
}

// smiColumns names the cells of a GPU's rows as nvidia-smi's header does;
// the first cell of the second row is split further by smiRow1Cell0.
var (
	smiColumns = [][]string{
		{"Name", "Disp.A", "Volatile Uncorr. ECC"},
		{"Fan/Temp/Perf/Pwr", "Memory-Usage", "GPU-Util/Compute M."},
		{"", "", "MIG M."},
	}
	smiRow1Cell0 = []string{"Fan", "Temp", "Perf", "Pwr:Usage", "/", "Pwr:Cap"}
)

// readRow reads row i (0: the row with the bus ID) of the GPU's entry: the
// fields printed as ERR!, and the volatile ECC column.
func (g *SMISummaryGPU) readRow(bad *NumberErrors, n, i int, s string) {
	cells := strings.Split(strings.Trim(s, "|"), "|")
	for c, cell := range cells {
		if i == 0 && c == 2 {
			g.readECC(bad, n, cell)
		}
		if !strings.Contains(cell, "ERR!") {
			continue
		}
		g.Errors = append(g.Errors, smiField(i, c, cell)...)
	}
}

// smiField names the fields of cell c of row i that hold ERR!.
func smiField(i, c int, cell string) []string {
	name := "a field"
	if i < len(smiColumns) && c < len(smiColumns[i]) && smiColumns[i][c] != "" {
		name = smiColumns[i][c]
	}
	f := strings.Fields(cell)
	if i != 1 || c != 0 || len(f) != len(smiRow1Cell0) {
		return []string{name}
	}
	var out []string
	for k, v := range f {
		if v == "ERR!" {
			out = append(out, smiRow1Cell0[k])
		}
	}
	return out
}

// readECC reads the "Volatile Uncorr. ECC" cell: one count, or the "SB DB"
// pair of old drivers; "N/A" and "ERR!" leave it unknown, and so does a
// count that is none (1e23, negative), recorded in bad.
func (g *SMISummaryGPU) readECC(bad *NumberErrors, n int, cell string) {
	var nums []int64
	for _, f := range strings.Fields(cell) {
		v, ok := bad.count(n, "Volatile Uncorr. ECC", f)
		if !ok {
			return
		}
		nums = append(nums, v)
	}
	switch len(nums) {
	case 1:
		g.VolatileUncorrectable = &nums[0]
	case 2:
		g.VolatileCorrectable, g.VolatileUncorrectable = &nums[0], &nums[1]
	}
}
