package checks

import "errors"

// ErrUnknownStatus is returned when a status string is not one of the five statuses.
var ErrUnknownStatus = errors.New("unknown status")
