package hostparse

import (
	"fmt"
	"io"
	"regexp"
	"strings"
)

// NVLink is what nvidia-smi nvlink --status (-s) and --errorcounters (-e)
// print: per GPU, per link, its speed or its error counters.
type NVLink struct {
	GPUs []NVLinkGPU `json:"gpus"`
	// Elided is set when the capture left links out ("[...]").
	Elided bool `json:"elided,omitempty"`
	// Inactive is set when nvidia-smi said every link is inactive outside
	// any GPU's block (a host without NVLink, or NVLink not trained); the
	// message inside a GPU's block sets that GPU's AllInactive.
	Inactive bool     `json:"inactive,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
	NumberErrors
}

// NoGPUHeader is the Index of links a capture shows without their "GPU N:"
// header (grep output); their Name says which block they are.
const NoGPUHeader = -1

// NVLinkGPU is one "GPU N: NAME (UUID: …)" block.
type NVLinkGPU struct {
	Index int          `json:"index"`
	Name  string       `json:"name,omitempty"`
	Links []NVLinkLink `json:"links,omitempty"`
	// AllInactive is set when nvidia-smi answered for this GPU "NVML: Unable
	// to retrieve NVLink information as all links are inActive" instead of
	// listing its links.
	AllInactive bool `json:"allInactive,omitempty"`
}

// NVLinkLink is one link: its speed (-s) or its counters (-e).
type NVLinkLink struct {
	Link int `json:"link"`
	// Speed is "26.562 GB/s"; "<inactive>" for a link that is down.
	Speed string `json:"speed,omitempty"`
	// Errors holds the -e counters by name: "Replay Errors", "Recovery
	// Errors", "CRC Errors", and newer drivers' "CRC FLIT Errors" etc.; a
	// counter that is no count (1e23, negative) is left out, in BadNumbers.
	Errors map[string]int64 `json:"errors,omitempty"`
}

var (
	nvlGPURe   = regexp.MustCompile(`^GPU (\d+): (.*?)(?: \(UUID: [^)]*\))?$`)
	nvlLinkRe  = regexp.MustCompile(`^Link (\d+): (.*)$`)
	nvlCountRe = regexp.MustCompile(`^([A-Za-z][A-Za-z ]*?(?:Errors?|Counter|Count)):\s*(\S+)$`)
)

// ParseNVLink reads nvidia-smi nvlink -s or -e output.
func ParseNVLink(r io.Reader) (*NVLink, error) {
	var out NVLink
	var gpu *NVLinkGPU
	content, headerless := false, 0
	err := scan(r, func(n, _ int, raw string) {
		s := strings.TrimSpace(raw)
		switch {
		case s == "[...]" || s == "...":
			out.Elided = true
		case strings.Contains(strings.ToLower(s), "links are inactive"):
			if gpu != nil && len(gpu.Links) == 0 {
				gpu.AllInactive, content = true, true
				return
			}
			out.Inactive, content = true, true
		case nvlGPURe.MatchString(s):
			m := nvlGPURe.FindStringSubmatch(s)
			idx, _ := out.index(n, "GPU index", m[1])
			out.GPUs = append(out.GPUs, NVLinkGPU{Index: idx, Name: m[2]})
			gpu, content = &out.GPUs[len(out.GPUs)-1], true
		case nvlLinkRe.MatchString(s):
			m := nvlLinkRe.FindStringSubmatch(s)
			link, _ := out.index(n, "link number", m[1])
			if gpu == nil || (gpu.Index == NoGPUHeader && len(gpu.Links) > 0 && link < gpu.Links[len(gpu.Links)-1].Link) {
				// Lines grep kept without their "GPU N:" header: a block
				// per run of link numbers.
				headerless++
				out.GPUs = append(out.GPUs, NVLinkGPU{Index: NoGPUHeader, Name: fmt.Sprintf("links without a GPU header, block %d", headerless)})
				gpu = &out.GPUs[len(out.GPUs)-1]
			}
			content = true
			var l *NVLinkLink
			if k := len(gpu.Links); k > 0 && gpu.Links[k-1].Link == link {
				l = &gpu.Links[k-1]
			} else {
				gpu.Links = append(gpu.Links, NVLinkLink{Link: link})
				l = &gpu.Links[len(gpu.Links)-1]
			}
			if c := nvlCountRe.FindStringSubmatch(m[2]); c != nil {
				v, ok := out.count(n, fmt.Sprintf("link %d %s", link, c[1]), c[2])
				if !ok {
					if !numeric(c[2]) {
						out.Warnings = append(out.Warnings, located(n, "%s %q is not a number", c[1], c[2]))
					}
					return
				}
				if l.Errors == nil {
					l.Errors = map[string]int64{}
				}
				l.Errors[c[1]] = v
				return
			}
			l.Speed = m[2]
		}
	})
	if err != nil {
		return nil, fmt.Errorf("parsing nvidia-smi nvlink output: %w", err)
	}
	if !content {
		return nil, fmt.Errorf("parsing nvidia-smi nvlink output: %w", ErrNoData)
	}
	return &out, nil
}
