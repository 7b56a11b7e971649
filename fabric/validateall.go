package fabric

import (
	"fmt"
	"net/netip"
	"sort"
	"strconv"
	"strings"
)

// validate runs every part of validation: each profile (validate.go), then
// the fabric document. It sits above the parts, which share only the
// validator and its helpers.
func (v *validator) validate() {
	names := make([]string, 0, len(v.f.Profiles))
	for n := range v.f.Profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	v.profileValid = map[string]bool{}
	for _, n := range names {
		ref := v.refs[n]
		v.doc, v.prefix = ref.doc, ref.prefix
		before := len(*v.errs)
		v.profile(v.f.Profiles[n])
		// A profile with a value that did not decode is not valid either,
		// though validation kept quiet about it.
		v.profileValid[n] = len(*v.errs) == before && !v.partial(ref.doc, strings.TrimSuffix(ref.prefix, "."))
		if v.profileValid[n] {
			v.profileWarnings(v.f.Profiles[n])
		}
	}
	if v.f.Kind == KindFabric {
		v.fabric()
	}
}

// fabric checks the fabric document: its targets (validate.go), then
// spec.checks (validatechecks.go) and the cabling (cabling.go).
func (v *validator) fabric() {
	f := v.f
	if !nameRE.MatchString(f.Metadata.Name) {
		v.ferr("metadata.name", "%q is not a valid name (lowercase letters, digits, '-', '.', '_')", f.Metadata.Name)
	}
	if len(f.Spec.Hosts)+len(f.Spec.Switches)+len(f.Spec.SubnetManagers) == 0 {
		v.ferr("spec", "a fabric needs at least one host, switch or subnet manager")
	}
	profileNames := make([]string, 0, len(f.Profiles))
	for n := range f.Profiles {
		profileNames = append(profileNames, n)
	}
	sort.Strings(profileNames)
	targets := map[string]string{}
	addrs := map[string]string{}
	defaultPort := 22
	if d := f.Spec.Defaults.SSH; d != nil && d.Port != 0 {
		defaultPort = d.Port
	}
	checkTarget := func(path, kind, name, addr string, ssh *SSH) {
		if name == "" {
			v.ferr(path+".name", "required")
		} else if !hostnameRE.MatchString(name) || len(name) > 63 {
			v.ferr(path+".name", "%q is not a valid target name (letters, digits, '-', '.')", name)
		} else if prev, dup := targets[name]; dup {
			v.ferr(path+".name", "name %q is already used by %s", name, prev)
		} else {
			targets[name] = kind + " " + name
		}
		if addr == "" {
			v.ferr(path+".address", "required: an IP address or host name")
		} else if _, err := netip.ParseAddr(addr); err != nil && (!hostnameRE.MatchString(addr) || len(addr) > 253 || looksNumeric(addr)) {
			v.ferr(path+".address", "%q is not an IP address or host name", addr)
		} else {
			// One address written two ways is one target: the identity is
			// the canonical address and the SSH port.
			port := defaultPort
			if ssh != nil && ssh.Port != 0 {
				port = ssh.Port
			}
			canon := CanonicalAddress(addr)
			id := fmt.Sprintf("%s port %d", canon, port)
			if prev, dup := addrs[id]; dup {
				shown := addr + " port " + strconv.Itoa(port)
				if canon != addr {
					shown = addr + " (" + id + ")"
				}
				v.ferr(path+".address", "address %s is already used by %s", shown, prev)
			} else {
				addrs[id] = kind + " " + name
			}
		}
	}
	profileOf := func(path, ref, need string) *Profile {
		if ref == "" {
			v.ferr(path+".profile", "required: the name of a profile")
			return nil
		}
		p, ok := f.Profiles[ref]
		if !ok && v.lost {
			return nil // perhaps the profile that did not load
		}
		if !ok {
			v.ferr(path+".profile", "no profile named %q%s (known: %s)", ref, suggest(ref, profileNames), strings.Join(profileNames, ", "))
			return nil
		}
		if need == "ethernet" && p.Spec.Ethernet == nil {
			v.ferr(path+".profile", "profile %q has no ethernet section, which a %s needs", ref, strings.Split(path, "[")[0][5:])
		}
		if need == "infiniband" && p.Spec.InfiniBand == nil {
			v.ferr(path+".profile", "profile %q has no infiniband section, which a subnet manager needs", ref)
		}
		return p
	}
	if d := f.Spec.Defaults.SSH; d != nil {
		v.ssh("spec.defaults.ssh", d)
	}
	for i, h := range f.Spec.Hosts {
		if v.errs.full() {
			v.errs.add(&Error{Pos: v.f.Source})
			break // nothing more would be reported
		}
		hp := fmt.Sprintf("spec.hosts[%d]", i)
		checkTarget(hp, "host", h.Name, h.Address, h.SSH)
		p := profileOf(hp, h.Profile, "")
		if p != nil && p.Spec.Ethernet == nil && len(h.Interfaces) > 0 {
			v.ferr(hp+".interfaces", "profile %q has no ethernet section, so RoCE interfaces make no sense here", h.Profile)
		}
		seen := map[string]bool{}
		for j, ifn := range h.Interfaces {
			if !v.ifnames.match(ifnameRE, ifn) || ifn == "." || ifn == ".." {
				v.ferr(fmt.Sprintf("%s.interfaces[%d]", hp, j), "%q is not a Linux interface name (1..15 of letters, digits, '_', '.', '-', '@'; not . or ..)", ifn)
			} else if seen[ifn] {
				v.ferr(fmt.Sprintf("%s.interfaces[%d]", hp, j), "interface %s is listed twice", ifn)
			}
			seen[ifn] = true
		}
		v.labels(hp+".labels", h.Labels)
		for j, g := range h.PortGUIDs {
			if !guidRE.MatchString(g) {
				v.ferr(fmt.Sprintf("%s.portGuids[%d]", hp, j), "%q is not a port GUID (0x followed by 16 hex digits)", g)
			}
		}
		if h.SSH != nil {
			v.ssh(hp+".ssh", h.SSH)
		}
	}
	for i, s := range f.Spec.Switches {
		sp := fmt.Sprintf("spec.switches[%d]", i)
		checkTarget(sp, "switch", s.Name, s.Address, s.SSH)
		profileOf(sp, s.Profile, "ethernet")
		v.switchPlatform(sp, s)
		v.labels(sp+".labels", s.Labels)
		if s.SSH != nil {
			v.ssh(sp+".ssh", s.SSH)
		}
	}
	for i, sm := range f.Spec.SubnetManagers {
		mp := fmt.Sprintf("spec.subnetManagers[%d]", i)
		checkTarget(mp, "subnet manager", sm.Name, sm.Address, sm.SSH)
		if sm.Kind == "" {
			v.ferr(mp+".kind", "required%s", v.oneOf(Platforms.SubnetManagerKinds))
		}
		p := profileOf(mp, sm.Profile, "infiniband")
		for _, fp := range [][2]string{{"partitionsFile", sm.PartitionsFile}, {"logFile", sm.LogFile}, {"pidFile", sm.PIDFile}} {
			if fp[1] != "" && !strings.HasPrefix(fp[1], "/") {
				v.ferr(mp+"."+fp[0], "%q must be an absolute path on the subnet manager", fp[1])
			}
			if fp[0] != "partitionsFile" && fp[1] != "" && v.platforms != nil {
				if why := v.platforms.PartitionsFileProblem(sm.Kind); why != "" {
					v.ferr(mp+"."+fp[0], "%s kind %s: no OpenSM process or log to read (%s)", "subnet manager", sm.Kind, why)
				}
			}
		}
		if sm.Verify != "" && sm.Verify != "pkeys" && sm.Verify != "file" {
			v.ferr(mp+".verify", "%q is not pkeys or file", sm.Verify)
		}
		if v.platforms != nil && sm.PartitionsFile != "" {
			if why := v.platforms.PartitionsFileProblem(sm.Kind); why != "" {
				v.ferr(mp+".partitionsFile", "%s", why)
			}
		}
		if sm.SSH != nil {
			v.ssh(mp+".ssh", sm.SSH)
		}
		// Selectors match hosts by name and labels: only once they decoded.
		if p != nil && p.Spec.InfiniBand != nil && !v.partial("fabric", "spec.hosts") {
			v.selectors(mp, p)
		}
	}
	if c := f.Spec.Checks; c != nil {
		v.checks(c)
	}
	// The cabling names hosts, switches, interfaces and ports: checked
	// once they all decoded.
	if !v.partial("fabric", "spec.hosts") && !v.partial("fabric", "spec.switches") && !v.partial("fabric", "spec.links") {
		v.cabling()
	}
	if ib := f.Spec.InfiniBand; ib != nil && !v.partial("fabric", "spec.hosts") && !v.partial("fabric", "spec.subnetManagers") && !v.partial("fabric", "spec.infiniband") {
		v.ibCabling(ib)
	}
	v.hostWarnings()
}
