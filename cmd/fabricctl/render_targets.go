package main

import (
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg/opensm"
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
	ext = nativeExt[s.Platform]
	if ext == "" {
		ext = "." + cfg.Format
	}
	return cfg.Text, ext, nil
}

// renderSubnetManager renders a subnet manager's partitions: partitions.conf
// for OpenSM, the partition intent as JSON for UFM (its REST payloads are
// built from it at apply time). guids maps host names to port GUIDs.
func renderSubnetManager(sm fabric.SubnetManagerIntent, guids map[string][]string) (text, ext string, err error) {
	if sm.Kind == "opensm" {
		s, err := opensm.Render(sm, guids)
		return s, ".partitions.conf", err
	}
	s, err := marshalJSON(sm)
	return s, ".json", err
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
