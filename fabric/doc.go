// Package fabric is the pure model and engine of fabricctl.
//
// It loads the two user documents (Profile and Fabric, apiVersion
// fabricctl.io/v1alpha1) strictly, with every error located as
// FILE:LINE:COL: YAML.PATH: message; validates them; and resolves a fabric into
// the desired state of every target:
//
//	f, err := fabric.Load("profiles/lab/fabric.yaml") // load + validate
//	if err != nil { … }                                // errors.As(err, &errs) (fabric.Errors) lists all
//	for _, w := range f.Warnings() { … }               // risky intents, valid nonetheless
//	r := f.Resolve()                                   // HostIntent, SwitchIntent, SubnetManagerIntent
//
// Decoding never stops validation: whatever decoded is validated, and
// validation stays quiet where the decoder already spoke (partial.go), so
// one run reports every mistake. Check returns the warnings of an invalid
// file too; Diagnostics flattens errors and warnings into one sorted list
// (what `validate -o json` prints). Unknown fields and newcomers' values
// get hints (hints.go); YAML syntax errors are located at the line that
// breaks the document (yamlerr.go); warnings.go lists the warning codes.
//
// The intent types (intent.go) are the contract with hostcfg/, switchcfg/ and
// checks/. This package does no I/O beyond reading the fabric's own files.
// Values returned are not shared; Load and Resolve are safe for concurrent use.
package fabric
