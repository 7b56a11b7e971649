package checks

import "errors"

// ErrUnknownStatus is returned when a status string is not one of the five statuses.
var ErrUnknownStatus = errors.New("unknown status")

// ErrNoHosts: the fabric (or the selection of its hosts) has no hosts to check.
var ErrNoHosts = errors.New("no hosts to check")
