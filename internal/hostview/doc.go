// Package hostview is how fabricctl shows a host's configuration state: the
// reports of `fabricctl host show|plan|apply|recover` and `fabricctl
// recover`, as the JSON and YAML documents they print (Report types with
// apiVersion) and as table rows for people.
//
//	rep := hostview.ApplyReport{APIVersion: fabric.APIVersion, Host: p.Host, Plan: p}
//	output.Write(os.Stdout, format, rep, rep.Table)
//
// Everything here is pure (no I/O beyond the TableWriter it is given) and
// safe for concurrent use.
package hostview
