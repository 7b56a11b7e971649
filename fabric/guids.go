package fabric

// PortGUIDs maps every host with known port GUIDs (spec.hosts[].portGuids)
// to them: what subnet-manager drivers turn host members into.
func (f *Fabric) PortGUIDs() map[string][]string {
	out := map[string][]string{}
	for _, h := range f.Spec.Hosts {
		if len(h.PortGUIDs) > 0 {
			out[h.Name] = h.PortGUIDs
		}
	}
	return out
}
