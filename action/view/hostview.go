package view

import (
	"fmt"
	"strings"

	"github.com/fabricctl/fabricctl/agent/agentclient"
	"github.com/fabricctl/fabricctl/hostcfg"
	"github.com/fabricctl/fabricctl/hostcfg/journal"
	"github.com/fabricctl/fabricctl/internal/output"
)

// ApplyReport is what `fabricctl host apply` prints.
type ApplyReport struct {
	APIVersion string          `json:"apiVersion"`
	Host       string          `json:"host"`
	DryRun     bool            `json:"dryRun"`
	Plan       hostcfg.Plan    `json:"plan"`
	Result     *hostcfg.Result `json:"result,omitempty"`
	// Remaining is what a fresh plan still finds after the apply.
	Remaining []hostcfg.Change `json:"remaining,omitempty"`
	// Recovered is an interrupted earlier apply rolled back before this
	// one was planned.
	Recovered *journal.Recovered `json:"recovered,omitempty"`
}

// RecoverReport is what `fabricctl host recover` prints.
type RecoverReport struct {
	APIVersion string              `json:"apiVersion"`
	Recovered  []journal.Recovered `json:"recovered"`
}

// Table writes the report's rows.
func (r RecoverReport) Table(t *output.TableWriter) {
	all := r.Recovered
	if len(all) == 0 {
		t.Row("nothing to recover: no interrupted apply is journaled")
		return
	}
	t.Row("RESULT", "INTERFACE", "SETTING", "OLD", "NEW", "BACKEND")
	for _, r := range all {
		t.Row("journal", r.Record.Host, r.Record.Summary(), "", "", "")
		for _, c := range r.Result.Applied {
			t.Row("restored", c.Interface, c.Setting, c.Old, c.New, c.Backend)
		}
		for _, c := range r.Result.Unchanged {
			t.Row("unchanged", c.Interface, c.Setting, c.Old, c.New, c.Backend)
		}
		for _, f := range r.Result.Failed {
			t.Row("failed", f.Interface, f.Setting, f.Old, f.New, f.Error)
		}
	}
}

// Observed writes the rows of `fabricctl host show`: every setting with
// its backend and value, or why it is unsupported.
func Observed(t *output.TableWriter, obs hostcfg.Observed) {
	t.Row("INTERFACE", "SETTING", "BACKEND", "VALUE")
	if len(obs.Interfaces)+len(obs.Ports) == 0 {
		t.Row("-", "-", "-", "no netdev with an RDMA device on this host; name netdevs to show them")
	}
	for _, i := range obs.Interfaces {
		head := i.Name
		if i.Error != "" {
			t.Row(head, "-", "-", "error: "+i.Error)
			continue
		}
		t.Row(head, "driver", "-", output.OrDash(i.Driver)+" "+output.OrDash(i.BusID))
		if r := i.RDMA; r != nil {
			t.Row(head, "rdma", "sysfs", fmt.Sprintf("%s/%d %s %s %s", r.Device, r.Port.Port, r.State, r.LinkLayer, r.Rate))
			gid := "none"
			if r.RoCEv2IPv4GIDIndex >= 0 {
				gid = fmt.Sprint(r.RoCEv2IPv4GIDIndex)
			}
			t.Row(head, "gid.roce-v2-ipv4", "sysfs", gid)
		}
		for _, s := range i.Settings {
			t.Row(head, s.Setting, output.OrDash(s.Backend), settingText(s))
		}
	}
	for _, p := range obs.Ports {
		t.Row(p.Name, "pkeys", hostcfg.BackendSysfsPKeys, strings.Join(p.PKeys, ","))
		for _, s := range p.Settings {
			t.Row(p.Name, s.Setting, output.OrDash(s.Backend), settingText(s))
		}
	}
}

func settingText(s hostcfg.SettingState) string {
	switch {
	case s.Error != "":
		return "error: " + s.Error
	case s.Unsupported != "":
		return "unsupported: " + s.Unsupported
	}
	return s.Value
}

// Plan writes the rows of `fabricctl host plan`: each change, marking the
// disruptive ones, then the plan's issues.
func Plan(t *output.TableWriter, p hostcfg.Plan) {
	if len(p.Changes) == 0 {
		t.Row("no changes on " + p.Host)
	} else {
		t.Row("INTERFACE", "SETTING", "OLD", "NEW", "BACKEND", "NOTE")
		for _, c := range p.Changes {
			note := ""
			if c.Disruptive {
				note = "DISRUPTIVE: " + c.Reason
			}
			t.Row(c.Interface, c.Setting, c.Old, c.New, c.Backend, note)
		}
	}
	for _, i := range p.Issues {
		t.Row(i.Interface, output.OrDash(i.Setting), "", "", output.OrDash(i.Backend), i.Kind+": "+i.Reason)
	}
	t.Row(fmt.Sprintf("%d change(s), %d issue(s)", len(p.Changes), len(p.Issues)))
}

// Table writes the report's rows: the plan when nothing was applied, else
// each setting's outcome.
func (o ApplyReport) Table(t *output.TableWriter) {
	if o.Result == nil {
		Plan(t, o.Plan)
		if o.DryRun {
			t.Row("dry run: nothing changed")
		}
		return
	}
	r := o.Result
	t.Row("RESULT", "INTERFACE", "SETTING", "OLD", "NEW", "BACKEND")
	if rec := o.Recovered; rec != nil {
		for _, c := range rec.Result.Applied {
			t.Row("recovered", c.Interface, c.Setting, c.Old, c.New, c.Backend)
		}
	}
	for _, c := range r.Applied {
		t.Row("applied", c.Interface, c.Setting, c.Old, c.New, c.Backend)
	}
	for _, c := range r.RolledBack {
		t.Row("rolled-back", c.Interface, c.Setting, c.Old, c.New, c.Backend)
	}
	for _, f := range r.Failed {
		t.Row("failed", f.Interface, f.Setting, f.Old, f.New, f.Error)
	}
	for _, i := range r.Unsupported {
		t.Row("unsupported", i.Interface, i.Setting, i.Observed, i.Desired, i.Reason)
	}
	for _, c := range o.Remaining {
		t.Row("still-differs", c.Interface, c.Setting, c.Old, c.New, c.Backend)
	}
	for _, i := range o.Plan.Issues {
		t.Row(i.Kind, i.Interface, output.OrDash(i.Setting), "", "", i.Reason)
	}
	t.Row(fmt.Sprintf("%d applied, %d unchanged, %d rolled back, %d failed, %d still differ",
		len(r.Applied), len(r.Unchanged), len(r.RolledBack), len(r.Failed), len(o.Remaining)))
}

// FleetRecoverReport is what `fabricctl recover` prints: one entry per host.
type FleetRecoverReport struct {
	APIVersion string                  `json:"apiVersion"`
	Hosts      []agentclient.Recovered `json:"hosts"`
	// Errors holds each host's error (nil when it recovered or had nothing
	// pending), in Hosts' order; the table shows them.
	Errors []error `json:"-"`
}

// Table writes the report's rows.
func (o FleetRecoverReport) Table(t *output.TableWriter) {
	t.Row("HOST", "RESULT", "INTERFACE", "SETTING", "OLD", "NEW")
	for i, r := range o.Hosts {
		switch {
		case i < len(o.Errors) && o.Errors[i] != nil:
			t.Row(r.Host, "ERROR", "-", "-", "-", o.Errors[i].Error())
		case r.Journal == nil:
			t.Row(r.Host, "nothing to recover", "-", "-", "-", "-")
		default:
			t.Row(r.Host, "journal", "-", r.Journal.Summary(), "-", "-")
		}
		if r.Result == nil {
			continue
		}
		for _, c := range r.Result.Applied {
			t.Row(r.Host, "restored", c.Interface, c.Setting, c.Old, c.New)
		}
		for _, f := range r.Result.Failed {
			t.Row(r.Host, "failed", f.Interface, f.Setting, f.Old, f.Error)
		}
	}
}
