// Package output writes command results in the formats every command shares:
// table (aligned text for people), json (indented, with apiVersion, for
// programs) and yaml.
//
//	output.Write(os.Stdout, "json", result, func(t *output.Table) { t.Row("a", "b") })
//
// Functions here hold no state and are safe for concurrent use.
package output
