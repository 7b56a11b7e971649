package nccl

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/fabricctl/fabricctl/checks"
)

// virtualIfRe matches interfaces that never carry a fabric: loopback and the
// bridges, tunnels and overlays of containers and VMs.
var virtualIfRe = regexp.MustCompile(`^(?:lo|docker\d*|br-\w+|virbr\d*|veth\w*|flannel\.\w+|cni\d*|cali\w+|cilium_\w+|vxlan[\w.]*|tunl\d+|weave|kube-\w+|tailscale\d*|wg\d+|podman\d*|lxcbr\d*|genev_sys_\w+|ovs-system)$`)

// hostFindings reports what is wrong with one host: h is its state, host
// what the analysis reports of it.
func (a *analyzer) hostFindings(h *hostState, host *Host) {
	if !a.opt.AllowSocket {
		// A job whose communicators all span one node never uses the network
		// NCCL chose: a warning for the multi-node job to come, not a failure.
		// Sockets fail only where the log shows the job spans nodes: a
		// communicator of nNodes > 1, several hosts, or channels through
		// the network transport. One host alone is a warning for the
		// multi-node job to come.
		st, single := checks.StatusFail, ""
		switch {
		case h.maxNodes == 1 && h.netAt.line == 0:
			st, single = checks.StatusWarn, " (single-node job, nNodes 1: no data crossed the network here, but a multi-node job would)"
		case h.maxNodes == 0 && h.netAt.line == 0 && a.hostCount <= 1:
			st, single = checks.StatusWarn, " (the log shows one host and no channel through the network: if the job spans nodes, this fails)"
		}
		r := h.seen()
		if r.socketAt.line != 0 {
			msg := "channels run via NET/Socket: NCCL moves data over TCP, not RDMA"
			if h.networks.has("Socket") {
				msg = "NCCL chose the socket transport (Using network Socket): data moves over TCP, not RDMA"
			}
			a.add(Finding{Kind: SocketFallback, Status: st, Host: h.name, Message: msg + single, Where: r.socketAt.String()})
		}
		if h.noIB {
			a.add(Finding{Kind: NoIBDevice, Status: st, Host: h.name, Where: r.noIBAt.String(), Line: r.noIBLine,
				Message: "NET/IB found no device: no usable IB/RoCE port (libibverbs or the driver not loaded, NCCL_IB_HCA, or a container without /dev/infiniband)" + single})
		}
	}
	a.interfaceFindings(h)
	a.hcaFindings(h, host)
	a.distanceFindings(h, host)
	if host.GDRDMA == GDRNo && h.rdmaNet {
		msg := "NET channels do not use GPUDirect RDMA (no /GDRDMA): check nvidia-peermem or DMA-BUF and the GPU↔NIC PCIe path"
		if off := h.seen().gdrOff; off != "" {
			msg += " (NCCL: " + off + ")"
		}
		a.add(Finding{Kind: NoGDRDMA, Status: checks.StatusWarn, Host: h.name, Where: h.netAt.String(), Message: msg})
	}
}

func (a *analyzer) interfaceFindings(h *hostState) {
	r := h.seen()
	roles := []struct {
		name string
		set  *set[Iface]
	}{{"bootstrap", &h.boot}, {"NET/IB out-of-band exchange", &h.oob}, {"socket transport", &r.sock}}
	for _, role := range roles {
		for _, i := range ifaceList(role.set) {
			var why string
			switch {
			case i.Name == "lo":
				why = "loopback cannot reach other hosts"
			case virtualIfRe.MatchString(i.Name):
				why = "a container or VM bridge/overlay, not the fabric"
			case len(a.opt.Interfaces) > 0 && !slices.Contains(a.opt.Interfaces, i.Name):
				why = "not one of the expected interfaces (" + strings.Join(a.opt.Interfaces, ", ") + ")"
			default:
				continue
			}
			at, _ := h.ifaceAt.get(i.Name)
			a.add(Finding{Kind: UnexpectedInterface, Status: checks.StatusWarn, Host: h.name, Where: at.String(),
				Message: fmt.Sprintf("NCCL uses %s for its %s: %s", i, role.name, why)})
		}
	}
}

func (a *analyzer) hcaFindings(h *hostState, host *Host) {
	layers := map[string][]string{}
	for _, d := range host.IBDevices {
		layers[d.LinkLayer] = append(layers[d.LinkLayer], d.String())
		if len(a.opt.HCAs) > 0 && !slices.Contains(a.opt.HCAs, d.Name) {
			a.add(Finding{Kind: UnexpectedHCA, Status: checks.StatusWarn, Host: h.name, Where: h.ibAt.String(),
				Message: fmt.Sprintf("NET/IB uses %s, not one of the expected devices (%s)", d, strings.Join(a.opt.HCAs, ", "))})
		}
	}
	if len(layers) > 1 {
		minority, majority := "RoCE", "IB"
		if len(layers["RoCE"]) > len(layers["IB"]) {
			minority, majority = majority, minority
		}
		a.add(Finding{Kind: MixedLinkLayers, Status: checks.StatusWarn, Host: h.name, Where: h.ibAt.String(),
			Message: fmt.Sprintf("NET/IB mixes InfiniBand and RoCE ports: %s among %d %s ports; restrict NCCL_IB_HCA",
				strings.Join(layers[minority], " "), len(layers[majority]), majority)})
	}
}

// versionSkew gathers the hosts of each NCCL version, and where the first
// host printing it printed its banner.
type versionSkew struct {
	hosts map[string][]string
	at    map[string]pos
}

// add records host h's versions; hosts are added in name order.
func (v *versionSkew) add(h *hostState) {
	if v.hosts == nil {
		v.hosts, v.at = map[string][]string{}, map[string]pos{}
	}
	for _, ver := range h.versions.keys {
		v.hosts[ver] = append(v.hosts[ver], h.name)
		if _, ok := v.at[ver]; !ok {
			v.at[ver] = h.versionAt
		}
	}
}

// fleetFindings compares hosts: NCCL versions, and ranks nccl-tests printed
// twice (by different processes).
func (a *analyzer) fleetFindings(skew versionSkew, of map[*proc]string) {
	if len(skew.hosts) > 1 {
		var parts []string
		versions := slices.SortedFunc(maps.Keys(skew.hosts), compareNatural)
		for _, v := range versions {
			parts = append(parts, v+" on "+strings.Join(skew.hosts[v], ", "))
		}
		a.add(Finding{Kind: VersionSkew, Status: checks.StatusFail, Where: skew.at[versions[1]].String(),
			Message: "NCCL versions differ: " + strings.Join(parts, "; ")})
	}
	for _, rank := range slices.Sorted(maps.Keys(a.testRanks)) {
		procs := a.testRanks[rank]
		if len(procs) < 2 {
			continue
		}
		var names, wheres []string
		for key, w := range procs {
			names = append(names, fmt.Sprintf("%s (pid %d)", of[a.procs[key]], key.pid))
			wheres = append(wheres, w.String())
		}
		slices.Sort(names)
		slices.SortFunc(wheres, compareNatural)
		a.add(Finding{Kind: DuplicateRank, Status: checks.StatusFail, Where: wheres[1],
			Message: fmt.Sprintf("nccl-tests printed rank %d on %s: the processes ran as separate jobs (a binary built without MPI=1, or a launcher that does not wire ranks)", rank, strings.Join(names, " and "))})
	}
}

// distanceFindings warns where old NCCL said a GPU's NIC is across the
// CPU (PHB, NODE, SYS, SOC): GPUDirect RDMA then crosses the host bridge,
// as nvidia-smi topo -m would show it.
func (a *analyzer) distanceFindings(h *hostState, host *Host) {
	var far []string
	for _, dev := range slices.Sorted(maps.Keys(host.NICDistance)) {
		switch d := host.NICDistance[dev]; d {
		case "PHB", "NODE", "SYS", "SOC":
			far = append(far, dev+" "+d)
		}
	}
	if len(far) > 0 {
		a.add(Finding{Kind: NICDistance, Status: checks.StatusWarn, Host: h.name, Where: h.seen().distanceAt.String(),
			Message: "the NIC is across the CPU from the GPU (" + strings.Join(far, ", ") + "): GPUDirect RDMA goes through the host bridge"})
	}
}
