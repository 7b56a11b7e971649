package fabric

// Kinds of the documents fabricctl prints from this package's types, next
// to their apiVersion (output.Write adds the member; fabricctl schema
// --output-kind prints each one's schema).
const (
	// KindPlan is what plan and drift print: drift is a plan read for
	// differences, one document for both.
	KindPlan = "Plan"
	// KindApplyResult is what apply prints with -o json or yaml.
	KindApplyResult = "ApplyResult"
	// KindSwitchIntent is what switch parse prints with -o json.
	KindSwitchIntent = "SwitchIntent"
)

// DocumentKind is KindPlan.
func (Plan) DocumentKind() string { return KindPlan }

// DocumentKind is KindApplyResult.
func (Result) DocumentKind() string { return KindApplyResult }

// DocumentKind is KindSwitchIntent.
func (SwitchIntent) DocumentKind() string { return KindSwitchIntent }
