package vendorcheck

import (
	"fmt"
	"sort"
	"strings"
)

// NVUEKey is the schema of a collection key of the NVUE tree.
type NVUEKey struct {
	Def   string    // the x-def the key's x-propertyNames points to
	Value NVUEValue // what the key accepts (each element of a list or range)
	// From says where Value comes from: "openapi" (read in the document) or
	// "documentation" (the document's key schema was not read; the value
	// is the syntax NVIDIA's command reference shows, and the full-spec
	// test reports what the document says instead).
	From string
}

// NVUEFact is one path of the NVUE tree the Cumulus renders touch.
type NVUEFact struct {
	// Path is the CLI words; {name} stands for a key of Keys[name].
	Path string
	// Def is the x-def that holds the leaf's (or object's) definition.
	Def string
	// Value is what the leaf accepts; nil for an object (`nv set` of the
	// path alone creates it).
	Value NVUEValue
}

// NVUEFacts is what one release's NVUE openapi.json says about the paths
// the Cumulus renders touch: numbers, enums and names, no text.
type NVUEFacts struct {
	Release    string // Cumulus Linux release
	Title      string // info.title of the document
	APIVersion string // info.version of the document
	Source     string // where the document was read: repository@commit:path
	// SHA256 is the digest of the whole document; empty where the
	// document was read in pieces and never held whole (see Read).
	SHA256 string
	Size   int    // characters in the document
	Read   string // which parts were read, where not the whole
	Keys   map[string]NVUEKey
	Facts  []NVUEFact
}

func integer(lo, hi int64) NVUEValue {
	return NVUEValue{{Type: "integer", Min: &lo, Max: &hi}}
}

func integerFrom(lo int64) NVUEValue { return NVUEValue{{Type: "integer", Min: &lo}} }

func enum(values ...string) NVUEValue {
	v := append([]string(nil), values...)
	sort.Strings(v)
	return NVUEValue{{Type: "string", Enum: v}}
}

// nvue512 was read from CCH0124/nvue-api-fastapi, a repository that keeps
// NVIDIA's Cumulus Linux 5.12.0 openapi.json as cumulus-512.openapi.json
// (the same document docs.nvidia.com publishes under
// networking-ethernet-software/cumulus-linux-512/api/). The document
// (6,979,727 characters) could not be fetched whole here; it was read in
// 16,000-character pages through the code index, so its digest is unknown.
var nvue512 = NVUEFacts{
	Release:    "5.12.0",
	Title:      "NVUE OpenAPI Specification for Cumulus Linux 5.12.0",
	APIVersion: "1.8.0.82",
	Source:     "github.com/CCH0124/nvue-api-fastapi@dbd5563b2f34b3b07930ee4fb0871b87922bc973:cumulus-512.openapi.json",
	Size:       6979727,
	Read: "character offsets 0-16000, 2600000-2616000, 2700000-2716000, 2784000-2816000, 2990000-3006000, 3150000-3166000, " +
		"3500000-3516000, 3640000-3656000, 3700000-3716000, 3750000-3814000, 3860000-3876000, 3920000-3992000, " +
		"4000000-4016000, 4336000-4416000, 5000000-5016000 (x-defs: qos, interface qos, link, roce)",
	Keys: map[string]NVUEKey{
		"profile": {Def: "schema-qos-features-profile-id", From: "openapi",
			Value: NVUEValue{{Type: "string", Enum: []string{"default-global"}}, {Type: "string", Format: "profile-name"}}},
		"default-profile": {Def: "schema-qos-features-def-profile-id", From: "openapi",
			Value: NVUEValue{{Type: "string", Enum: []string{"default-global"}}}},
		"switch-priority": {Def: "schema-qos-features-qos-sp-id", From: "openapi",
			Value: NVUEValue{{Type: "string", Format: "integer"}}},
		"traffic-class": {Def: "schema-qos-features-qos-tc-id", From: "openapi",
			Value: NVUEValue{{Type: "string", Format: "integer"}}},
		"pcp": {Def: "schema-qos-features-qos-pcp-id", From: "openapi",
			Value: NVUEValue{{Type: "string", Format: "integer"}}},
		"dscp": {Def: "schema-qos-features-qos-dscp-id", From: "openapi",
			Value: NVUEValue{{Type: "string", Format: "integer"}}},
		"traffic-pool": {Def: "schema-qos-traffic-pool-traffic-pool-id", From: "openapi",
			Value: enum("default-lossy", "default-lossless", "roce-lossy", "roce-lossless", "mc-lossy")},
		"interface": {Def: "schema-common-interface-interface-id", From: "documentation",
			Value: NVUEValue{{Type: "string", Format: "interface-name"}}},
	},
	Facts: []NVUEFact{
		{"qos roce mode", "schema-roce-roce-mode-config", enum("lossy", "lossless", "lossless-single-ipool")},
		{"qos pfc-watchdog polling-interval", "schema-qos-pfc-wd-pfc-watchdog-config", integer(100, 5000)},
		{"qos pfc-watchdog robustness", "schema-qos-pfc-wd-pfc-watchdog-config", integer(1, 1000)},
		{"qos mapping {profile} trust", "schema-qos-mapping-mapping-config", enum("l2", "l3", "port", "both")},
		{"qos mapping {profile} dscp {dscp} switch-priority", "schema-qos-mapping-qos-mapping-config", integer(0, 7)},
		{"qos mapping {profile} pcp {pcp} switch-priority", "schema-qos-mapping-qos-mapping-config", integer(0, 7)},
		{"qos egress-queue-mapping {default-profile} switch-priority {switch-priority} traffic-class", "schema-qos-eq-mapping-qos-egress-queue-config", integer(0, 7)},
		{"qos traffic-pool {traffic-pool} memory-percent", "schema-qos-traffic-pool-traffic-pool-config", integer(1, 100)},
		{"qos traffic-pool {traffic-pool} switch-priority {switch-priority}", "cue-show-schema-qos-features-switch-priority", nil},
		{"qos pfc {profile} switch-priority {switch-priority}", "cue-show-schema-qos-features-switch-priority", nil},
		{"qos pfc {profile} cable-length", "schema-qos-pfc-fc-config", integer(1, 100000)},
		{"qos pfc {profile} tx", "schema-qos-pfc-pfc-tx-rx-config", enum("enable", "disable")},
		{"qos pfc {profile} rx", "schema-qos-pfc-pfc-tx-rx-config", enum("enable", "disable")},
		{"qos congestion-control {profile} traffic-class {traffic-class} ecn", "schema-qos-ecn-qos-ecn-config", enum("enable", "disable")},
		{"qos congestion-control {profile} traffic-class {traffic-class} min-threshold", "schema-qos-ecn-qos-ecn-config", integerFrom(1)},
		{"qos congestion-control {profile} traffic-class {traffic-class} max-threshold", "schema-qos-ecn-qos-ecn-config", integerFrom(1)},
		{"qos congestion-control {profile} traffic-class {traffic-class} probability", "schema-qos-ecn-qos-ecn-config", integer(0, 100)},
		{"qos egress-scheduler {profile} traffic-class {traffic-class} mode", "schema-qos-ets-qos-ets-config", enum("dwrr", "strict")},
		{"qos egress-scheduler {profile} traffic-class {traffic-class} bw-percent", "schema-qos-ets-qos-ets-config", integer(0, 100)},
		{"interface {interface} qos pfc-watchdog", "cue-show-schema-qos-pfc-wd-if-pfc-watchdog", nil},
		{"interface {interface} qos pfc-watchdog state", "schema-qos-pfc-wd-if-pfc-wd-config", enum("enable", "disable")},
		{"interface {interface} link mtu", "schema-common-if-link-common-eth-link-config", integer(552, 9216)},
	},
}

// NVUEReleases are the releases whose NVUE OpenAPI facts are known, newest
// first.
var NVUEReleases = []NVUEFacts{nvue512}

// factsNode is a node of the tree the facts describe.
type factsNode struct {
	props map[string]*factsNode
	key   NVUEValue
	elem  *factsNode
	leaf  NVUEValue
}

func (n *factsNode) Prop(name string) (NVUENode, bool) {
	p, ok := n.props[name]
	if !ok {
		return nil, false
	}
	return p, true
}

func (n *factsNode) Keyed() (NVUEValue, NVUENode, bool) {
	if n.elem == nil {
		return nil, nil, false
	}
	return n.key, n.elem, true
}

func (n *factsNode) Leaf() (NVUEValue, bool) { return n.leaf, n.leaf != nil }

// Tree builds the tree the facts describe. Every prefix of a fact's path
// exists (as an object or a keyed collection), nothing else does.
func (f NVUEFacts) Tree() (NVUENode, error) {
	root := &factsNode{}
	for _, fact := range f.Facts {
		n := root
		for _, w := range strings.Fields(fact.Path) {
			if n.leaf != nil {
				return nil, fmt.Errorf("building NVUE %s facts: %q goes below a leaf", f.Release, fact.Path)
			}
			if name, ok := strings.CutPrefix(w, "{"); ok {
				name = strings.TrimSuffix(name, "}")
				k, ok := f.Keys[name]
				if !ok {
					return nil, fmt.Errorf("building NVUE %s facts: %q: no key %q", f.Release, fact.Path, name)
				}
				if len(n.props) > 0 || (n.elem != nil && n.key.String() != k.Value.String()) {
					return nil, fmt.Errorf("building NVUE %s facts: %q: %s is both keyed and not, or keyed twice", f.Release, fact.Path, w)
				}
				if n.elem == nil {
					n.key, n.elem = k.Value, &factsNode{}
				}
				n = n.elem
				continue
			}
			if n.elem != nil {
				return nil, fmt.Errorf("building NVUE %s facts: %q: %s under a keyed collection", f.Release, fact.Path, w)
			}
			if n.props == nil {
				n.props = map[string]*factsNode{}
			}
			if n.props[w] == nil {
				n.props[w] = &factsNode{}
			}
			n = n.props[w]
		}
		if fact.Value != nil {
			if len(n.props) > 0 || n.elem != nil {
				return nil, fmt.Errorf("building NVUE %s facts: %q is a leaf and an object", f.Release, fact.Path)
			}
			n.leaf = fact.Value
		}
	}
	return root, nil
}

// ExtractNVUEFacts reads, from a whole NVUE document, the facts at the paths
// of want: the values and keys the document gives there. Paths the document
// lacks are errors.
func ExtractNVUEFacts(spec *NVUESpec, want NVUEFacts) (NVUEFacts, error) {
	got := NVUEFacts{Title: spec.Title, APIVersion: spec.Version, Keys: map[string]NVUEKey{}}
	for _, fact := range want.Facts {
		var node NVUENode = spec.Root()
		var walked []string
		for _, w := range strings.Fields(fact.Path) {
			walked = append(walked, w)
			if name, ok := strings.CutPrefix(w, "{"); ok {
				name = strings.TrimSuffix(name, "}")
				key, elem, ok := node.Keyed()
				if !ok {
					return got, fmt.Errorf("extracting NVUE facts: %s is not a keyed collection", strings.Join(walked, " "))
				}
				k := want.Keys[name]
				k.Value = normalize(key)
				got.Keys[name] = k
				node = elem
				continue
			}
			p, ok := node.Prop(w)
			if !ok {
				return got, fmt.Errorf("extracting NVUE facts: no property %s", strings.Join(walked, " "))
			}
			node = p
		}
		leaf, isLeaf := node.Leaf()
		switch {
		case fact.Value == nil && isLeaf:
			return got, fmt.Errorf("extracting NVUE facts: %s is a leaf (%s), the facts say an object", fact.Path, leaf)
		case fact.Value != nil && !isLeaf:
			return got, fmt.Errorf("extracting NVUE facts: %s is not a leaf", fact.Path)
		}
		got.Facts = append(got.Facts, NVUEFact{Path: fact.Path, Def: fact.Def, Value: normalize(leaf)})
	}
	return got, nil
}

// normalize drops duplicate alternatives and orders them, so that values
// read different ways compare equal.
func normalize(v NVUEValue) NVUEValue {
	if v == nil {
		return nil
	}
	seen := map[string]bool{}
	var out NVUEValue
	for _, s := range v {
		if !seen[s.String()] {
			seen[s.String()] = true
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}
