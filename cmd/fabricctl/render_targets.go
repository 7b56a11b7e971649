package main

import "github.com/fabricctl/fabricctl/fabric"

// renderSwitchNative renders a switch's native config with its platform driver;
// it returns "" while no driver is registered for the platform.
func renderSwitchNative(s fabric.SwitchIntent) (text, ext string, err error) {
	return "", "", nil
}

// renderSubnetManager renders a subnet manager's partitions.
func renderSubnetManager(sm fabric.SubnetManagerIntent) (text, ext string, err error) {
	s, err := marshalJSON(sm)
	return s, ".json", err
}
