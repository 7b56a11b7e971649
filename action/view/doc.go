// Package view is how fabricctl shows what a command did or would do, for
// people (table rows) and programs (JSON and YAML documents with
// apiVersion): PlanTable and ResultTable are the tables of `fabricctl
// plan`, `drift` and `apply`; WritePrometheus is drift's textfile for
// node_exporter; the host reports are those of `fabricctl host show|plan|apply|recover` and `fabricctl
// recover`, as the JSON and YAML documents they print (Report types with
// apiVersion) and as table rows for people.
//
//	rep := view.ApplyReport{APIVersion: fabric.APIVersion, Host: p.Host, Plan: p}
//	output.Write(os.Stdout, format, rep, rep.Table)
//
// Everything here is pure (no I/O beyond the TableWriter it is given) and
// safe for concurrent use.
package view
