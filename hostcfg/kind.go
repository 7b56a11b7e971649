package hostcfg

// Kinds of the documents `fabricctl host show` and `host plan` print, next
// to their apiVersion (output.Write adds the member). A plan inside another
// document (an apply's undo, the agent's reply) carries no kind.
const (
	// KindObserved is what host show prints.
	KindObserved = "HostState"
	// KindPlan is what host plan prints.
	KindPlan = "HostPlan"
)

// DocumentKind is KindObserved.
func (Observed) DocumentKind() string { return KindObserved }

// DocumentKind is KindPlan.
func (Plan) DocumentKind() string { return KindPlan }
