// Package output writes command results in the formats every command shares:
// table (aligned text for people), json (indented, with apiVersion, for
// programs) and yaml. OneLine puts a text on one bounded line for one-line readers (a
// health check's answer, a Slurm drain reason). OrDash fills an empty cell; LogErrors writes
// an error's lines as "fabricctl: " log lines. MarshalJSON is encoding/json's output, indented
// compactly, without its reflection cost. The tables of particular commands (plan, drift,
// apply, host show) are action/view's; output imports nothing of fabricctl.
//
//	output.Write(os.Stdout, "json", result, func(t *output.Table) { t.Row("a", "b") })
//
// Functions here hold no state and are safe for concurrent use.
package output
