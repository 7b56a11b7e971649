package hostparse

import (
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// P2PBandwidth is what the CUDA sample p2pBandwidthLatencyTest prints: the
// GPUs, which pairs can reach each other peer-to-peer, and its bandwidth
// (GB/s) and latency (us) matrices with P2P disabled and enabled.
type P2PBandwidth struct {
	GPUs []P2PGPU `json:"gpus"`
	// Access[i][j] is "Device=i CAN/CANNOT Access Peer Device=j" (the
	// diagonal is true); nil rows when the capture has no such lines.
	Access [][]bool `json:"access,omitempty"`
	// Matrices in the order printed, each named by its title without the
	// unit: "Unidirectional P2P=Disabled Bandwidth", "Bidirectional
	// P2P=Enabled Bandwidth", "P2P=Enabled Latency (P2P Writes) GPU", …
	Matrices []P2PMatrix `json:"matrices,omitempty"`
	// Truncated is set when a matrix ends before its last row (a cut capture).
	Truncated bool     `json:"truncated,omitempty"`
	Warnings  []string `json:"warnings,omitempty"`
	NumberErrors
}

// P2PGPU is one "Device: N, NAME, pciBusID: …" line.
type P2PGPU struct {
	Index int    `json:"index"`
	Name  string `json:"name"`
	BusID string `json:"busId"` // hexadecimal pciBusID as printed ("1b")
}

// P2PMatrix is one matrix: Values[i][j] from device i (row) to j (column).
type P2PMatrix struct {
	Title string `json:"title"`
	// Kind is "bandwidth" (GB/s), "latency" (us) or "connectivity" (1/0).
	Kind string `json:"kind"`
	// P2P says whether peer access was enabled for it.
	P2P bool `json:"p2p"`
	// Bidirectional marks the bidirectional bandwidth matrices.
	Bidirectional bool        `json:"bidirectional,omitempty"`
	Values        [][]float64 `json:"values"`
	Line          int         `json:"line"` // the title's line
}

var (
	p2pDeviceRe = regexp.MustCompile(`^Device: (\d+), (.*?), pciBusID: ([0-9a-fA-F]+), pciDeviceID: [0-9a-fA-F]+, pciDomainID:\s*[0-9a-fA-F]+$`)
	p2pAccessRe = regexp.MustCompile(`^Device=(\d+) (CAN|CANNOT) Access Peer Device=(\d+)$`)
	// p2pTitleRe: "Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)",
	// "Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)",
	// "P2P=Enabled Latency (P2P Writes) Matrix (us)", "P2P Connectivity Matrix".
	p2pTitleRe  = regexp.MustCompile(`^((?:Uni|Bi)directional )?P2P(?:=(Enabled|Disabled))? (Bandwidth|Latency|Connectivity)(?: \(P2P (?:Writes|Reads)\))? Matrix(?: \((GB/s|us)\))?$`)
	p2pHeaderRe = regexp.MustCompile(`^(D\\D|GPU|CPU)((?:\s+\d+)+)$`)
)

// ParseP2PBandwidth reads p2pBandwidthLatencyTest output (any version since
// CUDA 8's samples; quoted, indented or cut captures too). A matrix whose
// rows stop early is kept with the rows it has and Truncated set.
func ParseP2PBandwidth(r io.Reader) (*P2PBandwidth, error) {
	var out P2PBandwidth
	var cur *P2PMatrix // the matrix whose rows are being read
	var title string
	var titleLine int
	kind, p2p, bidir := "", false, false
	cols := 0
	content := false
	access := map[[2]int]bool{}
	hasAccess := false
	closeMatrix := func() {
		if cur != nil && len(cur.Values) < cols {
			out.Truncated = true
		}
		cur = nil
	}
	err := scan(r, func(n, _ int, raw string) {
		s := strings.TrimSpace(strings.TrimLeft(raw, "> "))
		switch {
		case s == "":
			return
		case strings.HasPrefix(s, "[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]"):
			content = true
		case p2pDeviceRe.MatchString(s):
			closeMatrix()
			m := p2pDeviceRe.FindStringSubmatch(s)
			out.GPUs = append(out.GPUs, P2PGPU{Index: atoiOr(m[1], -1), Name: m[2], BusID: strings.ToLower(m[3])})
			content = true
		case p2pAccessRe.MatchString(s):
			m := p2pAccessRe.FindStringSubmatch(s)
			access[[2]int{atoiOr(m[1], -1), atoiOr(m[3], -1)}] = m[2] == "CAN"
			hasAccess, content = true, true
		case p2pTitleRe.MatchString(s):
			closeMatrix()
			m := p2pTitleRe.FindStringSubmatch(s)
			title, titleLine, content = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(s, " (GB/s)"), " (us)"), " Matrix"), n, true
			p2p, bidir = m[2] == "Enabled", strings.HasPrefix(m[1], "Bi")
			kind = strings.ToLower(m[3])
			if kind == "connectivity" {
				p2p = true
			}
		case p2pHeaderRe.MatchString(s) && title != "":
			closeMatrix()
			m := p2pHeaderRe.FindStringSubmatch(s)
			cols = len(strings.Fields(m[2]))
			name := title
			if kind == "latency" {
				name += " " + m[1] // the GPU and CPU halves of a latency matrix
			}
			out.Matrices = append(out.Matrices, P2PMatrix{Title: name, Kind: kind, P2P: p2p, Bidirectional: bidir, Line: titleLine})
			cur = &out.Matrices[len(out.Matrices)-1]
		case cur != nil:
			f := strings.Fields(s)
			if len(f) == 0 || atoiOr(f[0], -1) != len(cur.Values) {
				closeMatrix()
				return
			}
			row := make([]float64, 0, cols)
			for j, x := range f[1:] {
				v, ok := out.rate(n, fmt.Sprintf("%s GPU%d→GPU%d", cur.Title, len(cur.Values), j), x)
				if !ok {
					if !numeric(x) {
						out.Warnings = append(out.Warnings, located(n, "%s: %q is not a number", cur.Title, x))
					}
					break // the rest of the row is unknown, as if cut off
				}
				row = append(row, v)
			}
			if len(row) < cols {
				out.Truncated = true
			}
			cur.Values = append(cur.Values, row)
			if len(cur.Values) == cols {
				cur = nil
			}
		}
	})
	if err != nil {
		return nil, fmt.Errorf("parsing p2pBandwidthLatencyTest output: %w", err)
	}
	closeMatrix()
	if !content || (len(out.GPUs) == 0 && len(out.Matrices) == 0 && !hasAccess) {
		return nil, fmt.Errorf("parsing p2pBandwidthLatencyTest output: %w", ErrNoData)
	}
	if hasAccess {
		n := len(out.GPUs)
		for k := range access {
			n = max(n, k[0]+1, k[1]+1)
		}
		if n > maxP2PGPUs {
			return nil, fmt.Errorf("parsing p2pBandwidthLatencyTest output: device index %d: more than %d GPUs", n-1, maxP2PGPUs)
		}
		out.Access = make([][]bool, n)
		for i := range out.Access {
			out.Access[i] = make([]bool, n)
			for j := range out.Access[i] {
				out.Access[i][j] = i == j || access[[2]int{i, j}]
			}
		}
	}
	return &out, nil
}

// maxP2PGPUs bounds the access matrix a capture can ask for.
const maxP2PGPUs = 1024

func atoiOr(s string, def int) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return def
	}
	return n
}

// Matrix returns the first matrix of kind whose P2P and direction match.
func (p *P2PBandwidth) Matrix(kind string, p2p, bidirectional bool) (P2PMatrix, bool) {
	for _, m := range p.Matrices {
		if m.Kind == kind && m.P2P == p2p && m.Bidirectional == bidirectional {
			return m, true
		}
	}
	return P2PMatrix{}, false
}

// At returns the value from device i to j, false when the capture lacks it.
func (m P2PMatrix) At(i, j int) (float64, bool) {
	if i < 0 || j < 0 || i >= len(m.Values) || j >= len(m.Values[i]) {
		return 0, false
	}
	return m.Values[i][j], true
}
