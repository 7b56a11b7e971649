package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"
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
	MaxNameBytes = 128
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

// Clip quotes s for an error message, cut to its first 64 bytes when it is
// longer (the message then says how long it was): what a request sent is
// never echoed at length.
func Clip(s string) string {
	const keep = 64
	if len(s) <= keep {
		return strconv.Quote(s)
	}
	cut := keep
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(s[:cut]), len(s))
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

// CheckText refuses a string field that is longer than max bytes, not
// UTF-8, or holds a control character (NUL, newline, ESC, DEL…).
func CheckText(field, s string, max int) error {
	switch {
	case len(s) > max:
		return badf("%s is %d bytes, longer than %d", field, len(s), max)
	case !utf8.ValidString(s):
		return badf("%s %s is not UTF-8", field, Clip(s))
	case strings.IndexFunc(s, unicode.IsControl) >= 0:
		return badf("%s %s holds a control character", field, Clip(s))
	}
	return nil
}

// CheckName refuses a device, port or interface name that cannot be one
// file name below /sys: empty, ".", "..", holding '/', NUL or another
// control character, not UTF-8, or longer than MaxNameBytes. It runs before
// any lookup.
func CheckName(field, name string) error {
	if name == "" {
		return badf("%s is empty", field)
	}
	if err := CheckText(field, name, MaxNameBytes); err != nil {
		return err
	}
	if name == "." || name == ".." || strings.ContainsRune(name, '/') {
		return badf("%s %s is not a name: it would leave the directory it names", field, Clip(name))
	}
	return nil
}

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

// CheckRange refuses a number outside lo..hi, naming the field.
func CheckRange(field string, v, lo, hi int64) error {
	if v >= lo && v <= hi {
		return nil
	}
	if lo == 0 && v < 0 {
		return badf("%s %d is negative", field, v)
	}
	return badf("%s %d is outside %d..%d", field, v, lo, hi)
}

// CheckIntent refuses a desired state whose names could leave their sysfs
// directory or whose numbers are outside their settings' ranges; field
// names it in the messages ("desired", "intent"). Every problem is one
// line of the joined error. A well-formed name the host lacks is not
// refused: observe, plan and preflight report it as missing, which is
// what they are for.
func CheckIntent(field string, hi *fabric.HostIntent) error {
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	add(CheckText(field+".host", hi.Host, 255))
	for i, in := range hi.Interfaces {
		f := fmt.Sprintf("%s.interfaces[%d]", field, i)
		if in.Name != fabric.AllRDMANetdevs {
			add(CheckName(f+".name", in.Name))
		}
		add(CheckRange(f+".mtu", int64(in.MTU), 0, 65535))
		add(prios(f+".pfc.priorities", in.PFC.Priorities))
		add(prios(f+".ecn.priorities", in.ECN.Priorities))
		for p, tc := range in.ETS.PrioTC {
			add(CheckRange(fmt.Sprintf("%s.ets.prioTc[%d]", f, p), int64(tc), 0, 7))
		}
		for c, bw := range in.ETS.Bandwidth {
			add(CheckRange(fmt.Sprintf("%s.ets.bandwidth[%d]", f, c), int64(bw), 0, 100))
		}
		for k, e := range in.DSCPMap {
			add(CheckRange(fmt.Sprintf("%s.dscpMap[%d].dscp", f, k), int64(e.DSCP), 0, 63))
			add(CheckRange(fmt.Sprintf("%s.dscpMap[%d].priority", f, k), int64(e.Priority), 0, 7))
		}
		add(CheckRange(f+".cnp.dscp", int64(in.CNP.DSCP), 0, 63))
		add(CheckRange(f+".cnp.priority", int64(in.CNP.Priority), 0, 7))
		add(CheckRange(f+".roce.tos", int64(in.RoCE.ToS), 0, 255))
		for _, pt := range []struct {
			name   string
			params map[string]int
		}{{"np", in.DCQCN.NP}, {"rp", in.DCQCN.RP}} {
			for _, name := range slices.Sorted(maps.Keys(pt.params)) {
				pf := f + ".dcqcn." + pt.name
				if err := CheckName(pf, name); err != nil {
					add(err)
					continue
				}
				add(CheckRange(fmt.Sprintf("%s[%q]", pf, name), int64(pt.params[name]), 0, 1<<31-1))
			}
		}
	}
	for i, p := range hi.Partitions {
		add(CheckText(fmt.Sprintf("%s.partitions[%d].name", field, i), p.Name, 255))
	}
	return BadRequest(errors.Join(errs...))
}

func prios(field string, ps []int) error {
	var errs []error
	for i, p := range ps {
		if err := CheckRange(fmt.Sprintf("%s[%d]", field, i), int64(p), 0, 7); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
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
