package perftest

import "errors"

// Sentinels for errors.Is.
var (
	// ErrUnknownTest: a test name that is not one of the eight ib_* binaries.
	ErrUnknownTest = errors.New("unknown perftest test")
	// ErrNoOutput: the input holds nothing perftest prints (no banner, header,
	// result row or known error line).
	ErrNoOutput = errors.New("no perftest output found")
	// ErrBadJSON: an --out_json file that cannot be read even leniently.
	ErrBadJSON = errors.New("unreadable perftest JSON")
	// ErrBadSpec: a Spec that would give perftest a command line it rejects.
	ErrBadSpec = errors.New("invalid perftest spec")
)
