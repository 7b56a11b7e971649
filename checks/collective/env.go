package collective

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/nccl"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/hostcfg"
)

// envCheck collects the verdicts on one host's NCCL environment.
type envCheck struct {
	r     checks.Result
	parts []string
}

func (e *envCheck) add(st checks.Status, class checks.FailureClass, part, evidence string) {
	if st.Worse(e.r.Status) {
		e.r.Status, e.r.Class = st, class
	}
	e.parts = append(e.parts, part)
	if evidence != "" {
		e.r.Evidence = append(e.r.Evidence, evidence)
	}
}

// env compares, per host, the NCCL environment NCCL ran with against the
// fabric's intent: NCCL_IB_GID_INDEX against the RoCE v2 GID preflight
// found, NCCL_IB_TC against the RoCE class (its DSCP must map to a lossless
// priority), NCCL_IB_HCA against the fabric's RDMA devices, and the
// interface NCCL bootstraps over (NCCL_SOCKET_IFNAME) against the OOB
// interface.
func (j judge) env() []checks.Result {
	var out []checks.Result
	for i, s := range j.specs {
		e := envCheck{r: checks.Result{ID: IDEnv, Target: s.Host, Status: checks.StatusPass}}
		env := j.envOf(i)
		h, _ := j.hostOf(i)
		ports := j.rdmaPorts(i)
		roce := slices.ContainsFunc(ports, func(p *hostcfg.RDMAState) bool { return p.LinkLayer == "Ethernet" }) ||
			slices.ContainsFunc(h.IBDevices, func(d nccl.IBDevice) bool { return d.LinkLayer == "RoCE" })
		if roce {
			j.gidIndex(&e, env, h, ports)
			j.trafficClass(&e, env, i)
		}
		if len(ports) > 0 || len(h.IBDevices) > 0 {
			j.hcas(&e, env, h, ports)
		}
		j.oob(&e, env, h, i)
		var set []string
		for _, k := range []string{"NCCL_IB_GID_INDEX", "NCCL_IB_TC", "NCCL_IB_HCA", "NCCL_SOCKET_IFNAME"} {
			if v, ok := env[k]; ok {
				set = append(set, k+"="+v)
			}
		}
		if len(set) > 0 {
			e.r.Evidence = append(e.r.Evidence, "set: "+strings.Join(set, " "))
		}
		switch {
		case len(e.parts) == 0 && len(ports) == 0 && len(h.IBDevices) == 0:
			e.r.Status = checks.StatusSkip
			e.r.Summary = "no RDMA device: nothing to compare NCCL_IB_GID_INDEX, NCCL_IB_TC and NCCL_IB_HCA with"
		case len(e.parts) == 0:
			e.r.Status, e.r.Summary = checks.StatusSkip, "nothing to compare (no fabric intent, no preflight facts)"
		default:
			e.r.Summary = strings.Join(e.parts, "; ")
		}
		out = append(out, e.r)
	}
	return out
}

// autoGIDVersion is the first NCCL that picks the RoCE v2 GID itself
// (NCCL_IB_GID_INDEX defaults to -1; before, to 0).
var autoGIDVersion = []int{2, 21}

func (j judge) gidIndex(e *envCheck, env map[string]string, h nccl.Host, ports []*hostcfg.RDMAState) {
	var port *hostcfg.RDMAState
	for _, p := range ports {
		if p.LinkLayer != "Ethernet" {
			continue
		}
		if port == nil || slices.ContainsFunc(h.IBDevices, func(d nccl.IBDevice) bool { return d.Name == p.Device }) {
			port = p
		}
	}
	if port == nil || port.RoCEv2IPv4GIDIndex < 0 {
		return // preflight found no RoCE v2 GID: preflight/gid says so
	}
	want := port.RoCEv2IPv4GIDIndex
	v, set := env["NCCL_IB_GID_INDEX"]
	switch n, err := strconv.Atoi(strings.TrimSpace(v)); {
	case set && err == nil && n == want:
		e.add(checks.StatusPass, "", fmt.Sprintf("NCCL_IB_GID_INDEX=%d is %s's RoCE v2 IPv4 GID", n, port.Device), "")
	case set && err == nil && n >= 0:
		e.add(checks.StatusFail, checks.QPBringUp, fmt.Sprintf("NCCL_IB_GID_INDEX=%d, but %s port %d's RoCE v2 IPv4 GID is index %d", n, port.Device, port.Port.Port, want),
			fmt.Sprintf("GID %d is not the RoCE v2 IPv4 GID: NCCL's QPs would use RoCE v1 or a link-local IPv6 GID (unroutable, unmarked); set NCCL_IB_GID_INDEX=%d or leave it unset on NCCL 2.21+", n, want))
	case set && err != nil:
		e.add(checks.StatusFail, checks.QPBringUp, fmt.Sprintf("NCCL_IB_GID_INDEX=%q is not a number", v), "")
	default:
		ver, known := j.ncclVersionOf(h)
		switch {
		case known && !versionLess(ver, autoGIDVersion):
			e.add(checks.StatusPass, "", fmt.Sprintf("NCCL_IB_GID_INDEX unset: NCCL %s picks the RoCE v2 GID itself (index %d on %s)", joinVersion(ver), want, port.Device), "")
		case known && want != 0:
			e.add(checks.StatusWarn, "", fmt.Sprintf("NCCL_IB_GID_INDEX unset: NCCL %s uses GID index 0, not %s's RoCE v2 IPv4 GID %d", joinVersion(ver), port.Device, want),
				fmt.Sprintf("NCCL before 2.21 defaults to GID index 0 (RoCE v1 or link-local): set NCCL_IB_GID_INDEX=%d", want))
		case !known:
			e.add(checks.StatusPass, "", fmt.Sprintf("NCCL_IB_GID_INDEX unset (the RoCE v2 IPv4 GID is index %d on %s; NCCL 2.21+ picks it itself)", want, port.Device), "")
		}
	}
}

// ncclVersionOf is the NCCL version host h ran: its banner, else the one
// the other hosts of the job printed (a banner printed without a prefix goes
// to the process that printed last).
func (j judge) ncclVersionOf(h nccl.Host) ([]int, bool) {
	if v, ok := parseNCCLVersion(h.Versions); ok {
		return v, true
	}
	if j.out.Analysis != nil {
		for _, o := range j.out.Analysis.Hosts {
			if v, ok := parseNCCLVersion(o.Versions); ok {
				return v, true
			}
		}
	}
	return nil, false
}

// parseNCCLVersion reads the first of "2.28.9+cuda13.0" banners into [2 28 9].
func parseNCCLVersion(versions []string) ([]int, bool) {
	if len(versions) == 0 {
		return nil, false
	}
	v, _, _ := strings.Cut(versions[0], "+")
	var out []int
	for _, f := range strings.Split(v, ".") {
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil, false
		}
		out = append(out, n)
	}
	return out, len(out) >= 2
}

func versionLess(v, than []int) bool { return slices.Compare(v, than) < 0 }

func joinVersion(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ".")
}

// trafficClass checks that NCCL's traffic class (NCCL_IB_TC, 0 when unset)
// carries a DSCP the fabric maps to a lossless priority.
func (j judge) trafficClass(e *envCheck, env map[string]string, i int) {
	in := roceInterface(j.job[i].Intent)
	if in == nil || len(in.DSCPMap) == 0 {
		return // no DSCP trust in the intent: nothing to map the class by
	}
	tos := in.RoCE.ToS
	lossless := func(dscp int) (int, bool) {
		for _, m := range in.DSCPMap {
			if int(m.DSCP) == dscp {
				return int(m.Priority), in.PFC.Enable&(1<<m.Priority) != 0
			}
		}
		return -1, false
	}
	v, set := env["NCCL_IB_TC"]
	tc, err := strconv.Atoi(strings.TrimSpace(v))
	switch {
	case set && (err != nil || tc < 0 || tc > 255):
		e.add(checks.StatusFail, "", fmt.Sprintf("NCCL_IB_TC=%q is not a traffic class (0..255)", v), "")
		return
	case !set || tc < 0:
		tc = 0
	}
	prio, ok := lossless(tc >> 2)
	what := fmt.Sprintf("NCCL_IB_TC=%d", tc)
	if !set {
		what = "NCCL_IB_TC unset (traffic class 0)"
	}
	switch {
	case ok && tc&3 != tos&3:
		e.add(checks.StatusPass, "", fmt.Sprintf("%s: DSCP %d → priority %d, lossless (ECN bits %d, the RoCE ToS %d has %d)", what, tc>>2, prio, tc&3, tos, tos&3), "")
	case ok:
		e.add(checks.StatusPass, "", fmt.Sprintf("%s: DSCP %d → priority %d, lossless (the RoCE ToS)", what, tc>>2, prio), "")
	case set:
		e.add(checks.StatusFail, checks.CounterEvidence, fmt.Sprintf("%s marks DSCP %d → priority %d, which is lossy; the RoCE class is ToS %d (DSCP %d)", what, tc>>2, prio, tos, tos>>2),
			fmt.Sprintf("NCCL's RDMA traffic misses PFC and ECN: drops turn into retransmits under load; set NCCL_IB_TC=%d", tos))
	default:
		e.add(checks.StatusWarn, "", fmt.Sprintf("%s: NCCL marks its RDMA traffic DSCP 0 → priority %d (lossy), not the RoCE class ToS %d", what, prio, tos),
			fmt.Sprintf("NCCL builds its QPs with verbs, so rdma_cm's default_roce_tos does not apply; set NCCL_IB_TC=%d (unless the NIC rewrites the traffic class)", tos))
	}
}

// roceInterface is the first interface intent with a RoCE ToS.
func roceInterface(in fabric.HostIntent) *fabric.InterfaceIntent {
	for i := range in.Interfaces {
		if in.Interfaces[i].RoCE.ToS != 0 || len(in.Interfaces[i].DSCPMap) > 0 {
			return &in.Interfaces[i]
		}
	}
	return nil
}

// hcaFilter is NCCL_IB_HCA: "[^|=]dev[:port][,…]" — "^" excludes, "=" matches
// names exactly, otherwise each entry matches device names by prefix.
type hcaFilter struct {
	exclude, exact bool
	names          []string
}

func parseHCA(s string) hcaFilter {
	var f hcaFilter
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "^") {
		f.exclude, s = true, s[1:]
	}
	if strings.HasPrefix(s, "=") {
		f.exact, s = true, s[1:]
	}
	for _, e := range strings.Split(s, ",") {
		name, _, _ := strings.Cut(strings.TrimSpace(e), ":")
		if name != "" {
			f.names = append(f.names, name)
		}
	}
	return f
}

// matches reports whether dev is taken, and the entry that took it.
func (f hcaFilter) matches(dev string) (bool, string) {
	for _, n := range f.names {
		if dev == n || (!f.exact && strings.HasPrefix(dev, n)) {
			return !f.exclude, n
		}
	}
	return f.exclude, ""
}

func (j judge) hcas(e *envCheck, env map[string]string, h nccl.Host, ports []*hostcfg.RDMAState) {
	var fabricDevs []string
	for _, p := range ports {
		fabricDevs = append(fabricDevs, p.Device)
	}
	if v, ok := env["NCCL_IB_HCA"]; ok && len(fabricDevs) > 0 {
		f := parseHCA(v)
		var left []string
		for _, d := range fabricDevs {
			if ok, _ := f.matches(d); !ok {
				left = append(left, d)
			}
		}
		if len(left) > 0 {
			e.add(checks.StatusFail, checks.NoDevice, fmt.Sprintf("NCCL_IB_HCA=%s leaves out the fabric's %s", v, strings.Join(left, ", ")),
				"NCCL will not use those ports: their share of the traffic moves to the others or to sockets")
		}
		if !f.exact && !f.exclude {
			for _, n := range f.names {
				var also []string
				for _, d := range h.IBDevices {
					if d.Name != n && strings.HasPrefix(d.Name, n) && !slices.Contains(f.names, d.Name) {
						also = append(also, d.Name)
					}
				}
				if len(also) > 0 {
					e.add(checks.StatusWarn, "", fmt.Sprintf("NCCL_IB_HCA entry %s also took %s (NCCL matches by prefix)", n, capList(also)),
						"write NCCL_IB_HCA="+"="+strings.Join(f.names, ",")+" to match the names exactly")
				}
			}
		}
		if len(left) == 0 {
			e.add(checks.StatusPass, "", fmt.Sprintf("NCCL_IB_HCA=%s takes every fabric device (%s)", v, strings.Join(fabricDevs, ", ")), "")
		}
	}
	if len(fabricDevs) == 0 || len(h.IBDevices) == 0 {
		return
	}
	var outside, unused []string
	for _, d := range h.IBDevices {
		if !slices.Contains(fabricDevs, d.Name) {
			outside = append(outside, d.String())
		}
	}
	left := map[string]bool{}
	if v, ok := env["NCCL_IB_HCA"]; ok {
		for _, d := range fabricDevs {
			if in, _ := parseHCA(v).matches(d); !in {
				left[d] = true // said above
			}
		}
	}
	for _, d := range fabricDevs {
		if !left[d] && !slices.ContainsFunc(h.IBDevices, func(x nccl.IBDevice) bool { return x.Name == d }) {
			unused = append(unused, d)
		}
	}
	if len(outside) > 0 {
		e.add(checks.StatusWarn, "", "NCCL uses RDMA ports outside the fabric: "+capList(outside), "restrict NCCL_IB_HCA to the fabric's devices ("+strings.Join(fabricDevs, ",")+")")
	}
	if len(unused) > 0 {
		e.add(checks.StatusWarn, "", "NCCL does not use the fabric's "+capList(unused), "")
	}
	if len(outside) == 0 && len(unused) == 0 && len(left) == 0 {
		e.add(checks.StatusPass, "", "NCCL uses exactly the fabric's RDMA devices", "")
	}
}

// oob checks the interface NCCL bootstraps over against the OOB interface:
// spec.checks.nccl.oobInterface, else the one holding the host's address.
func (j judge) oob(e *envCheck, env map[string]string, h nccl.Host, i int) {
	if len(h.Bootstrap) == 0 {
		return
	}
	var used []string
	for _, b := range h.Bootstrap {
		used = append(used, b.String())
	}
	fix := ""
	if v, ok := env["NCCL_SOCKET_IFNAME"]; ok {
		fix = " (NCCL_SOCKET_IFNAME=" + v + ")"
	}
	if want := j.cfg.OOBInterface; want != "" {
		if slices.ContainsFunc(h.Bootstrap, func(b nccl.Iface) bool { return b.Name == want }) {
			e.add(checks.StatusPass, "", "NCCL bootstraps over the OOB interface "+want+fix, "")
			return
		}
		e.add(checks.StatusWarn, "", fmt.Sprintf("NCCL bootstraps over %s, not the OOB interface %s%s", strings.Join(used, " "), want, fix), "set NCCL_SOCKET_IFNAME="+want)
		return
	}
	addr, err := netip.ParseAddr(j.job[i].Address)
	if err != nil || j.job[i].Intent.Host == "" {
		e.add(checks.StatusPass, "", "NCCL bootstraps over "+strings.Join(used, " ")+fix, "")
		return
	}
	for _, b := range h.Bootstrap {
		if a, err := netip.ParseAddr(b.Addr); err == nil && a.Unmap() == addr.Unmap() {
			e.add(checks.StatusPass, "", fmt.Sprintf("NCCL bootstraps over %s, the host's fabric address%s", b, fix), "")
			return
		}
	}
	e.add(checks.StatusWarn, "", fmt.Sprintf("NCCL bootstraps over %s, not the interface of the host's address %s%s", strings.Join(used, " "), addr, fix),
		"set NCCL_SOCKET_IFNAME to the OOB interface (or spec.checks.nccl.oobInterface)")
}

// capList joins names, the first 8 and how many more.
func capList(names []string) string {
	const n = 8
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}
