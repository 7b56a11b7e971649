// Package output writes command results in the formats every command shares:
// table (aligned text for people), json (indented, with apiVersion, for
// programs) and yaml. OneLine puts a text on one bounded line for one-line readers (a
// health check's answer, a Slurm drain reason). PlanTable and ResultTable are the tables of
// `fabricctl plan`, `drift` and `apply`; OrDash fills an empty cell; LogErrors writes an
// error's lines as "fabricctl: " log lines. Confirm asks a yes/no question on a terminal
// (IsTerminal) and refuses to guess otherwise.
//
//	output.Write(os.Stdout, "json", result, func(t *output.Table) { t.Row("a", "b") })
//
// Functions here hold no state and are safe for concurrent use (Confirm reads the reader it
// is given).
package output
