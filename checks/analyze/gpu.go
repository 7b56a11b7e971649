package analyze

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/hostparse"
)

// evalSMIQuery reports each GPU's model, driver, CUDA and VBIOS, and judges
// the PCIe replay counter: link-level retransmissions mean a marginal link.
// The current PCIe generation and width drop while a GPU idles, so they are
// reported, not judged.
func evalSMIQuery(name string, data []byte) ([]Finding, any, error) {
	q, err := hostparse.ParseNvidiaSMIQ(bytes.NewReader(data))
	if err != nil {
		return nil, nil, err
	}
	var out []Finding
	for _, g := range q.GPUs {
		out = append(out, pass("nvidia-smi-q/gpu", g.BusID, fmt.Sprintf("%s, driver %s, CUDA %s, VBIOS %s, PCIe gen %d/%d x%d/%d (current/max)",
			orUnknown(g.Product), orUnknown(q.Driver), orUnknown(q.CUDA), orUnknown(g.VBIOS), g.PCIeGenCurrent, g.PCIeGenMax, g.WidthCurrent, g.WidthMax)))
		out = append(out, ReplayFinding("nvidia-smi-q/pcie-replays", g.BusID, g.Replays, g.ReplayRollovers))
	}
	if len(q.GPUs) == 0 {
		out = append(out, bad("nvidia-smi-q/gpu", "", checks.StatusSkip, "", "driver "+orUnknown(q.Driver)+": no GPU block in the capture"))
	}
	return out, q, nil
}

// ReplayFinding judges a GPU's PCIe replay counter ("Replays Since Reset"):
// zero passes, any replay warns (retransmitted TLPs: a marginal slot, riser
// or cable), a rollover of the counter fails.
func ReplayFinding(id, subject string, replays, rollovers *int64) Finding {
	switch {
	case replays == nil:
		return bad(id, subject, checks.StatusSkip, "", "the replay counter is not reported")
	case rollovers != nil && *rollovers > 0:
		return bad(id, subject, checks.StatusFail, checks.LowBandwidth, fmt.Sprintf("PCIe replay counter rolled over %d times (%d replays since reset): the link retransmits constantly", *rollovers, *replays))
	case *replays > 0:
		return bad(id, subject, checks.StatusWarn, "", fmt.Sprintf("%d PCIe replays since reset: link-level retransmissions; watch whether it grows (slot, riser, signal integrity)", *replays))
	}
	return pass(id, subject, "no PCIe replays since reset")
}

func evalSMI(name string, data []byte) ([]Finding, any, error) {
	s, err := hostparse.ParseNvidiaSMI(bytes.NewReader(data))
	if err != nil {
		return nil, nil, err
	}
	var names []string
	for _, g := range s.GPUs {
		names = append(names, g.Name)
	}
	slices.Sort(names)
	names = slices.Compact(names)
	return []Finding{pass("nvidia-smi/gpus", "", fmt.Sprintf("%d× %s, driver %s, CUDA %s", len(s.GPUs), orUnknown(strings.Join(names, ", ")), s.Driver, s.CUDA))}, s, nil
}

// evalNVLink judges nvidia-smi nvlink -e (error counters: any non-zero
// replay, recovery or CRC count warns) and -s (a GPU with some links up and
// others inactive warns; a GPU without active links is reported).
func evalNVLink(name string, data []byte) ([]Finding, any, error) {
	nl, err := hostparse.ParseNVLink(bytes.NewReader(data))
	if err != nil {
		return nil, nil, err
	}
	var out []Finding
	if nl.Inactive && len(nl.GPUs) == 0 {
		return []Finding{bad("nvlink/links", "", checks.StatusSkip, "", "all NVLinks are inactive: no NVLink on this host (or not trained)")}, nl, nil
	}
	for _, g := range nl.GPUs {
		subject := fmt.Sprintf("GPU%d", g.Index)
		var counted, inactive, active int
		var errs []string
		for _, l := range g.Links {
			if l.Errors != nil {
				counted++
				for _, k := range slices.Sorted(func(yield func(string) bool) {
					for k := range l.Errors {
						if !yield(k) {
							return
						}
					}
				}) {
					if v := l.Errors[k]; v > 0 {
						errs = append(errs, fmt.Sprintf("link %d %s %d", l.Link, k, v))
					}
				}
			}
			switch {
			case l.Speed == "":
			case strings.Contains(l.Speed, "inactive"):
				inactive++
			default:
				active++
			}
		}
		switch {
		case len(errs) > 0:
			out = append(out, bad("nvlink/errors", subject, checks.StatusWarn, "", "NVLink error counters are not zero: "+strings.Join(errs, "; ")))
		case counted > 0:
			out = append(out, pass("nvlink/errors", subject, fmt.Sprintf("%d links, no NVLink errors", counted)))
		}
		switch {
		case active > 0 && inactive > 0:
			out = append(out, bad("nvlink/links", subject, checks.StatusWarn, "", fmt.Sprintf("%d NVLinks active, %d inactive", active, inactive)))
		case active > 0:
			out = append(out, pass("nvlink/links", subject, fmt.Sprintf("%d NVLinks active", active)))
		case inactive > 0:
			out = append(out, bad("nvlink/links", subject, checks.StatusSkip, "", "no NVLink active on this GPU"))
		}
	}
	return out, nl, nil
}
