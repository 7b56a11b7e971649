package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/hostcfg"
)

// Limits on what a request may carry (docs/agent-protocol.md, "Limits").
const (
	// MaxRequestBytes bounds one request as it arrives on stdin. The
	// largest legitimate requests — an apply carrying a GPU server's
	// desired state, a preflight naming every other host of a
	// 20,000-host fabric — stay under a quarter of it.
	MaxRequestBytes = 4 << 20
	// MaxNameBytes bounds every id, op and name a request carries: the
	// request's id and op (echoed in the reply), journal and perftest ids,
	// device, port and interface names.
	MaxNameBytes = fabric.MaxNameBytes
)

// ErrBadRequest is wrapped by an error that is the request's fault: args
// that do not decode, a field out of range, a device the host does not
// have. A registered op returning one is answered with ErrorBadRequest
// instead of ErrorOp.
var ErrBadRequest = errors.New("bad request")

// BadRequest marks err as the request's fault (errors.Is(err,
// ErrBadRequest)) without changing its message. It returns nil for nil.
func BadRequest(err error) error {
	if err == nil {
		return nil
	}
	return badRequest{err}
}

type badRequest struct{ err error }

func (e badRequest) Error() string   { return e.err.Error() }
func (e badRequest) Unwrap() []error { return []error{e.err, ErrBadRequest} }

func badf(format string, a ...any) error { return BadRequest(fmt.Errorf(format, a...)) }

// DecodeArgs decodes a registered op's args into v strictly: an unknown
// field, a value of the wrong type or out of its type's range, and
// anything after the one JSON value are errors, as are absent args (or
// null). Every error wraps ErrBadRequest.
func DecodeArgs(raw json.RawMessage, v any) error {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return badf("decoding arguments: none given")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return badf("decoding arguments: %w", clipErr(err))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return badf("decoding arguments: more data after the JSON value at byte %d", dec.InputOffset())
	}
	return nil
}

// NoArgs checks the args of an op that takes none: absent, null or {}.
func NoArgs(raw json.RawMessage) error {
	if t := bytes.TrimSpace(raw); len(t) == 0 || string(t) == "null" {
		return nil
	}
	return DecodeArgs(raw, &struct{}{})
}

// clipErr cuts the message of an error that quotes its input at length
// (a decoder naming a 1 MiB unknown field) to 512 bytes; errors.Is and As
// still see the original.
func clipErr(err error) error {
	const keep = 512
	msg := err.Error()
	if len(msg) <= keep {
		return err
	}
	cut := keep
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return clipped{msg: fmt.Sprintf("%s… (%d bytes)", msg[:cut], len(msg)), err: err}
}

type clipped struct {
	msg string
	err error
}

func (c clipped) Error() string { return c.msg }
func (c clipped) Unwrap() error { return c.err }

// Clip quotes s for an error message, cut to its first 64 bytes when it is
// longer (fabric.Clip).
func Clip(s string) string { return fabric.Clip(s) }

// CheckText refuses a string field that is longer than max bytes, not
// UTF-8, or holds a control character (fabric.CheckText), as a bad request.
func CheckText(field, s string, max int) error { return BadRequest(fabric.CheckText(field, s, max)) }

// CheckName refuses a device, port or interface name that cannot be one
// file name below /sys (fabric.CheckName), as a bad request. It runs before
// any lookup.
func CheckName(field, name string) error { return BadRequest(fabric.CheckName(field, name)) }

// CheckRange refuses a number outside lo..hi, naming the field, as a bad
// request.
func CheckRange(field string, v, lo, hi int64) error {
	return BadRequest(fabric.CheckRange(field, v, lo, hi))
}

// CheckIntent refuses a desired state whose names could leave their sysfs
// directory or whose numbers are outside their settings' ranges
// (HostIntent.Check), as a bad request; field names it in the messages
// ("desired", "intent"). A well-formed name the host lacks is not refused:
// observe, plan and preflight report it as missing, which is what they are
// for.
func CheckIntent(field string, hi *fabric.HostIntent) error { return BadRequest(hi.Check(field)) }

// CheckKnown refuses a name that is not among known, the host's own list
// of what (e.g. "RDMA device"), naming the ones it has.
func CheckKnown(field, name, what string, known []string) error {
	for _, k := range known {
		if k == name {
			return nil
		}
	}
	has := "it has none"
	if len(known) > 0 {
		const show = 16
		has = "it has " + strings.Join(known[:min(len(known), show)], ", ")
		if len(known) > show {
			has += fmt.Sprintf(", … (%d in all)", len(known))
		}
	}
	return badf("%s %s: this host has no such %s (%s)", field, Clip(name), what, has)
}

// CheckPlan refuses a plan (rollback's) whose interfaces could leave their
// sysfs directory: each is a netdev name, or DEVICE/PORT for the settings
// of an RDMA port.
func CheckPlan(field string, p *hostcfg.Plan) error {
	var errs []error
	if err := CheckText(field+".host", p.Host, 255); err != nil {
		errs = append(errs, err)
	}
	for i, c := range p.Changes {
		f := fmt.Sprintf("%s.changes[%d].interface", field, i)
		dev, port, isPort := strings.Cut(c.Interface, "/")
		if !isPort {
			errs = append(errs, CheckName(f, c.Interface))
			continue
		}
		if n, err := strconv.Atoi(port); CheckName(f, dev) != nil || err != nil || n < 1 || strconv.Itoa(n) != port {
			errs = append(errs, badf("%s %s is neither a netdev nor DEVICE/PORT", f, Clip(c.Interface)))
		}
	}
	return BadRequest(errors.Join(errs...))
}
