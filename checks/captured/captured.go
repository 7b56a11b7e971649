package captured

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/hostparse"
	"github.com/fabricctl/fabricctl/checks/nccl"
	"github.com/fabricctl/fabricctl/checks/pcitopo"
	"github.com/fabricctl/fabricctl/checks/perftest"
)

// Options tune the evaluation.
type Options struct {
	// Host names files placed directly in the root (default "captured").
	Host string
	// MaxFileSize skips larger files (default 16 MiB).
	MaxFileSize int64
}

// Tool names, as the results' IDs use them.
const (
	ToolDevInfo  = "ibv_devinfo"
	ToolIBStat   = "ibstat"
	ToolShowGIDs = "show_gids"
	ToolTopo     = "topo"
	ToolLSPCI    = "lspci"
	ToolPerftest = "perftest"
	ToolNCCL     = "nccl"
)

// Classify returns the tool whose output a file name suggests, or "".
func Classify(name string) string {
	n := strings.ToLower(path.Base(name))
	switch {
	case strings.Contains(n, "devinfo"):
		return ToolDevInfo
	case strings.Contains(n, "ibstat"):
		return ToolIBStat
	case strings.Contains(n, "show_gids"), strings.Contains(n, "showgids"):
		return ToolShowGIDs
	case strings.Contains(n, "topo"):
		return ToolTopo
	case strings.Contains(n, "lspci"):
		return ToolLSPCI
	case strings.Contains(n, "nccl"):
		return ToolNCCL
	case strings.Contains(n, "perftest"), strings.Contains(n, "_bw"), strings.Contains(n, "_lat"):
		return ToolPerftest
	}
	// Otherwise a directory may say it: perftest/err1.txt, nccl/rank0.log.
	dir := strings.ToLower(path.Dir(name))
	switch {
	case strings.Contains(dir, "perftest"):
		return ToolPerftest
	case strings.Contains(dir, "nccl"):
		return ToolNCCL
	}
	return ""
}

// Evaluate reads every recognised file under fsys and returns the results,
// sorted. A file that cannot be parsed becomes an error result naming it;
// unrecognised files are skipped.
func Evaluate(fsys fs.FS, opt Options) ([]checks.Result, error) {
	if opt.Host == "" {
		opt.Host = "captured"
	}
	if opt.MaxFileSize == 0 {
		opt.MaxFileSize = 16 << 20
	}
	var files []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && Classify(p) != "" {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading the captures: %w", err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no capture found: name files after their tool (ibstat, ibv_devinfo, show_gids, topo, lspci, ib_write_bw, nccl)")
	}
	var out []checks.Result
	var ncclSources []nccl.Source
	for _, p := range files {
		host := opt.Host
		if dir := path.Dir(p); dir != "." {
			host = strings.SplitN(dir, "/", 2)[0]
		}
		fi, err := fs.Stat(fsys, p)
		if err != nil {
			return nil, err
		}
		if fi.Size() > opt.MaxFileSize {
			out = append(out, checks.Result{ID: "captured/" + Classify(p), Target: host, Status: checks.StatusSkip,
				Summary: fmt.Sprintf("%s is larger than %d bytes; skipped", p, opt.MaxFileSize)})
			continue
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil, err
		}
		if Classify(p) == ToolNCCL {
			ncclSources = append(ncclSources, nccl.Source{Name: p, R: bytes.NewReader(data)})
			continue
		}
		out = append(out, evaluateFile(host, p, data)...)
	}
	if len(ncclSources) > 0 {
		a, err := nccl.Analyze(nccl.Options{}, ncclSources...)
		if err != nil {
			out = append(out, errorResult("captured/nccl", "nccl", err))
		} else {
			out = append(out, a.Results()...)
		}
	}
	checks.Sort(out)
	return out, nil
}

func errorResult(id, target string, err error) checks.Result {
	return checks.Result{ID: id, Target: target, Status: checks.StatusError, Summary: err.Error()}
}

func evaluateFile(host, name string, data []byte) []checks.Result {
	tool := Classify(name)
	id := "captured/" + tool
	r := bytes.NewReader(data)
	switch tool {
	case ToolDevInfo:
		di, err := hostparse.ParseDevInfo(r)
		if err != nil {
			return []checks.Result{errorResult(id, host, fmt.Errorf("%s: %w", name, err))}
		}
		var out []checks.Result
		for _, d := range di.Devices {
			for _, p := range d.Ports {
				out = append(out, portResult(id, fmt.Sprintf("%s/%s/%d", host, d.ID, p.Port),
					strings.Contains(p.State, "ACTIVE"), p.State, p.PhysState, name))
			}
		}
		return out
	case ToolIBStat:
		st, err := hostparse.ParseIBStat(r)
		if err != nil {
			return []checks.Result{errorResult(id, host, fmt.Errorf("%s: %w", name, err))}
		}
		var out []checks.Result
		for _, ca := range st.CAs {
			for _, p := range ca.Ports {
				res := portResult(id, fmt.Sprintf("%s/%s/%d", host, ca.Name, p.Port), p.State == "Active", p.State, p.PhysState, name)
				if p.Rate > 0 {
					res.Measurements = append(res.Measurements, checks.Measurement{Name: "rate", Value: p.Rate, Unit: checks.UnitGbps})
				}
				out = append(out, res)
			}
		}
		for _, e := range st.Errors {
			out = append(out, checks.Result{ID: id, Target: host, Status: checks.StatusError, Summary: "ibstat gave up: " + e})
		}
		return out
	case ToolShowGIDs:
		sg, err := hostparse.ParseShowGIDs(r)
		if err != nil {
			return []checks.Result{errorResult(id, host, fmt.Errorf("%s: %w", name, err))}
		}
		type devPort struct {
			dev  string
			port int
		}
		devs := map[string]bool{}
		ports := map[string]devPort{}
		for _, g := range sg.Entries {
			k := fmt.Sprintf("%s/%d", g.Dev, g.Port)
			devs[k] = true
			ports[k] = devPort{g.Dev, g.Port}
		}
		if len(devs) == 0 {
			return []checks.Result{{ID: id, Target: host, Status: checks.StatusFail, Class: checks.NoDevice,
				Summary: "no GID at all: no RDMA device with an address (" + name + ")"}}
		}
		var out []checks.Result
		for _, k := range sortedKeys(devs) {
			dp := ports[k]
			g, err := sg.RoCEv2IPv4(dp.dev, dp.port, "")
			switch {
			case errors.Is(err, hostparse.ErrAmbiguousGID):
				out = append(out, checks.Result{ID: id, Target: host + "/" + k, Status: checks.StatusWarn,
					Summary: fmt.Sprintf("several RoCE v2 IPv4 GIDs: pin the netdev (NCCL_IB_GID_INDEX / perftest -x): %v", err)})
				continue
			case err != nil:
				out = append(out, checks.Result{ID: id, Target: host + "/" + k, Status: checks.StatusFail,
					Class: checks.QPBringUp, Summary: fmt.Sprintf("no usable RoCE v2 IPv4 GID: %v", err)})
				continue
			}
			out = append(out, checks.Result{ID: id, Target: host + "/" + k, Status: checks.StatusPass,
				Summary:      fmt.Sprintf("RoCE v2 IPv4 GID %s at index %d (perftest -x %d)", g.IPv4, g.Index, g.Index),
				Measurements: []checks.Measurement{{Name: "gid_index", Value: float64(g.Index), Unit: checks.UnitCount}}})
		}
		return out
	case ToolLSPCI:
		devs, err := hostparse.ParsePCI(r)
		if err != nil {
			return []checks.Result{errorResult(id, host, fmt.Errorf("%s: %w", name, err))}
		}
		var out []checks.Result
		for _, d := range devs {
			if d.Address == "" {
				continue
			}
			res := checks.Result{ID: id, Target: host + "/" + d.Address, Status: checks.StatusPass, Summary: "PCIe link at its capability, no AER errors"}
			if probs := d.Problems(); len(probs) > 0 {
				res.Status, res.Summary, res.Evidence = checks.StatusFail, strings.Join(probs, "; "), []string{name + ": " + d.Description}
			}
			out = append(out, res)
		}
		return out
	case ToolTopo:
		tp, err := hostparse.ParseTopo(r)
		if err != nil {
			return []checks.Result{errorResult(id, host, fmt.Errorf("%s: %w", name, err))}
		}
		return topoResults(id, host, tp)
	case ToolPerftest:
		rep, err := perftest.Parse(r)
		if err != nil {
			return []checks.Result{errorResult(id, host, fmt.Errorf("%s: %w", name, err))}
		}
		res := checks.Result{ID: id, Target: host + "/" + path.Base(name), Status: checks.StatusPass}
		if f, bad := perftest.Cause(rep); bad {
			res.Status, res.Class = checks.StatusFail, f.Class
			res.Summary = fmt.Sprintf("%s: %s", f.Class, f.Text)
			res.Evidence = []string{fmt.Sprintf("%s:%d: %s", name, f.Line, f.Text)}
			return []checks.Result{res}
		}
		if row, ok := rep.Final(); ok {
			gbps := perftest.ToGbps(row.BWAverage, rep.BWUnit)
			res.Summary = fmt.Sprintf("%.2f Gb/s average at %d bytes", gbps, row.Bytes)
			res.Measurements = []checks.Measurement{{Name: "bw_average", Value: gbps, Unit: checks.UnitGbps}}
		} else if len(rep.Lat) > 0 {
			res.Summary = "latency test completed"
		} else {
			res.Status, res.Summary = checks.StatusSkip, "no result rows (server side or truncated capture)"
		}
		return []checks.Result{res}
	}
	return nil
}

func portResult(id, target string, active bool, state, phys, file string) checks.Result {
	res := checks.Result{ID: id, Target: target, Status: checks.StatusPass, Summary: "port " + state}
	if !active {
		res.Status, res.Class = checks.StatusFail, checks.PortDown
		res.Summary = fmt.Sprintf("port is %s (physical state %s)", orUnknown(state), orUnknown(phys))
		res.Evidence = []string{file}
	}
	return res
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// topoResults grades each GPU's closest NIC like nvidia-smi topo -m names it:
// PIX/PXB pass, PHB warns, NODE/SYS fail (GPUDirect RDMA crosses the CPU).
func topoResults(id, host string, tp *hostparse.Topo) []checks.Result {
	var gpus, nics []string
	for _, d := range tp.Devices {
		switch {
		case strings.HasPrefix(d, "GPU"):
			gpus = append(gpus, d)
		case strings.HasPrefix(d, "NIC"), strings.HasPrefix(d, "mlx"):
			nics = append(nics, d)
		}
	}
	if len(nics) == 0 {
		return []checks.Result{{ID: id, Target: host, Status: checks.StatusSkip, Summary: "the topology lists no NIC"}}
	}
	var out []checks.Result
	for _, g := range gpus {
		best, bestNIC := pcitopo.Path(""), ""
		for _, n := range nics {
			p, err := tp.Path(g, n)
			if err != nil {
				continue
			}
			if best == "" || p.Closer(best) {
				best, bestNIC = p, tp.NICName(n)
			}
		}
		res := checks.Result{ID: id, Target: host + "/" + g, Status: checks.StatusPass,
			Summary: fmt.Sprintf("closest NIC %s via %s", bestNIC, best)}
		switch best {
		case pcitopo.PHB:
			res.Status = checks.StatusWarn
		case pcitopo.NODE, pcitopo.SYS, "":
			res.Status = checks.StatusFail
			res.Summary = fmt.Sprintf("closest NIC %s is %s away: GPUDirect RDMA traffic crosses the CPU", orUnknown(bestNIC), orUnknown(string(best)))
		}
		out = append(out, res)
	}
	return out
}

func sortedKeys(m map[string]bool) []string { return slices.Sorted(maps.Keys(m)) }
