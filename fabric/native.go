package fabric

// NativeDiff is what a push would change on a switch, in the switch's own
// configuration language: the managed sections as the switch reads back,
// rendered natively by its driver, against the rendering of the desired
// intent. It is a view of the plan, never what decides it (plans compare
// canonical structures, not text).
type NativeDiff struct {
	// Platform is the switch's platform ("cumulus-nvue", "junos", …).
	Platform string `json:"platform"`
	// Format is the rendering's (switchcfg.Config.Format): "commands",
	// "json" or "set".
	Format string `json:"format"`
	// From and To label the two sides of Diff.
	From string `json:"from"`
	To   string `json:"to"`
	// Diff is a unified diff (three lines of context) from From to To; ""
	// when both render alike.
	Diff string `json:"diff"`
	// Notes say what the rendering of the read-back cannot show: a
	// reading that does not render (every desired line is then added),
	// ports whose settings differ from the rest, input left unparsed.
	Notes []string `json:"notes,omitempty"`
}

// NativeDiffer is implemented by targets that can say, after Plan, what a
// push would change in native configuration (switches).
type NativeDiffer interface {
	// NativeDiff returns the native diff of the reading the last Plan
	// made, or nil when there is none.
	NativeDiff() *NativeDiff
}
