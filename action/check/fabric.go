package check

import (
	"context"
	"fmt"

	"github.com/fabricctl/fabricctl/action/fleet"
	"github.com/fabricctl/fabricctl/checks/rdma"
	"github.com/fabricctl/fabricctl/checks/report"
	"github.com/fabricctl/fabricctl/checks/topology"
	"github.com/fabricctl/fabricctl/fabric"
)

// RunFabric is `fabricctl check` over a loaded fabric: each host's agent
// over SSH (action/fleet's Hosts, limited to reach.Only when set), the
// fabric's spec.checks as the policy, its declared cabling as the
// Topology, and every switch's LLDP table and port error counters over the
// plan/apply sessions (reach.Registry's drivers, reach's host-key and SSH
// settings), and on Ethernet every host's own port counters
// (WithHostCounters); then Run. o's Checks, Topology, Neighbors and SwitchCounters
// are set here, and with the ib suite o.IBSuite's fabric and vantage host. It fails with ErrNoHosts when no host is left to check.
func RunFabric(ctx context.Context, f *fabric.Fabric, reach fleet.Options, o Options) (*report.Report, error) {
	fl, closeAll := fleet.Hosts(f, reach)
	defer closeAll()
	hosts := make([]Host, 0, len(fl))
	for _, h := range fl {
		hosts = append(hosts, Host{Intent: h.Intent, Agent: h.Agent})
	}
	if len(hosts) == 0 {
		return nil, fmt.Errorf("checking %s: %w", f.Source.File, ErrNoHosts)
	}
	// The switches are reached with the fabric's own ssh settings: the
	// hosts' identity file, agent and host filter are not theirs.
	sw := fleet.Options{Registry: reach.Registry, InsecureIgnoreHostKey: reach.InsecureIgnoreHostKey,
		KnownHostsFile: reach.KnownHostsFile, SSHConfigFile: reach.SSHConfigFile, Log: reach.Log, Dial: reach.Dial}
	o = fabricOptions(f, o)
	o, closeVantage, err := ibVantage(f, hosts, reach, o)
	if err != nil {
		return nil, err
	}
	defer closeVantage()
	o.Neighbors, o.SwitchCounters = NewNeighborSource(f, sw), NewSwitchCounterSource(f, sw)
	o.Incast = FabricIncast(f, sw, o.Incast)
	o = fabricHostCounters(fabricIBLocalize(f, hosts, o), hosts)
	return Run(ctx, f.Metadata.Name, hosts, o)
}

// fabricHostCounters is o reading, on Ethernet, the hosts' own port
// counters beside the switches' (WithHostCounters): the hosts' ends of
// their access cables count too (receive errors, link-downs, pause
// storms). With o.IBLocalize (InfiniBand) o is unchanged: every HCA
// port is read through its PMA already.
func fabricHostCounters(o Options, hosts []Host) Options {
	if o.IBLocalize == nil {
		o.SwitchCounters = WithHostCounters(o.SwitchCounters, hosts, o.Topology)
	}
	return o
}

// fabricOptions is o with the fabric's policy (spec.checks) and declared
// cabling, as RunFabric runs it.
func fabricOptions(f *fabric.Fabric, o Options) Options {
	o.Checks, o.Topology = f.Spec.Checks, topology.Declared(f)
	o.SwitchAddrs = rdma.SwitchAddrs(f)
	return o
}
