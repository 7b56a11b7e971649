package opensm

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/fabricctl/fabricctl/fabric"
)

// ErrNoGUIDs: a partition names a host whose port GUIDs are not known yet.
// The controller must discover them (ports/N/... on the host) before rendering.
var ErrNoGUIDs = errors.New("no known port GUIDs")

// DefaultPartition is the rule OpenSM applies to the default partition
// (pkey 0x7fff) of a partitions.conf that has none: every port a limited
// member, the subnet manager's own port a full one. OpenSM's
// doc/partition-config.txt: "In the case of no rule for the Default
// partition: Default=0x7fff : ALL=limited, SELF=full ;". fabricctl writes
// no rule for it unless the intent defines one, so that OpenSM applies
// this and the partitions isolate their members: a blanket
// "Default=0x7fff : ALL=full" would make every port a full member of one
// partition they all share.
func DefaultPartition() fabric.PartitionIntent {
	return fabric.PartitionIntent{
		Name:         "Default",
		PKey:         DefaultPKey,
		ServiceLevel: -1,
		Members:      []fabric.PartitionMember{{Special: "ALL", Membership: "limited"}, {Special: "SELF", Membership: "full"}},
	}
}

// Desired returns the canonical partition table Render writes for parts:
// Host members replaced by their port GUIDs from guids (host → GUIDs), every
// membership explicit (a member without one takes the partition's
// DefaultMembership, else limited), GUIDs spelled by FormatGUID, MTU and rate
// given both as bytes/Gb/s and as IBTA codes, members ordered keywords first
// (ALL, ALL_CAS, ALL_SWITCHES, ALL_ROUTERS, SELF) then GUIDs ascending, and
// partitions ordered 0x7fff first (when the intent defines it: otherwise
// OpenSM applies DefaultPartition itself), then by pkey.
// Parse(Render(sm, guids)) returns exactly Desired(sm.Partitions, guids),
// which is what drift compares against.
//
// It rejects what partitions.conf cannot say or OpenSM would read otherwise:
// a pkey with the 0x8000 bit, duplicate pkeys, names with , : ; = # or line
// breaks, unknown memberships, an MTU or rate without an IBTA code, SL above
// 15, mtu, rate or sl on a partition without ipoib (OpenSM applies them to
// the IPoIB broadcast group only, so they would silently do nothing), a
// member that is not exactly one of GUID/Host/Special, one port listed with
// two memberships, a default partition 0x7fff without the member ALL
// (ErrDefaultWithoutAll), and a Host with no known GUIDs (ErrNoGUIDs).
func Desired(parts []fabric.PartitionIntent, guids map[string][]string) ([]fabric.PartitionIntent, error) {
	var errs []error
	out := make([]fabric.PartitionIntent, 0, len(parts)+1)
	pkeys := map[uint16]string{}
	names := map[string]bool{}
	hasDefault := false
	for _, in := range parts {
		p, err := canonical(in, guids)
		if err != nil {
			errs = append(errs, fmt.Errorf("partition %q: %w", in.Name, err))
			continue
		}
		if p.PKey == 0 {
			if names[p.Name] {
				errs = append(errs, fmt.Errorf("partition %q: defined twice without a pkey", p.Name))
				continue
			}
			names[p.Name] = true
		} else if prev, dup := pkeys[p.PKey]; dup {
			errs = append(errs, fmt.Errorf("partition %q: pkey 0x%04x already used by partition %q", p.Name, p.PKey, prev))
			continue
		}
		pkeys[p.PKey] = p.Name
		hasDefault = hasDefault || p.PKey == DefaultPKey
		out = append(out, p)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	_ = hasDefault // without a rule OpenSM applies DefaultPartition itself
	// OpenSM merges a definition without a pkey into an earlier partition of
	// the same name, so such a name must be unique.
	for _, p := range out {
		if p.PKey != 0 {
			continue
		}
		for k, n := range pkeys {
			if k != 0 && n == p.Name {
				errs = append(errs, fmt.Errorf("partition %q: has no pkey and shares its name with pkey 0x%04x, so OpenSM would merge them", p.Name, k))
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	sort.SliceStable(out, func(i, j int) bool { return partitionLess(out[i], out[j]) })
	return out, nil
}

// partitionLess orders the default partition first, then by pkey, then
// pkey-less partitions by name.
func partitionLess(a, b fabric.PartitionIntent) bool {
	ra, rb := int(a.PKey), int(b.PKey)
	if a.PKey == DefaultPKey {
		ra = -1
	}
	if b.PKey == DefaultPKey {
		rb = -1
	}
	if a.PKey == 0 {
		ra = 1 << 16
	}
	if b.PKey == 0 {
		rb = 1 << 16
	}
	if ra != rb {
		return ra < rb
	}
	return a.Name < b.Name
}

func canonical(in fabric.PartitionIntent, guids map[string][]string) (fabric.PartitionIntent, error) {
	p := in
	if err := checkName(p); err != nil {
		return p, err
	}
	if p.PKey&^pkeyMask != 0 {
		return p, fmt.Errorf("pkey 0x%04x has the full-member bit 0x8000 set; write 0x%04x", p.PKey, p.PKey&pkeyMask)
	}
	switch p.DefaultMembership {
	case "", "full", "limited", "both":
	default:
		return p, fmt.Errorf("defaultMembership %q is not full, limited or both", p.DefaultMembership)
	}
	if err := canonicalMTU(&p); err != nil {
		return p, err
	}
	if err := canonicalRate(&p); err != nil {
		return p, err
	}
	if p.ServiceLevel < -1 || p.ServiceLevel > 15 {
		return p, fmt.Errorf("serviceLevel %d is out of range 0..15", p.ServiceLevel)
	}
	if !p.IPoIB {
		if p.MTUCode != 0 || p.RateCode != 0 || p.ServiceLevel > 0 {
			return p, errors.New(ErrNoIPoIB)
		}
		p.ServiceLevel = -1 // sl=0 is OpenSM's default, and acts on nothing here
	}
	members, err := canonicalMembers(in, guids)
	if err != nil {
		return p, err
	}
	if p.PKey == DefaultPKey && !slices.ContainsFunc(members, func(m fabric.PartitionMember) bool { return m.Special == "ALL" }) {
		return p, errors.New(ErrDefaultWithoutAll)
	}
	p.Members = members
	return p, nil
}

// ErrDefaultWithoutAll is the refusal of a default partition (0x7fff)
// whose members do not include ALL. OpenSM makes every port a limited
// member of 0x7fff, and its own port a full one, before it reads the file
// (osm_prtn_make_partitions: prtn_make_default), and a definition of 0x7fff
// only adds to that: the ports it does not name stay members, which the
// definition does not say.
const ErrDefaultWithoutAll = "the default partition 0x7fff keeps every port OpenSM's definition does not name (ALL=limited, SELF=full); list special ALL with the membership the other ports get"

// ErrNoPartitions is the refusal of an intent without partitions: OpenSM
// reads a partitions.conf without a definition as an error
// (osm_prtn_config_parse_file succeeds only once a definition parsed), logs
// "Partition configuration in error; retrying with default config" and
// makes every port a full member of 0x7fff.
const ErrNoPartitions = "no partition to write: OpenSM reads a partitions.conf without a definition as an error and makes every port a full member of 0x7fff; define at least one partition"

func checkName(p fabric.PartitionIntent) error {
	if strings.ContainsAny(p.Name, ",:;=#\n\r\x00") {
		return fmt.Errorf("name %q contains one of , : ; = # or a line break, which partitions.conf cannot hold", p.Name)
	}
	if strings.TrimSpace(p.Name) != p.Name {
		return fmt.Errorf("name %q has leading or trailing white space", p.Name)
	}
	if p.PKey == 0 {
		if p.Name == "" {
			return errors.New("a partition needs a pkey or a name")
		}
		if p.Name[0] >= '0' && p.Name[0] <= '9' {
			return fmt.Errorf("name %q starts with a digit, so without a pkey OpenSM would read it as one", p.Name)
		}
	}
	return nil
}

func canonicalMTU(p *fabric.PartitionIntent) error {
	switch {
	case p.MTUCode != 0:
		if p.MTUCode < 1 || p.MTUCode > 5 {
			return fmt.Errorf("mtuCode %d is not an IBTA MTU code (1..5)", p.MTUCode)
		}
		if bytes := 128 << p.MTUCode; p.MTU != 0 && p.MTU != bytes {
			return fmt.Errorf("mtu %d disagrees with mtuCode %d (%d bytes)", p.MTU, p.MTUCode, bytes)
		}
	case p.MTU != 0:
		if p.MTUCode = fabric.MTUCode(p.MTU); p.MTUCode == 0 {
			return fmt.Errorf("mtu %d is not an InfiniBand MTU (256, 512, 1024, 2048 or 4096)", p.MTU)
		}
	default:
		return nil
	}
	p.MTU = 128 << p.MTUCode
	return nil
}

func canonicalRate(p *fabric.PartitionIntent) error {
	switch {
	case p.RateCode != 0:
		gbps := fabric.RateFromCode(p.RateCode)
		if gbps == 0 {
			return fmt.Errorf("rateCode %d is not an IBTA rate code", p.RateCode)
		}
		if p.Rate != 0 && p.Rate != gbps {
			return fmt.Errorf("rate %g disagrees with rateCode %d (%g Gb/s)", p.Rate, p.RateCode, gbps)
		}
	case p.Rate != 0:
		if p.RateCode = fabric.RateCode(p.Rate); p.RateCode == 0 {
			return fmt.Errorf("rate %g Gb/s has no IBTA rate code", p.Rate)
		}
	default:
		return nil
	}
	p.Rate = fabric.RateFromCode(p.RateCode)
	return nil
}

func canonicalMembers(p fabric.PartitionIntent, guids map[string][]string) ([]fabric.PartitionMember, error) {
	def := p.DefaultMembership
	if def == "" {
		def = "limited"
	}
	out := []fabric.PartitionMember{}
	index := map[string]int{}
	add := func(m fabric.PartitionMember) error {
		k := memberKey(m)
		if i, ok := index[k]; ok {
			if out[i].Membership != m.Membership {
				return fmt.Errorf("member %s listed as both %s and %s", k, out[i].Membership, m.Membership)
			}
			return nil
		}
		index[k] = len(out)
		out = append(out, m)
		return nil
	}
	var errs []error
	for i, m := range p.Members {
		membership := m.Membership
		switch membership {
		case "":
			membership = def
		case "full", "limited", "both":
		default:
			errs = append(errs, fmt.Errorf("members[%d]: membership %q is not full, limited or both", i, m.Membership))
			continue
		}
		set := 0
		for _, s := range []string{m.GUID, m.Host, m.Special} {
			if s != "" {
				set++
			}
		}
		if set != 1 {
			errs = append(errs, fmt.Errorf("members[%d]: exactly one of guid, host and special must be set", i))
			continue
		}
		switch {
		case m.Special != "":
			if matchSpecial(m.Special) != m.Special {
				errs = append(errs, fmt.Errorf("members[%d]: special %q is not one of %s", i, m.Special, strings.Join(specials, ", ")))
				continue
			}
			errs = append(errs, add(fabric.PartitionMember{Special: m.Special, Membership: membership}))
		case m.GUID != "":
			v, err := ParseGUID(m.GUID)
			if err != nil {
				errs = append(errs, fmt.Errorf("members[%d]: %w", i, err))
				continue
			}
			errs = append(errs, add(fabric.PartitionMember{GUID: FormatGUID(v), Membership: membership}))
		default:
			list := guids[m.Host]
			if len(list) == 0 {
				errs = append(errs, fmt.Errorf("host %q: %w (discover the host's port GUIDs first)", m.Host, ErrNoGUIDs))
				continue
			}
			for _, g := range list {
				v, err := ParseGUID(g)
				if err != nil {
					errs = append(errs, fmt.Errorf("host %q: %w", m.Host, err))
					continue
				}
				errs = append(errs, add(fabric.PartitionMember{GUID: FormatGUID(v), Membership: membership}))
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	sortMembers(out)
	return out, nil
}

// ErrNoIPoIB is the refusal of mtu, rate and sl on a partition without
// ipoib: OpenSM applies them to the partition's IPoIB broadcast group (the
// "mgroup_flag" values of doc/partition-config.txt), so elsewhere they do
// nothing.
const ErrNoIPoIB = "mtu, rate and serviceLevel act on the IPoIB broadcast group only (OpenSM doc/partition-config.txt); set ipoib: true or remove them"

// Render writes the partitions.conf for sm: a header comment naming fabricctl
// and the subnet manager, then one definition per partition of Desired, in
// that order. It is pure; guids maps host names to their port GUIDs, and a
// host without known GUIDs is an error (ErrNoGUIDs): this is the file Push
// writes. An intent without partitions is refused (ErrNoPartitions).
func Render(sm fabric.SubnetManagerIntent, guids map[string][]string) (string, error) {
	return render(sm, guids, false)
}

// RenderPreview is Render for a fabric whose hosts' port GUIDs are not all
// known yet (`fabricctl render` before any plan): a host without GUIDs
// becomes a comment line among its partition's members saying it is
// discovered at plan time, and everything else renders as Render does.
// OpenSM reads the comments as nothing ('#' to the end of the line).
func RenderPreview(sm fabric.SubnetManagerIntent, guids map[string][]string) (string, error) {
	return render(sm, guids, true)
}

func render(sm fabric.SubnetManagerIntent, guids map[string][]string, preview bool) (string, error) {
	pending := map[string][]fabric.PartitionMember{} // partition name → host members still to discover
	if preview {
		known := map[string][]string{}
		for h, g := range guids {
			known[h] = g
		}
		parts := make([]fabric.PartitionIntent, len(sm.Partitions))
		for i, p := range sm.Partitions {
			p.Members = slices.DeleteFunc(slices.Clone(p.Members), func(m fabric.PartitionMember) bool {
				if m.Host != "" && len(known[m.Host]) == 0 {
					pending[p.Name] = append(pending[p.Name], m)
					return true
				}
				return false
			})
			parts[i] = p
		}
		sm.Partitions = parts
	}
	parts, err := Desired(sm.Partitions, guids)
	if err != nil {
		return "", fmt.Errorf("rendering partitions.conf for %s: %w", sm.Name, err)
	}
	if len(parts) == 0 {
		return "", fmt.Errorf("rendering partitions.conf for %s: %s", sm.Name, ErrNoPartitions)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# OpenSM partitions.conf generated by fabricctl for subnet manager %q", sm.Name)
	if sm.Profile != "" {
		fmt.Fprintf(&b, " (profile %q)", sm.Profile)
	}
	b.WriteString(".\n# Do not edit: `fabricctl apply` overwrites this file and `fabricctl drift` reports edits.\n")
	for _, p := range parts {
		b.WriteString("\n")
		writePartition(&b, p, pending[p.Name])
	}
	// The file must mean the intent to OpenSM's parser, not only to ours:
	// a rendering that does not survive the grammar check is a bug here,
	// and pushing it would make OpenSM drop every partition.
	if err := CheckRendered(b.String(), parts); err != nil {
		return "", fmt.Errorf("rendering partitions.conf for %s: %w", sm.Name, err)
	}
	return b.String(), nil
}

func writePartition(b *strings.Builder, p fabric.PartitionIntent, pending []fabric.PartitionMember) {
	// Hosts still to discover go in comment lines before the statement:
	// OpenSM cuts a line at '#' before it looks for the ';' that ends a
	// statement, so nothing of the statement may share a line with them.
	for _, m := range pending {
		def := m.Membership
		if def == "" {
			def = p.DefaultMembership
		}
		if def == "" {
			def = "limited"
		}
		fmt.Fprintf(b, "# %s: host %s (%s) is not listed yet: its port GUIDs are discovered at plan time\n", p.Name, m.Host, def)
	}
	b.WriteString(p.Name)
	if p.PKey != 0 {
		fmt.Fprintf(b, "=0x%04x", p.PKey)
	}
	if p.IPoIB {
		b.WriteString(", ipoib")
	}
	if p.MTUCode != 0 {
		fmt.Fprintf(b, ", mtu=%d", p.MTUCode)
	}
	if p.RateCode != 0 {
		fmt.Fprintf(b, ", rate=%d", p.RateCode)
	}
	if p.ServiceLevel >= 0 {
		fmt.Fprintf(b, ", sl=%d", p.ServiceLevel)
	}
	if p.DefaultMembership != "" {
		fmt.Fprintf(b, ", defmember=%s", p.DefaultMembership)
	}
	b.WriteString(" :")
	sep := " "
	if len(p.Members) > 1 {
		sep = "\n\t"
	}
	for i, m := range p.Members {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(sep)
		b.WriteString(memberKey(m))
		b.WriteString("=")
		b.WriteString(m.Membership)
	}
	// A partition without members (all its hosts still to discover) is
	// "NAME=PKEY : ;": OpenSM creates it empty (partition_add_port skips an
	// empty name).
	b.WriteString(" ;\n")
}
