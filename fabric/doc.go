// Package fabric is the pure model and engine of fabricctl.
//
// It loads the two user documents (Profile and Fabric, apiVersion
// fabricctl.io/v1alpha1) strictly, with every error located as
// FILE:LINE:COL: YAML.PATH: message; validates them; and resolves a fabric into
// the desired state of every target:
//
//	f, err := fabric.Load("profiles/lab/fabric.yaml") // load + validate
//	if err != nil { … }                                // errors.As(err, *fabric.LoadErrors) lists all
//	r := f.Resolve()                                   // HostIntent, SwitchIntent, SubnetManagerIntent
//
// The intent types (intent.go) are the contract with hostcfg/, switchcfg/ and
// checks/. This package does no I/O beyond reading the fabric's own files.
// Values returned are not shared; Load and Resolve are safe for concurrent use.
package fabric
