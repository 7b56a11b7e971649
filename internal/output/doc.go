// Package output writes command results in the formats every command shares:
// table (aligned text for people), wide (the table with every column, in
// full), json (indented, with apiVersion, for programs) and yaml. OneLine puts a text on one
// bounded line for one-line readers (a health check's answer, a Slurm drain reason). OrDash
// fills an empty cell; LogErrors writes an error's lines as "fabricctl: " log lines.
// MarshalJSON is encoding/json's output, indented compactly, without its reflection cost. The
// tables of particular commands (plan, drift, apply, host show) are action/view's; output
// imports nothing of fabricctl.
//
// A TableWriter lays its rows out for a Term: how wide the terminal is (the last cell of a
// row wraps beyond it, indented under its column; no line ends in spaces), whether the
// table is -o wide, and whether status words are in colour. DetectTerm works the Term out
// for a command's stdout, its --color flag and the environment (COLUMNS, NO_COLOR); a
// Terminal carries it on the writer, so that every table printed there (NewTable, Write)
// follows it. Width, Wrap and Cut measure, wrap and shorten text in terminal columns.
//
//	output.Write(os.Stdout, "json", result, func(t *output.TableWriter) { t.Row("a", "b") })
//
// Functions here hold no state and are safe for concurrent use; a TableWriter is not.
package output
