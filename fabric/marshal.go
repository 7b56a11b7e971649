package fabric

import (
	"bytes"
	"fmt"
	"sort"

	"gopkg.in/yaml.v3"
)

// Normalized returns the fabric as one self-contained YAML document: includes
// are replaced by inline profiles, units are written canonically. Loading the
// result yields the same resolved state (the round-trip tests hold it to that).
// A profiles-only fabric is written as a stream of Profile documents.
func (f *Fabric) Normalized() ([]byte, error) {
	names := make([]string, 0, len(f.Profiles))
	for n := range f.Profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if f.Kind != KindFabric {
		for _, n := range names {
			if err := enc.Encode(f.Profiles[n]); err != nil {
				return nil, fmt.Errorf("encoding profile %s: %w", n, err)
			}
		}
	} else {
		c := *f
		c.Spec.Include = nil
		c.Spec.Profiles = nil
		for _, n := range names {
			p := *f.Profiles[n]
			p.APIVersion, p.Kind = APIVersion, KindProfile
			c.Spec.Profiles = append(c.Spec.Profiles, p)
		}
		if err := enc.Encode(&c); err != nil {
			return nil, fmt.Errorf("encoding fabric: %w", err)
		}
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
