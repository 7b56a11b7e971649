package main

import (
	"github.com/fabricctl/fabricctl/fabric"
)

// renderSwitchNative renders a switch's native config with its platform driver.
func renderSwitchNative(s fabric.SwitchIntent) (text, ext string, err error) {
	d, err := switchRegistry().Driver(s.Platform)
	if err != nil {
		return "", "", err
	}
	cfg, err := d.Render(s)
	if err != nil {
		return "", "", err
	}
	return cfg.Text, d.Info().FileExt, nil
}

// renderSubnetManager renders a subnet manager's partitions: partitions.conf
// for OpenSM, the partition intent as JSON for UFM (its REST payloads are
// built from it at apply time). guids maps host names to port GUIDs.
func renderSubnetManager(sm fabric.SubnetManagerIntent, guids map[string][]string) (text, ext string, err error) {
	m, err := switchRegistry().SubnetManager(sm.Kind)
	if err != nil {
		return "", "", err
	}
	s, err := m.Render(sm, guids)
	return s, m.Info().FileExt, err
}

// hostGUIDs maps every host with known port GUIDs to them.
func hostGUIDs(f *fabric.Fabric) map[string][]string {
	out := map[string][]string{}
	for _, h := range f.Spec.Hosts {
		if len(h.PortGUIDs) > 0 {
			out[h.Name] = h.PortGUIDs
		}
	}
	return out
}
