package collective

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/hostparse"
	"github.com/fabricctl/fabricctl/checks/nccl"
	"github.com/fabricctl/fabricctl/checks/pcitopo"
	"github.com/fabricctl/fabricctl/fabric"
)

// judge turns one job's outcome into verdicts.
type judge struct {
	cfg     fabric.NCCL
	o       Options
	out     *Outcome
	job     []Host
	specs   []Spec
	results []NodeResult
	rerrs   []error
}

func (j judge) all(ctx context.Context) []checks.Result {
	var out []checks.Result
	out = append(out, j.run()...)
	out = append(out, j.correctness())
	out = append(out, j.transports()...)
	bw, slow := j.busbw()
	if slow != nil {
		out = append(out, j.slowButPerftest(ctx, &bw, *slow)...)
	}
	out = append(out, bw)
	out = append(out, j.env()...)
	out = append(out, j.log()...)
	return out
}

// hostOf finds the analysis host of a job host: by the hostname its node
// reported, else by its fabric name.
func (j judge) hostOf(i int) (nccl.Host, bool) {
	if j.out.Analysis == nil {
		return nccl.Host{}, false
	}
	names := []string{j.specs[i].Host}
	if i < len(j.results) && j.results[i].Hostname != "" {
		names = append([]string{j.results[i].Hostname}, names...)
	}
	for _, n := range names {
		for _, h := range j.out.Analysis.Hosts {
			if h.Name == n || strings.HasPrefix(h.Name, n+" [") {
				return h, true
			}
		}
	}
	return nccl.Host{}, false
}

// run says per host whether its part ran: its exit, its time, its versions.
func (j judge) run() []checks.Result {
	var out []checks.Result
	for i, s := range j.specs {
		if i < len(j.rerrs) && j.rerrs[i] != nil || i >= len(j.results) {
			continue // reported as an error already
		}
		r := j.results[i]
		res := checks.Result{ID: IDRun, Target: s.Host, Status: checks.StatusPass}
		p := j.out.Probes[s.Host]
		what := "nccl-tests all_reduce_perf"
		if s.Tool == ToolTorch {
			what = "PyTorch " + p.Torch
			if p.TorchNCCL != "" {
				what += " (NCCL " + p.TorchNCCL + ")"
			}
		}
		res.Summary = fmt.Sprintf("%s, %d rank(s) on %s, node %d of %d: exit 0 in %s", what, s.Ranks, gpuNames(p.GPUs, s.Ranks), s.NodeRank+1, s.NNodes, r.Wall)
		res.Evidence = append(res.Evidence, "argv: "+strings.Join(r.Argv, " "))
		for _, l := range r.Logs {
			ev := fmt.Sprintf("log %s: %d bytes", l.Name, len(l.Text))
			if l.Cut > 0 {
				ev += fmt.Sprintf(" (%d bytes cut from the middle)", l.Cut)
			}
			res.Evidence = append(res.Evidence, ev)
		}
		switch {
		case r.Error != "":
			res.Status, res.Summary = checks.StatusError, r.Error
		case r.TimedOut:
			res.Status, res.Class = checks.StatusFail, checks.Timeout
			res.Summary = fmt.Sprintf("%s did not finish within %s: killed (a rank hung at the rendezvous, in NCCL's init or in a collective)", what, s.Timeout)
			res.Evidence = append(res.Evidence, logTail(r, 8)...)
		case r.ExitCode != 0:
			res.Status = checks.StatusFail
			res.Summary = fmt.Sprintf("%s exited %d after %s", what, r.ExitCode, r.Wall)
			res.Evidence = append(res.Evidence, logTail(r, 8)...)
		}
		out = append(out, res)
	}
	return out
}

func gpuNames(gpus []string, n int) string {
	var names []string
	for _, g := range gpus[:min(n, len(gpus))] {
		f := strings.Split(g, ",")
		if len(f) >= 2 {
			names = append(names, strings.TrimSpace(f[1]))
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	if len(names) == 0 {
		return "its GPUs"
	}
	return strings.Join(names, ", ")
}

// correctness: every rank's sum was right at every size (the script), or
// nccl-tests counted no wrong element and no out-of-bounds value.
func (j judge) correctness() checks.Result {
	r := checks.Result{ID: IDCorrectness, Target: "job"}
	tool := j.specs[0].Tool
	if tool == ToolNCCLTests {
		return j.testsCorrectness(r)
	}
	sc := j.out.Script
	world := sc.World()
	sizes := expectedSizes(j.specs[0].MinBytes, j.specs[0].MaxBytes)
	var wrong []string
	for _, e := range sc.Sizes {
		if e.Wrong > 0 {
			wrong = append(wrong, fmt.Sprintf("%d bytes: %d wrong elements (rank 0 read %g, want %g) (%s)", e.Bytes, e.Wrong, e.Got, e.Expected, e.Where))
		}
	}
	var errs []string
	for _, e := range sc.Errors {
		errs = append(errs, fmt.Sprintf("rank %d (%s): %s (%s)", e.Rank, e.Stage, e.Message, e.Where))
	}
	want := totalRanks(j.specs)
	switch {
	case len(wrong) > 0:
		r.Status, r.Summary = checks.StatusFail, fmt.Sprintf("the all-reduce returned wrong sums at %d of %d sizes", len(wrong), len(sc.Sizes))
		r.Evidence = append(wrong, errs...)
	case len(errs) > 0:
		r.Status, r.Summary = checks.StatusFail, fmt.Sprintf("the all-reduce failed on %d rank(s) after %d of %d sizes", len(sc.Errors), len(sc.Sizes), sizes)
		r.Evidence = errs
	case world == 0:
		r.Status, r.Summary = checks.StatusFail, "no rank started: the job ended before NCCL's initialisation (see nccl/run)"
	case world != want:
		r.Status, r.Summary = checks.StatusFail, fmt.Sprintf("the ranks report a world of %d, the job has %d", world, want)
	case len(sc.Sizes) < sizes || len(sc.Done) < world:
		r.Status, r.Summary = checks.StatusFail, fmt.Sprintf("the all-reduce stopped after %d of %d sizes; %d of %d ranks finished", len(sc.Sizes), sizes, len(sc.Done), world)
	default:
		r.Status = checks.StatusPass
		r.Summary = fmt.Sprintf("all-reduce of rank+1 over %d rank(s) summed to %g on every element at all %d sizes (%s to %s)",
			world, float64(world*(world+1))/2, len(sc.Sizes), sizeName(sc.Sizes[0].Bytes), sizeName(sc.Sizes[len(sc.Sizes)-1].Bytes))
	}
	return r
}

// testsCorrectness judges nccl-tests' own check (-c 1): #wrong and the
// out-of-bounds footer of every host's table.
func (j judge) testsCorrectness(r checks.Result) checks.Result {
	if j.out.Analysis == nil || len(j.out.Analysis.Tests) == 0 {
		r.Status, r.Summary = checks.StatusFail, "all_reduce_perf printed no result table (see nccl/run)"
		return r
	}
	rows, wrong := 0, 0
	for _, t := range j.out.Analysis.Tests {
		rows += len(t.Rows)
		for _, row := range t.Rows {
			w := max(row.OutOfPlace.Wrong, 0) + max(row.InPlace.Wrong, 0)
			if w > 0 {
				wrong++
				r.Evidence = append(r.Evidence, fmt.Sprintf("%d bytes: %d wrong (%s)", row.Bytes, w, row.Where))
			}
		}
		if t.OutOfBounds > 0 {
			wrong++
			r.Evidence = append(r.Evidence, fmt.Sprintf("%d out-of-bounds values (%s)", t.OutOfBounds, t.Where))
		}
	}
	if wrong > 0 {
		r.Status, r.Summary = checks.StatusFail, "all_reduce_perf found wrong results"
		return r
	}
	r.Status, r.Summary = checks.StatusPass, fmt.Sprintf("all_reduce_perf checked every result of %d sizes: 0 wrong, 0 out of bounds", rows)
	return r
}

// expectedSizes is how many sizes the script times from min to max, doubling.
func expectedSizes(minB, maxB int64) int {
	n := 0
	for s := max(minB, 4); s <= max(maxB, 4); s *= 2 {
		n++
	}
	return n
}

func sizeName(b int64) string {
	switch {
	case b >= 1<<30 && b%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", b>>30)
	case b >= 1<<20 && b%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", b>>20)
	case b >= 1<<10 && b%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", b>>10)
	}
	return fmt.Sprintf("%d B", b)
}

// transports judges, per host, what carried its channels: within the node
// P2P (NVLink or PCIe) or NVLS pass, SHM and NET between local ranks warn;
// across nodes NET over RDMA with GPUDirect passes, without GPUDirect warns,
// the socket transport fails unless the fabric allows it.
func (j judge) transports() []checks.Result {
	var out []checks.Result
	for i, s := range j.specs {
		r := checks.Result{ID: IDTransport, Target: s.Host, Status: checks.StatusPass}
		h, ok := j.hostOf(i)
		if !ok {
			r.Status, r.Summary = checks.StatusSkip, "the logs show nothing of this host's NCCL (see nccl/run)"
			out = append(out, r)
			continue
		}
		worse := func(st checks.Status, class checks.FailureClass, ev string) {
			if st.Worse(r.Status) {
				r.Status, r.Class = st, class
			}
			r.Evidence = append(r.Evidence, ev)
		}
		intra, inter := h.IntraTransports(), h.InterTransports()
		var parts []string
		if len(intra) > 0 {
			parts = append(parts, "within the node "+strings.Join(intra, ", ")+j.nvlinkNote(i, h, worse))
		}
		if len(inter) > 0 {
			parts = append(parts, "across nodes "+strings.Join(inter, ", "))
		}
		for _, l := range h.Links {
			switch {
			case l.From == l.To:
			case l.Scope == nccl.InterNode && l.Peer == h.Name:
				worse(checks.StatusWarn, "", fmt.Sprintf("ranks %d and %d of this host connect via %s: NCCL took them for different nodes (%s)", l.From, l.To, l.Transport, l.Where))
			case l.Transport == "SHM":
				worse(checks.StatusWarn, "", fmt.Sprintf("local ranks %d and %d connect via SHM: no GPU peer-to-peer between them (%s)", l.From, l.To, l.Where))
			case l.Transport == "NET/Socket" && !j.cfg.AllowSocket:
				worse(checks.StatusFail, checks.LowBandwidth, fmt.Sprintf("ranks %d→%d run over NET/Socket (TCP), not RDMA (%s)", l.From, l.To, l.Where))
			case l.Scope == nccl.InterNode && l.Transport != "NET/Socket" && !l.GDRDMA:
				worse(checks.StatusWarn, "", fmt.Sprintf("ranks %d→%d run %s without GPUDirect RDMA: data is staged through host memory (%s)", l.From, l.To, l.Transport, l.Where))
			}
		}
		nets := strings.Join(h.Networks, ",")
		switch {
		case len(h.Links) == 0 && s.Ranks*s.NNodes == 1:
			parts = append(parts, "one rank: no channel connects it to a peer")
		case len(h.Links) == 0:
			worse(checks.StatusWarn, "", "the log shows no channel line: NCCL_DEBUG_SUBSYS left INIT out, or the job ended before connecting")
		}
		if slices.Contains(h.Networks, "Socket") && len(inter) == 0 {
			note := "Socket-only host: NCCL found no usable IB/RoCE device and chose the socket transport"
			if h.NoIBDevice {
				note += " (NET/IB : No device found)"
			}
			switch {
			case j.cfg.AllowSocket:
				parts = append(parts, note+"; the fabric allows it")
			case s.NNodes > 1:
				worse(checks.StatusFail, checks.LowBandwidth, note+"; its channels to other nodes would run over TCP")
			default:
				worse(checks.StatusWarn, "", note+"; this single-node job sent nothing over it, a job across hosts would run over TCP")
				parts = append(parts, "single node, no NET channel")
			}
		}
		if nets != "" {
			parts = append(parts, "network "+nets)
		}
		r.Summary = strings.Join(parts, "; ")
		if r.Summary == "" {
			r.Summary = "no transport seen"
		}
		out = append(out, r)
	}
	return out
}

// nvlinkNote compares NCCL's intra-node paths with the host's NVLinks
// (nvidia-smi topo -m): GPUs joined by NV# that NCCL connects over PCIe warn.
func (j judge) nvlinkNote(i int, h nccl.Host, worse func(checks.Status, checks.FailureClass, string)) string {
	nvl, known := h.NVLinkPaths()
	pairs := j.nvPairs(i)
	switch {
	case nvl:
		if len(pairs) > 0 {
			return " over NVLink (" + strings.Join(pairs, ", ") + " in nvidia-smi topo -m)"
		}
		return " over NVLink (NCCL's topology: NVL)"
	case known && len(pairs) > 0:
		worse(checks.StatusWarn, "", fmt.Sprintf("nvidia-smi topo -m shows NVLink between the job's GPUs (%s) but NCCL's topology search found PCIe paths only (type %s): NVLink down or not seen by NCCL", strings.Join(pairs, ", "), pathTypes(h)))
	}
	return ""
}

func pathTypes(h nccl.Host) string {
	var t []string
	for _, p := range h.Paths {
		t = append(t, p.Intra+"/"+p.Inter)
	}
	slices.Sort(t)
	return strings.Join(slices.Compact(t), ", ")
}

// nvPairs lists "GPU0-GPU1 NV18" for the GPUs of host i's ranks that
// nvidia-smi topo -m shows joined by NVLink.
func (j judge) nvPairs(i int) []string {
	p := j.out.Probes[j.specs[i].Host]
	if p.Topo == "" {
		return nil
	}
	t, err := hostparse.ParseTopo(strings.NewReader(p.Topo))
	if err != nil {
		return nil
	}
	var out []string
	n := j.specs[i].Ranks
	for a := 0; a < n; a++ {
		for b := a + 1; b < n; b++ {
			ga, gb := fmt.Sprintf("GPU%d", a), fmt.Sprintf("GPU%d", b)
			if c, ok := t.Cell(ga, gb); ok {
				if _, nv := pcitopo.NVLinks(c); nv {
					out = append(out, ga+"-"+gb+" "+c)
				}
			}
		}
	}
	return out
}

// log reports what else the NCCL log analysis found, per host, leaving out
// what the transport verdict already says.
func (j judge) log() []checks.Result {
	if j.out.Analysis == nil {
		return nil
	}
	judged := map[nccl.Kind]bool{nccl.SocketFallback: true, nccl.NoIBDevice: true, nccl.NoGDRDMA: true, nccl.NetWithinHost: true, nccl.NoP2P: true, nccl.WrongResults: true}
	// The analysis names hosts as their processes printed them (hostnames);
	// the report names them as the fabric does.
	fabricName := map[string]string{}
	for i := range j.specs {
		if h, ok := j.hostOf(i); ok {
			fabricName[h.Name] = j.specs[i].Host
		}
	}
	var out []checks.Result
	for _, r := range j.out.Analysis.Results() {
		r.ID = IDLog
		analysisName := r.Target
		if n, ok := fabricName[r.Target]; ok {
			r.Target = n
		}
		var ev []string
		st, class := checks.StatusPass, checks.FailureClass("")
		var kinds []string
		for _, f := range j.out.Analysis.Findings {
			if f.Host != analysisName && !(analysisName == "fleet" && f.Host == "") || judged[f.Kind] {
				continue
			}
			if f.Status.Worse(st) {
				st, class = f.Status, f.Class
			}
			kinds = append(kinds, string(f.Kind))
			ev = append(ev, f.Message+" ("+f.Where+")")
		}
		r.Status, r.Class, r.Evidence = st, class, ev
		r.Summary = "no other finding in the NCCL log"
		if len(kinds) > 0 {
			r.Summary = strings.Join(slices.Compact(kinds), ", ")
		}
		out = append(out, r)
	}
	return out
}
