package rdma

import (
	"fmt"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/preflight"
	"github.com/fabricctl/fabricctl/fabric"
)

// EndpointOf picks the first usable RoCE or InfiniBand port of a host from its preflight facts
// (err: the facts could not be gathered) and, when none is usable, sets Problem to the reason:
// no RDMA device, port not ACTIVE, no RoCE v2 IPv4 GID.
func EndpointOf(in fabric.HostIntent, f preflight.Facts, err error) Endpoint {
	e := Endpoint{Host: in.Host, Address: in.Address, Labels: in.Labels}
	problem := func(id string, class checks.FailureClass, summary string) {
		e.Problem = &checks.Result{ID: id, Target: e.Host, Status: checks.StatusFail, Class: class, Summary: summary}
	}
	if err != nil {
		problem(preflight.IDAgent, "", err.Error())
		return e
	}
	if f.Observed == nil {
		problem(preflight.IDRDMADevice, checks.NoDevice, "the host could not be observed: "+f.ObserveError)
		return e
	}
	for _, in := range f.Observed.Interfaces {
		r := in.RDMA
		if r == nil {
			what := fmt.Sprintf("netdev %s has no RDMA device", in.Name)
			if in.Name == fabric.AllRDMANetdevs {
				what = "no netdev has an RDMA device"
			}
			problem(preflight.IDRDMADevice, checks.NoDevice, what)
			continue
		}
		e.Device, e.Port, e.RateGbps = r.Device, r.Port.Port, r.RateGbps
		switch {
		case r.State != "ACTIVE":
			problem(preflight.IDPort, checks.PortDown, fmt.Sprintf("%s port %d is %s", r.Device, r.Port.Port, r.State))
		case r.LinkLayer == "Ethernet" && r.RoCEv2IPv4GIDIndex < 0:
			problem(preflight.IDGID, checks.QPBringUp, fmt.Sprintf("%s has no RoCE v2 IPv4 GID", r.Device))
		default:
			if r.LinkLayer == "Ethernet" {
				idx := r.RoCEv2IPv4GIDIndex
				e.GIDIndex = &idx
			}
			e.Problem = nil
			return e
		}
	}
	if e.Problem == nil {
		problem(preflight.IDRDMADevice, checks.NoDevice, "no RDMA netdev to test")
	}
	return e
}
