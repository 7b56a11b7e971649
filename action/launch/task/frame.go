package task

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/checks/collective"
	"github.com/fabricctl/fabricctl/checks/preflight"
	"github.com/fabricctl/fabricctl/checks/rdma"
)

// Result is what one task reports.
type Result struct {
	Version int    `json:"v"`
	Node    string `json:"node"`
	Kind    Kind   `json:"kind"`
	// Facts are a preflight task's.
	Facts *preflight.Facts `json:"facts,omitempty"`
	// Sides are a round task's: one per side it ran.
	Sides []SideResult `json:"sides,omitempty"`
	// NCCLProbe is an NCCL probe task's answer, NCCLRun an NCCL run task's.
	NCCLProbe *collective.Probe      `json:"ncclProbe,omitempty"`
	NCCLRun   *collective.NodeResult `json:"ncclRun,omitempty"`
	// Error says why the task could not do its part (its node is not in the spec, …).
	Error string `json:"error,omitempty"`
}

// SideResult is one side a task ran: Job indexes the spec's Jobs.
type SideResult struct {
	Job     int          `json:"job"`
	Role    rdma.Role    `json:"role"`
	Outcome rdma.Outcome `json:"outcome"`
}

// FrameTag starts every line of a framed result:
//
//	FABRICCTL-TASK v1 NODE SEQ/TOTAL PAYLOAD
//
// PAYLOAD is a piece of the gzip'd JSON result in URL-safe base64. Lines stay below 512 bytes, so
// launchers that forward output line by line (srun, kubectl logs) keep each one whole however
// the tasks' outputs interleave.
const FrameTag = "FABRICCTL-TASK"

// framePayload is the base64 carried per line.
const framePayload = 400

// maxFrames bounds the lines of one result (400 B each: 40 MiB of payload).
const maxFrames = 100000

// WriteResult writes r as framed lines, each with one Write (one write(2) on a pipe).
func WriteResult(w io.Writer, r Result) error {
	r.Version = Version
	if err := CheckNodeName(r.Node); err != nil {
		return fmt.Errorf("writing the task result: %w", err)
	}
	b, err := pack(r)
	if err != nil {
		return fmt.Errorf("encoding the task result: %w", err)
	}
	n := (len(b) + framePayload - 1) / framePayload
	for i := range n {
		end := min((i+1)*framePayload, len(b))
		line := fmt.Sprintf("%s v%d %s %d/%d %s\n", FrameTag, Version, r.Node, i+1, n, b[i*framePayload:end])
		if _, err := io.WriteString(w, line); err != nil {
			return fmt.Errorf("writing the task result: %w", err)
		}
	}
	return nil
}

// Collected is what Collect read: every complete result by node, and the problems met.
type Collected struct {
	Results map[string]Result
	// Errors name the node (and line) of every frame or result that could not be read.
	Errors []error
}

// partial is a result whose frames are arriving: parts by sequence number (a map, not a slice
// of total: total is what a line says, and a line must not make Collect allocate for 100,000
// frames that never come).
type partial struct {
	total int
	parts map[int]string
}

// Collect reads a launcher's output: framed results, in any interleaving of whole lines, and
// other lines (the launcher's own messages, a task's stray output), which go to other when it
// is not nil. A result whose frames are incomplete, inconsistent or undecodable is an error
// naming its node; it is not in Results.
func Collect(r io.Reader, other func(line string)) Collected {
	c := Collected{Results: map[string]Result{}}
	parts := map[string]*partial{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	lineNo := 0
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		i := strings.Index(line, FrameTag+" ")
		if i < 0 {
			if other != nil && strings.TrimSpace(line) != "" {
				other(line)
			}
			continue
		}
		// a launcher may prefix lines (srun --label: "3: "); the frame starts at the tag
		f := strings.Fields(line[i:])
		if len(f) != 5 || f[1] != "v"+strconv.Itoa(Version) {
			c.Errors = append(c.Errors, fmt.Errorf("%w: line %d: want %s v%d NODE SEQ/TOTAL PAYLOAD", ErrFrame, lineNo, FrameTag, Version))
			continue
		}
		node := f[2]
		if why := nameProblem(node); why != "" {
			c.Errors = append(c.Errors, fmt.Errorf("%w: line %d: node %+q: %s", ErrFrame, lineNo, node, why))
			continue
		}
		seqS, totS, ok := strings.Cut(f[3], "/")
		seq, err1 := strconv.Atoi(seqS)
		tot, err2 := strconv.Atoi(totS)
		if !ok || err1 != nil || err2 != nil || tot < 1 || tot > maxFrames || seq < 1 || seq > tot {
			c.Errors = append(c.Errors, fmt.Errorf("%w: %s: line %d: sequence %q", ErrFrame, node, lineNo, f[3]))
			continue
		}
		if len(f[4]) > framePayload {
			c.Errors = append(c.Errors, fmt.Errorf("%w: %s: line %d: a frame of %d bytes, over %d", ErrFrame, node, lineNo, len(f[4]), framePayload))
			continue
		}
		p := parts[node]
		if p == nil || p.total != tot {
			if p != nil {
				c.Errors = append(c.Errors, fmt.Errorf("%w: %s: line %d: a new result of %d frames before the last one ended", ErrFrame, node, lineNo, tot))
			}
			p = &partial{total: tot, parts: map[int]string{}}
			parts[node] = p
		}
		p.parts[seq] = f[4]
		if len(p.parts) < p.total {
			continue
		}
		delete(parts, node)
		payload := make([]string, p.total)
		for i := range payload {
			payload[i] = p.parts[i+1]
		}
		var res Result
		if err := unpack(payload, &res); err != nil {
			c.Errors = append(c.Errors, fmt.Errorf("%w: %s: %w", ErrFrame, node, err))
			continue
		}
		if res.Node != node {
			c.Errors = append(c.Errors, fmt.Errorf("%w: %s: the result names node %q", ErrFrame, node, res.Node))
			continue
		}
		c.Results[node] = res
	}
	if err := sc.Err(); err != nil {
		c.Errors = append(c.Errors, fmt.Errorf("%w: line %d: %w", ErrFrame, lineNo+1, err))
	}
	for _, node := range slices.Sorted(maps.Keys(parts)) {
		p := parts[node]
		c.Errors = append(c.Errors, fmt.Errorf("%w: %s: %d of %d frames arrived", ErrFrame, node, len(p.parts), p.total))
	}
	return c
}
