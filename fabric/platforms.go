package fabric

// Platforms tells the validator the facts of the switch platforms and
// subnet-manager kinds that exist. fabric itself knows no platform: the
// caller injects them, and switchcfg's Registry (switchcfg/all.Registry())
// satisfies this interface.
type Platforms interface {
	// Names returns the registered platform names, sorted.
	Names() []string
	// CheckPort reports whether port is a valid port name on platform.
	CheckPort(platform, port string) error
	// SubnetManagerKinds returns the registered subnet-manager kinds, sorted.
	SubnetManagerKinds() []string
	// PartitionsFileProblem says why a subnet manager of kind takes no
	// partitionsFile; "" when it reads one.
	PartitionsFileProblem(kind string) string
}

// SwitchChecker is implemented by Platforms that can tell what a platform
// cannot render of a switch's resolved intent (its limits: class names,
// queues, watchdog times, …). Validation reports those errors, so that
// whatever validates also renders.
type SwitchChecker interface {
	// CheckSwitch returns nil when intent renders on intent.Platform, or
	// the renderer's error (errors.Join of one error per problem).
	CheckSwitch(intent SwitchIntent) error
}

// SwitchModels is implemented by Platforms that know the hardware models
// of their switch platforms (switchcfg's Registry does). Validation checks a
// switch's model and its explicit switchMtu against the model's range;
// resolution turns `switchMtu: max` (and an unset switchMtu above the
// model's largest) into the model's largest MTU.
type SwitchModels interface {
	// SwitchModel returns the facts of model on platform; model "" is the
	// platform's default model. An unknown model is an error that lists
	// the valid ones.
	SwitchModel(platform, model string) (ModelLimits, error)
}

// ModelLimits are the facts of a switch model that validation and
// resolution need.
type ModelLimits struct {
	// Model is the model's canonical name ("strata"), Description its
	// hardware in words.
	Model, Description string
	// MinMTU and MaxMTU bound the port MTU.
	MinMTU, MaxMTU int
}

// FieldError is a renderer's error about one field of the switch's
// profile, which validation then locates at that field: Field is the path
// under spec.ethernet ("pfc.watchdog.pollInterval",
// "classes[0].ecn.minThreshold"). Renderers return it (through AtField)
// for the ranges and references their platform's own validator enforces,
// so a user hears before the push, at the line to change, what the switch
// would refuse.
type FieldError struct {
	Field string
	Err   error
}

func (e *FieldError) Error() string { return e.Err.Error() }
func (e *FieldError) Unwrap() error { return e.Err }

// AtField wraps err as a FieldError at field (under spec.ethernet); nil
// stays nil.
func AtField(field string, err error) error {
	if err == nil {
		return nil
	}
	return &FieldError{Field: field, Err: err}
}
