package hostparse

import (
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// SMIQuery is what nvidia-smi -q prints, reduced to what a preflight judges:
// the driver, the CUDA version it supports, and per GPU its model, VBIOS and
// PCIe link with the replay counters.
type SMIQuery struct {
	Driver   string   `json:"driver,omitempty"` // "Driver Version"
	CUDA     string   `json:"cuda,omitempty"`   // "CUDA Version" (the newest CUDA the driver supports)
	GPUs     []SMIGPU `json:"gpus"`
	Warnings []string `json:"warnings,omitempty"`
}

// SMIGPU is one "GPU 00000000:18:00.0" block.
type SMIGPU struct {
	BusID   string `json:"busID"`             // "00000000:18:00.0"
	Product string `json:"product,omitempty"` // "Product Name": "NVIDIA H200"
	UUID    string `json:"uuid,omitempty"`
	VBIOS   string `json:"vbios,omitempty"` // "VBIOS Version"
	// PCIe link: "PCIe Generation" Max/Current and "Link Width" Max/Current
	// (current values drop while the GPU idles: compare under load).
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
}

var smiGPURe = regexp.MustCompile(`^GPU ([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7])$`)

// ParseNvidiaSMIQ reads nvidia-smi -q (any -d selection). Keys are matched by
// their section path, so drivers that add fields do no harm.
func ParseNvidiaSMIQ(r io.Reader) (*SMIQuery, error) {
	var out SMIQuery
	var gpu *SMIGPU
	var stack []struct {
		indent int
		name   string
	}
	content := false
	err := scan(r, func(n, indent int, raw string) {
		s := strings.TrimSpace(raw)
		if s == "" || strings.HasPrefix(s, "====") {
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
			stack = append(stack, struct {
				indent int
				name   string
			}{indent, s})
			return
		}
		path := key
		if len(stack) > 0 {
			path = stack[len(stack)-1].name + "/" + key
		}
		num := func() int {
			v, err := strconv.Atoi(strings.TrimSuffix(val, "x"))
			if err != nil && val != "N/A" && val != "" {
				out.Warnings = append(out.Warnings, located(n, "%s %q is not a number", key, val))
			}
			return v
		}
		count := func() *int64 {
			v, err := strconv.ParseInt(val, 10, 64)
			if err != nil {
				out.Warnings = append(out.Warnings, located(n, "%s %q is not a number", key, val))
				return nil
			}
			return &v
		}
		switch {
		case key == "Driver Version":
			out.Driver, content = val, true
		case key == "CUDA Version":
			out.CUDA, content = val, true
		case gpu == nil:
		case key == "Product Name":
			gpu.Product = val
		case key == "GPU UUID":
			gpu.UUID = val
		case key == "VBIOS Version":
			gpu.VBIOS = val
		case key == "Addressing Mode":
			gpu.Addressing = val
		case path == "PCIe Generation/Max":
			gpu.PCIeGenMax = num()
		case path == "PCIe Generation/Current":
			gpu.PCIeGenCurrent = num()
		case path == "Link Width/Max":
			gpu.WidthMax = num()
		case path == "Link Width/Current":
			gpu.WidthCurrent = num()
		case key == "Replays Since Reset":
			gpu.Replays = count()
		case key == "Replay Number Rollovers":
			gpu.ReplayRollovers = count()
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

// SMISummary is the table plain nvidia-smi prints: the driver and CUDA
// versions of its header and one entry per GPU.
type SMISummary struct {
	Version string          `json:"version,omitempty"` // "NVIDIA-SMI 580.159.04"
	Driver  string          `json:"driver,omitempty"`
	CUDA    string          `json:"cuda,omitempty"`
	GPUs    []SMISummaryGPU `json:"gpus"`
}

// SMISummaryGPU is one GPU row of the table.
type SMISummaryGPU struct {
	Index int    `json:"index"`
	Name  string `json:"name"`
	BusID string `json:"busID,omitempty"`
}

var (
	smiHeaderRe = regexp.MustCompile(`NVIDIA-SMI ([\d.]+)\s+Driver Version: ([\d.]+)\s+CUDA Version: ([\d.]+)`)
	smiRowRe    = regexp.MustCompile(`^\|\s+(\d+)\s+(.+?)\s{2,}(?:On|Off)\s*\|\s*([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7])`)
)

// ParseNvidiaSMI reads the table plain nvidia-smi prints.
func ParseNvidiaSMI(r io.Reader) (*SMISummary, error) {
	var out SMISummary
	content := false
	err := scan(r, func(_, _ int, raw string) {
		if m := smiHeaderRe.FindStringSubmatch(raw); m != nil {
			out.Version, out.Driver, out.CUDA, content = "NVIDIA-SMI "+m[1], m[2], m[3], true
			return
		}
		if m := smiRowRe.FindStringSubmatch(strings.TrimSpace(raw)); m != nil {
			idx, _ := strconv.Atoi(m[1])
			out.GPUs = append(out.GPUs, SMISummaryGPU{Index: idx, Name: m[2], BusID: m[3]})
		}
	})
	if err != nil {
		return nil, fmt.Errorf("parsing nvidia-smi output: %w", err)
	}
	if !content {
		return nil, fmt.Errorf("parsing nvidia-smi output: %w", ErrNoData)
	}
	return &out, nil
}
