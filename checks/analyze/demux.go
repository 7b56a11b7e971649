package analyze

import (
	"fmt"
	"strings"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/nccl"
)

// demuxShare is the share of a capture's non-empty lines that must carry a
// launcher prefix (pdsh "host: ", srun "3: ", mpirun "[1,0]<stdout>:",
// kubectl "[pod/…] ", Ray, timestamps) for it to be taken apart: host tools
// run on many machines at once and printed interleaved.
const demuxShare = 0.8

// part is what one machine or stream printed.
type part struct {
	source string
	data   []byte
}

// demux takes a capture whose lines carry launcher prefixes apart by the
// machine or stream they name, each with its prefixes off. ok is false for a
// capture that is not one (too few prefixed lines).
func demux(data []byte) (parts []part, ok bool) {
	index := map[string]int{}
	lines, prefixed := 0, 0
	for _, raw := range strings.Split(string(data), "\n") {
		raw = strings.TrimRight(raw, "\r")
		if strings.TrimSpace(raw) == "" {
			continue
		}
		lines++
		source, rest := nccl.LauncherPrefix(raw)
		if rest != raw {
			prefixed++
		}
		i, seen := index[source]
		if !seen {
			i = len(parts)
			index[source] = i
			parts = append(parts, part{source: source})
		}
		parts[i].data = append(append(parts[i].data, rest...), '\n')
	}
	if lines < 2 || float64(prefixed) < demuxShare*float64(lines) {
		return nil, false
	}
	return parts, true
}

// analyzeParts judges each machine's part of a prefixed capture on its own
// and names the machine in every finding's subject. The file's kind is the
// parts' kind where they agree, the first part's otherwise.
func (o Options) analyzeParts(name string, parts []part) File {
	out := File{File: name, Kind: KindUnknown}
	facts := map[string]any{}
	for _, p := range parts {
		f := o.AnalyzeAs(name, Detect(p.data), p.data)
		if out.Kind == KindUnknown {
			out.Kind = f.Kind
		}
		for _, x := range f.Findings {
			if p.source != "" {
				x.Subject = strings.TrimSuffix(p.source+"/"+x.Subject, "/")
			}
			out.Findings = append(out.Findings, x)
		}
		if f.Facts != nil {
			facts[p.source] = f.Facts
		}
	}
	if len(facts) > 0 {
		out.Facts = facts
	}
	if len(parts) > 1 {
		out.Findings = append(out.Findings, Finding{ID: "file/parts", Status: checks.StatusPass,
			Summary: fmt.Sprintf("%d machines' output, told apart by their launcher prefixes", len(parts))})
	}
	return out
}
