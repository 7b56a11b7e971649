package report

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/fabricctl/fabricctl/checks"
)

// HostVerdict is what a report says about one host, for a scheduler to act on (drain a Slurm
// node, taint a Kubernetes node).
type HostVerdict struct {
	Host string `json:"host"`
	// Failed: the host itself is broken. Reason says why, in one line.
	Failed bool   `json:"failed"`
	Reason string `json:"reason,omitempty"`
	// Undecided: some check of the host could not decide (error); a host that is neither
	// failed nor undecided passed.
	Undecided bool `json:"undecided,omitempty"`
	// Pairs and FailedPairs count the pairwise tests the host took part in.
	Pairs       int `json:"pairs"`
	FailedPairs int `json:"failedPairs"`
}

// HostVerdicts judges hosts (the fabric's; targets of other names, like "fleet/perftest", are
// not hosts). A host failed when a check about it alone
// (preflight, loopback) failed, or when it took part in at least two pairwise tests and all of
// them failed: the host is then the common factor. A failed pair between hosts that pass
// elsewhere points at the path between them, not at a host: it fails the report but no host. A
// single pair (a two-host fabric) cannot tell its two hosts apart and fails neither. Sorted by
// host.
func (r *Report) HostVerdicts(hosts []string) []HostVerdict {
	by := map[string]*HostVerdict{}
	for _, h := range hosts {
		by[h] = &HostVerdict{Host: h}
	}
	for _, res := range r.Results {
		v := by[HostOf(res.Target)]
		if v == nil {
			continue
		}
		switch res.Status {
		case checks.StatusFail:
			if !v.Failed {
				v.Failed, v.Reason = true, fmt.Sprintf("%s %s: %s", res.ID, res.Target, res.Summary)
			}
		case checks.StatusError:
			v.Undecided = true
		}
	}
	for _, p := range r.Pairs {
		for _, h := range []string{p.A, p.B} {
			v := by[h]
			if v == nil {
				continue
			}
			v.Pairs++
			switch p.Status {
			case checks.StatusFail:
				v.FailedPairs++
			case checks.StatusError:
				v.Undecided = true
			}
		}
	}
	for _, p := range r.Pairs {
		if p.Status != checks.StatusFail {
			continue
		}
		for _, h := range []string{p.A, p.B} {
			v := by[h]
			if v != nil && !v.Failed && v.Pairs >= 2 && v.FailedPairs == v.Pairs {
				v.Failed = true
				v.Reason = fmt.Sprintf("all %d pairwise tests of %s failed (e.g. %s: %s)", v.Pairs, h, p.Target(), p.Summary)
			}
		}
	}
	out := make([]HostVerdict, 0, len(by))
	for _, v := range by {
		out = append(out, *v)
	}
	slices.SortFunc(out, func(a, b HostVerdict) int { return cmp.Compare(a.Host, b.Host) })
	return out
}
