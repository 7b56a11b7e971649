package opensm

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/fabricctl/fabricctl/fabric"
)

// Diff is one field that differs between the wanted and the observed
// partition tables.
type Diff struct {
	// PKey of the partition (0 for one without a pkey, then Partition names it).
	PKey      uint16 `json:"pkey"`
	Partition string `json:"partition"`
	// Field is "partition" (the whole partition is missing or extra), "name",
	// "ipoib", "mtu", "rate", "sl", or "member <GUID|keyword>".
	Field string `json:"field"`
	// Want and Got are the values, "absent" where one side lacks it.
	Want string `json:"want"`
	Got  string `json:"got"`
}

func (d Diff) String() string {
	id := fmt.Sprintf("0x%04x", d.PKey)
	if d.PKey == 0 {
		id = strconv.Quote(d.Partition)
	}
	return fmt.Sprintf("partition %s: %s: want %s, got %s", id, d.Field, d.Want, d.Got)
}

// Defaults are the values a subnet manager uses for settings a partition
// leaves unset; Compare treats unset and default as equal.
type Defaults struct {
	MTUCode      int    // IPoIB broadcast group MTU code
	RateCode     int    // IPoIB broadcast group rate code
	ServiceLevel int    // partition SL
	Membership   string // membership of a member written without one
}

// OpenSMDefaults are OpenSM's: broadcast group MTU 4 (2048), rate 3 (10 Gb/s),
// SL 0, and limited membership (osm_prtn_config.c new_part_conf).
var OpenSMDefaults = Defaults{MTUCode: 4, RateCode: 3, ServiceLevel: 0, Membership: "limited"}

// Compare reports, field by field, how got differs from want under OpenSM's
// defaults. Partitions are matched by pkey (by name when a side has none),
// members by GUID or keyword; member order and spelling (0x prefix, case) do
// not matter. Pass Desired's output as want, so Host members are GUIDs. The
// result is sorted by partition (0x7fff first, then pkey) and field.
func Compare(want, got []fabric.PartitionIntent) []Diff {
	return CompareWith(want, got, OpenSMDefaults)
}

// CompareWith is Compare under another subnet manager's defaults (UFM's differ).
func CompareWith(want, got []fabric.PartitionIntent, d Defaults) []Diff {
	w, g := index(want), index(got)
	keys := make([]string, 0, len(w)+len(g))
	for k := range w {
		keys = append(keys, k)
	}
	for k := range g {
		if _, ok := w[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := pick(w, g, keys[i]), pick(w, g, keys[j])
		if a.PKey != b.PKey || a.Name != b.Name {
			return partitionLess(a, b)
		}
		return keys[i] < keys[j]
	})
	var out []Diff
	for _, k := range keys {
		wp, inW := w[k]
		gp, inG := g[k]
		switch {
		case !inG:
			out = append(out, Diff{PKey: wp.PKey, Partition: wp.Name, Field: "partition", Want: "present", Got: "absent"})
		case !inW:
			out = append(out, Diff{PKey: gp.PKey, Partition: gp.Name, Field: "partition", Want: "absent", Got: "present"})
		default:
			out = append(out, comparePartition(wp, gp, d)...)
		}
	}
	return out
}

func partitionKey(p fabric.PartitionIntent) string {
	if p.PKey == 0 {
		return "name:" + p.Name
	}
	return fmt.Sprintf("pkey:0x%04x", p.PKey&pkeyMask)
}

func index(ps []fabric.PartitionIntent) map[string]fabric.PartitionIntent {
	m := make(map[string]fabric.PartitionIntent, len(ps))
	for _, p := range ps {
		p.PKey &= pkeyMask
		m[partitionKey(p)] = p
	}
	return m
}

func pick(w, g map[string]fabric.PartitionIntent, k string) fabric.PartitionIntent {
	if p, ok := w[k]; ok {
		return p
	}
	return g[k]
}

func comparePartition(w, g fabric.PartitionIntent, d Defaults) []Diff {
	var out []Diff
	add := func(field, want, got string) {
		if want != got {
			out = append(out, Diff{PKey: w.PKey, Partition: w.Name, Field: field, Want: want, Got: got})
		}
	}
	add("name", strconv.Quote(w.Name), strconv.Quote(g.Name))
	add("ipoib", strconv.FormatBool(w.IPoIB), strconv.FormatBool(g.IPoIB))
	add("mtu", mtuString(effMTU(w, d)), mtuString(effMTU(g, d)))
	add("rate", rateString(effRate(w, d)), rateString(effRate(g, d)))
	add("sl", strconv.Itoa(effSL(w, d)), strconv.Itoa(effSL(g, d)))
	wm, gm := effMembers(w, d), effMembers(g, d)
	keys := make([]fabric.PartitionMember, 0, len(wm)+len(gm))
	for k := range wm {
		keys = append(keys, memberFromKey(k))
	}
	for k := range gm {
		if _, ok := wm[k]; !ok {
			keys = append(keys, memberFromKey(k))
		}
	}
	sortMembers(keys)
	for _, k := range keys {
		key := memberKey(k)
		want, got := wm[key], gm[key]
		if want == "" {
			want = "absent"
		}
		if got == "" {
			got = "absent"
		}
		add("member "+key, want, got)
	}
	return out
}

func effMTU(p fabric.PartitionIntent, d Defaults) int {
	switch {
	case p.MTUCode != 0:
		return p.MTUCode
	case p.MTU != 0:
		return fabric.MTUCode(p.MTU)
	}
	return d.MTUCode
}

func effRate(p fabric.PartitionIntent, d Defaults) int {
	switch {
	case p.RateCode != 0:
		return p.RateCode
	case p.Rate != 0:
		return fabric.RateCode(p.Rate)
	}
	return d.RateCode
}

func effSL(p fabric.PartitionIntent, d Defaults) int {
	if p.ServiceLevel < 0 {
		return d.ServiceLevel
	}
	return p.ServiceLevel
}

// effMembers maps member keys to effective memberships (last entry wins, as
// in OpenSM); GUIDs are normalised so spelling does not matter.
func effMembers(p fabric.PartitionIntent, d Defaults) map[string]string {
	def := p.DefaultMembership
	if def == "" {
		def = d.Membership
	}
	m := map[string]string{}
	for _, x := range p.Members {
		if x.GUID != "" {
			if v, err := ParseGUID(x.GUID); err == nil {
				x.GUID = FormatGUID(v)
			}
		}
		ms := x.Membership
		if ms == "" {
			ms = def
		}
		m[memberKey(x)] = ms
	}
	return m
}

func memberFromKey(k string) fabric.PartitionMember {
	if matchSpecial(k) == k && k != "" {
		return fabric.PartitionMember{Special: k}
	}
	if len(k) > 5 && k[:5] == "host:" {
		return fabric.PartitionMember{Host: k[5:]}
	}
	return fabric.PartitionMember{GUID: k}
}

func mtuString(code int) string {
	if code == 0 {
		return "unset"
	}
	return fmt.Sprintf("%d (%d bytes)", code, 128<<code)
}

func rateString(code int) string {
	if code == 0 {
		return "unset"
	}
	return fmt.Sprintf("%d (%g Gb/s)", code, fabric.RateFromCode(code))
}
