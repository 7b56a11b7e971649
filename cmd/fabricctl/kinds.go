package main

import (
	"reflect"
	"slices"
	"strings"

	"github.com/fabricctl/fabricctl/action/counters"
	"github.com/fabricctl/fabricctl/action/render"
	"github.com/fabricctl/fabricctl/action/starter"
	"github.com/fabricctl/fabricctl/action/validate"
	"github.com/fabricctl/fabricctl/action/view"
	"github.com/fabricctl/fabricctl/checks/analyze"
	"github.com/fabricctl/fabricctl/checks/nccl"
	"github.com/fabricctl/fabricctl/checks/report"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/hostcfg"
	"github.com/fabricctl/fabricctl/internal/jsonschema"
)

// outputKind is one kind of document fabricctl prints with -o json (or
// yaml): its "kind" member, the Go type it is written from, and the
// commands that print it.
type outputKind struct {
	kind     string
	typ      reflect.Type
	commands string
}

// checkDocument is the JSON form of a check report (report.WriteJSON):
// the report and its summary.
type checkDocument struct {
	*report.Report
	Summary report.Summary `json:"summary"`
}

// outputKinds lists every kind of output document, sorted by kind. Add a
// command's document here: schema --output-kind prints its schema, and
// TestOutputDocumentsMatchSchemas holds real output to it.
func outputKinds() []outputKind {
	ks := []outputKind{
		{fabric.KindPlan, reflect.TypeFor[fabric.Plan](), "plan, drift"},
		{fabric.KindApplyResult, reflect.TypeFor[fabric.Result](), "apply"},
		{view.KindFleetRecoverReport, reflect.TypeFor[view.FleetRecoverReport](), "recover"},
		{validate.Kind, reflect.TypeFor[validate.Result](), "validate"},
		{render.ResultKind, reflect.TypeFor[render.Result](), "render"},
		{starter.ResultKind, reflect.TypeFor[starter.Result](), "init"},
		{versionKind, reflect.TypeFor[versionInfo](), "version"},
		{report.Kind, reflect.TypeFor[checkDocument](), "check, check --local, check --slurm"},
		{analyze.ReportKind, reflect.TypeFor[analyze.Report](), "analyze"},
		{nccl.ReportKind, reflect.TypeFor[nccl.Report](), "nccl analyze"},
		{hostcfg.KindObserved, reflect.TypeFor[hostcfg.Observed](), "host show"},
		{hostcfg.KindPlan, reflect.TypeFor[hostcfg.Plan](), "host plan"},
		{view.KindApplyReport, reflect.TypeFor[view.ApplyReport](), "host apply"},
		{view.KindRecoverReport, reflect.TypeFor[view.RecoverReport](), "host recover"},
		{fabric.KindSwitchIntent, reflect.TypeFor[fabric.SwitchIntent](), "switch parse (-o json)"},
		{counters.KindReport, reflect.TypeFor[counters.Report](), "counters"},
	}
	slices.SortFunc(ks, func(a, b outputKind) int { return strings.Compare(a.kind, b.kind) })
	return ks
}

// outputKindNames are the kinds of outputKinds, sorted.
func outputKindNames() []string {
	var names []string
	for _, k := range outputKinds() {
		names = append(names, k.kind)
	}
	return names
}

// outputSchema is the JSON Schema of the document of kind k.
func outputSchema(k outputKind) map[string]any {
	return jsonschema.Generate(k.typ, jsonschema.Options{
		ID:          "https://fabricctl.io/schema/" + strings.TrimPrefix(fabric.APIVersion, "fabricctl.io/") + "/" + k.kind + ".json",
		Title:       "fabricctl " + k.kind + " (" + fabric.APIVersion + ")",
		Description: "The document printed with -o json or -o yaml by: " + k.commands + ".",
		Kind:        k.kind,
		APIVersion:  fabric.APIVersion,
		Special: map[reflect.Type]map[string]any{
			reflect.TypeFor[fabric.SwitchMTU](): {"description": "a switch MTU in bytes, or \"max\" for each switch model's largest",
				"anyOf": []any{map[string]any{"type": "integer", "minimum": 1}, map[string]any{"const": "max"}}},
		},
	})
}
