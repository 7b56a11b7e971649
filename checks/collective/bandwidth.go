package collective

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/nccl"
	"github.com/fabricctl/fabricctl/hostcfg"
)

// busbw judges the best bus bandwidth (algbw × 2(n−1)/n) of a job across
// hosts against the rate of the NICs NCCL used on the slowest host. When it
// fell below the floor with nothing but the fabric to blame, slow holds the
// port rate and floor (Gb/s) a perftest pair must reach to call the fabric
// fast; otherwise slow is nil.
func (j judge) busbw() (r checks.Result, slow *portFloor) {
	r = checks.Result{ID: IDBusBW, Target: "job", Status: checks.StatusSkip}
	best, at, alg := j.measured()
	world := totalRanks(j.specs)
	nnodes := j.specs[0].NNodes
	if best > 0 || at > 0 {
		r.Measurements = append(r.Measurements, checks.Measurement{Name: "busbw_max", Value: round2(best), Unit: checks.UnitGBps})
	}
	switch {
	case world == 1:
		alg := 0.0
		for _, e := range j.out.Script.Sizes {
			alg = max(alg, e.AlgBW)
		}
		if j.out.Analysis != nil {
			for _, t := range j.out.Analysis.Tests {
				for _, row := range t.Rows {
					alg = max(alg, row.OutOfPlace.AlgBW, row.InPlace.AlgBW)
				}
			}
		}
		r.Summary = fmt.Sprintf("one rank: an all-reduce over one rank moves nothing between GPUs or hosts (bus bandwidth 0; its algbw of %.0f GB/s measures no transfer)", alg)
		return r, nil
	case best == 0:
		r.Summary = "no bandwidth was measured (see nccl/correctness and nccl/run)"
		return r, nil
	case nnodes == 1:
		r.Summary = fmt.Sprintf("single host: the best bus bandwidth %.2f GB/s (at %s) measures NVLink/PCIe between its GPUs, not the fabric", best, sizeName(at))
		return r, nil
	}
	var tcp []string
	node := math.Inf(1)
	nics := 1
	var nodes []string
	pcie := false
	for i, s := range j.specs {
		h, ok := j.hostOf(i)
		if !ok {
			continue
		}
		if slices.ContainsFunc(h.Links, func(l nccl.Link) bool { return l.Transport == "NET/Socket" }) {
			tcp = append(tcp, s.Host)
			continue
		}
		total, devs := j.nicRate(i, h)
		if total <= 0 {
			continue
		}
		nodes = append(nodes, fmt.Sprintf("%s: %s = %g Gb/s", s.Host, strings.Join(devs, "+"), total))
		if total < node {
			node, nics = total, len(devs)
		}
		if nvl, _ := h.NVLinkPaths(); s.Ranks > 1 && !nvl {
			pcie = true
		}
	}
	switch {
	case len(tcp) > 0:
		r.Summary = fmt.Sprintf("best bus bandwidth %.2f GB/s at %s, over TCP sockets on %s: not an RDMA measurement", best, sizeName(at), strings.Join(tcp, ", "))
		return r, nil
	case math.IsInf(node, 1):
		r.Summary = fmt.Sprintf("best bus bandwidth %.2f GB/s at %s; no NIC rate known to judge it by (no preflight facts, no spec.checks.preflight.expectedRate)", best, sizeName(at))
		return r, nil
	}
	// A ring or tree across hosts crosses the network through each host's
	// NICs: the bus bandwidth is bound by the slowest host's NICs together
	// (nccl-tests' PERFORMANCE.md: busbw reflects the hardware bottleneck).
	pct := float64(j.cfg.MinPercentOfPortRate)
	floor := pct / 100 * node / 8
	r.Measurements = append(r.Measurements, checks.Measurement{Name: "busbw_floor", Value: round2(floor), Unit: checks.UnitGBps})
	r.Evidence = append(nodes, fmt.Sprintf("busbw = algbw %.2f GB/s × 2(n−1)/n, n = %d ranks", alg, world))
	if best < floor {
		r.Status, r.Class = checks.StatusFail, checks.LowBandwidth
		r.Summary = fmt.Sprintf("best bus bandwidth %.2f GB/s (at %s) is below %g%% of the slowest host's NIC rate (%g Gb/s = %.2f GB/s): floor %.2f GB/s", best, sizeName(at), pct, node, node/8, floor)
		if pcie {
			// Local ranks over PCIe (no NVLink) may be the bottleneck, not the fabric.
			r.Status = checks.StatusWarn
			r.Summary += "; the local ranks connect over PCIe, which may be the bottleneck rather than the fabric"
			return r, nil
		}
		rate := node / float64(nics)
		return r, &portFloor{pct: pct, rate: rate, floor: pct / 100 * rate}
	}
	r.Status = checks.StatusPass
	r.Summary = fmt.Sprintf("best bus bandwidth %.2f GB/s (at %s), %.0f%% of the slowest host's NIC rate (%g Gb/s); floor %g%%", best, sizeName(at), 100*best*8/node, node, pct)
	return r, nil
}

// portFloor is what one port pair's perftest must reach for the fabric to
// count as fast: pct % of the (average) rate of the slowest host's ports.
type portFloor struct{ pct, rate, floor float64 }

func round2(v float64) float64 { return math.Round(v*100) / 100 }

// BusBW is the bus bandwidth of an all-reduce over n ranks that reached
// algbw (bytes / time): algbw × 2(n−1)/n, the share of the data each rank's
// slowest link carries in a ring (nccl-tests' PERFORMANCE.md); 0 for one rank.
func BusBW(algbw float64, n int) float64 {
	if n <= 1 {
		return 0
	}
	return algbw * 2 * float64(n-1) / float64(n)
}

// measured is the best bus bandwidth of the job, GB/s, the size it was
// reached at and the algbw it came from. It is computed here, BusBW of the
// measured algbw over the job's ranks, not taken from the busbw the test
// printed: one formula judges both tools.
func (j judge) measured() (bus float64, at int64, alg float64) {
	n := totalRanks(j.specs)
	take := func(a float64, size int64) {
		if b := BusBW(a, n); b > bus {
			bus, at, alg = b, size, a
		}
	}
	if j.specs[0].Tool == ToolTorch {
		for _, e := range j.out.Script.Sizes {
			take(e.AlgBW, e.Bytes)
		}
		return bus, at, alg
	}
	if j.out.Analysis != nil {
		for _, t := range j.out.Analysis.Tests {
			for _, row := range t.Rows {
				take(max(row.OutOfPlace.AlgBW, row.InPlace.AlgBW), row.Bytes)
			}
		}
	}
	return bus, at, alg
}

// nicRate sums the rates of the NICs NCCL used on host i (its NET/IB list),
// from the preflight facts or the fabric's expected rate; without a NET/IB
// list, the RDMA ports of the host's fabric interfaces.
func (j judge) nicRate(i int, h nccl.Host) (float64, []string) {
	ports := j.rdmaPorts(i)
	var names []string
	for _, d := range h.IBDevices {
		names = append(names, d.Name)
	}
	if len(names) == 0 {
		for _, p := range ports {
			names = append(names, p.Device)
		}
	}
	total := 0.0
	var used []string
	for _, n := range names {
		rate := j.o.ExpectedRate
		if rate == 0 {
			for _, p := range ports {
				if p.Device == n {
					rate = p.RateGbps
				}
			}
		}
		if rate > 0 {
			total += rate
			used = append(used, n)
		}
	}
	return total, used
}

// rdmaPorts lists the RDMA ports of host i's fabric interfaces, from its
// preflight facts.
func (j judge) rdmaPorts(i int) []*hostcfg.RDMAState {
	f := j.job[i].Facts
	if f == nil || f.Observed == nil {
		return nil
	}
	var out []*hostcfg.RDMAState
	for _, in := range f.Observed.Interfaces {
		if in.RDMA != nil {
			out = append(out, in.RDMA)
		}
	}
	return out
}

// slowButPerftest explains a slow NCCL whose fabric passed perftest: it
// names the perftest runs that passed and reruns perftest with NCCL's GID
// index and traffic class, which is where the two usually part (NCCL's
// default traffic class 0 lands in the lossy default class). A perftest
// pair that passed its own suite but stayed below the port floor (a
// relative floor only) is no evidence of a fast fabric: the verdict says
// the fabric is slow too, and nothing is rerun.
func (j judge) slowButPerftest(ctx context.Context, bw *checks.Result, pf portFloor) []checks.Result {
	inJob := map[string]bool{}
	for _, s := range j.specs {
		inJob[s.Host] = true
	}
	var passed, slow []string
	for _, p := range j.o.Perftest {
		switch {
		case !p.Passed || !inJob[p.Hosts[0]] || !inJob[p.Hosts[1]]:
		case p.Gbps < pf.floor:
			slow = append(slow, fmt.Sprintf("%s %.2f Gb/s", p.Target, p.Gbps))
		default:
			passed = append(passed, fmt.Sprintf("%s %.2f Gb/s", p.Target, p.Gbps))
		}
	}
	if len(slow) > 0 {
		bw.Summary += fmt.Sprintf("; perftest between the same hosts is slow too (%s, below %g%% of a %g Gb/s port: %g Gb/s): the fabric itself is slow, not only NCCL",
			strings.Join(slow, ", "), pf.pct, pf.rate, round2(pf.floor))
		return nil
	}
	if len(passed) == 0 {
		return nil
	}
	bw.Summary += "; perftest passed between the same hosts (" + strings.Join(passed, ", ") + "): the fabric carries RDMA at speed, NCCL does not"
	if j.o.Rerun == nil || len(j.job) < 2 {
		return nil
	}
	gid, tc, why := j.ncclMarking(0)
	j.o.progress("nccl: slow but perftest passed: rerunning perftest %s→%s with %s", j.job[0].Name, j.job[1].Name, why)
	r := j.o.Rerun(ctx, j.job[0], j.job[1], gid, tc)
	r.ID = IDRerun
	r.Summary = "perftest with " + why + ": " + r.Summary
	bw.Evidence = append(bw.Evidence, "reran perftest with "+why+": "+string(r.Status))
	return []checks.Result{r}
}

// ncclMarking is the GID index and traffic class NCCL's QPs used on host i:
// NCCL_IB_GID_INDEX and NCCL_IB_TC as NCCL reported them, else the preflight
// GID index and traffic class 0 (NCCL's default).
func (j judge) ncclMarking(i int) (*int, int, string) {
	env := j.envOf(i)
	var gid *int
	gidWhy := "perftest's GID"
	if v, err := strconv.Atoi(env["NCCL_IB_GID_INDEX"]); err == nil && v >= 0 {
		gid, gidWhy = &v, fmt.Sprintf("NCCL's GID index %d (NCCL_IB_GID_INDEX)", v)
	} else if ports := j.rdmaPorts(i); len(ports) > 0 && ports[0].RoCEv2IPv4GIDIndex >= 0 {
		v := ports[0].RoCEv2IPv4GIDIndex
		gid, gidWhy = &v, fmt.Sprintf("GID index %d (the RoCE v2 IPv4 GID NCCL picks itself)", v)
	}
	tc, tcWhy := 0, "traffic class 0 (NCCL_IB_TC unset: NCCL's default)"
	if v, err := strconv.Atoi(env["NCCL_IB_TC"]); err == nil && v >= 0 && v <= 255 {
		tc, tcWhy = v, fmt.Sprintf("traffic class %d (NCCL_IB_TC)", v)
	}
	return gid, tc, gidWhy + " and " + tcWhy
}

// envOf is the NCCL environment host i's NCCL ran with: what NCCL reported
// ("NCCL_IB_TC set by environment to 106"), over what the job set.
func (j judge) envOf(i int) map[string]string {
	env := map[string]string{}
	for k, v := range j.specs[i].Env {
		env[k] = v
	}
	if h, ok := j.hostOf(i); ok {
		for k, v := range h.Env {
			env[k] = v
		}
	}
	return env
}
