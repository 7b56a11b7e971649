package fabric

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Clip quotes s for an error message, cut to its first 64 bytes when it is
// longer (the message then says how long it was): what an input sent is
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

// CheckText refuses a string field that is longer than max bytes, not
// UTF-8, or holds a control character (NUL, newline, ESC, DEL…).
func CheckText(field, s string, max int) error {
	switch {
	case len(s) > max:
		return fmt.Errorf("%s is %d bytes, longer than %d", field, len(s), max)
	case !utf8.ValidString(s):
		return fmt.Errorf("%s %s is not UTF-8", field, Clip(s))
	case strings.IndexFunc(s, unicode.IsControl) >= 0:
		return fmt.Errorf("%s %s holds a control character", field, Clip(s))
	}
	return nil
}

// MaxNameBytes bounds a device, port or interface name read from outside:
// Linux's own are at most 15 (netdevs) and 63 bytes (RDMA devices).
const MaxNameBytes = 128

// CheckName refuses a device, port or interface name that cannot be one
// file name below /sys: empty, ".", "..", holding '/', NUL or another
// control character, not UTF-8, or longer than MaxNameBytes. It runs before
// any lookup.
func CheckName(field, name string) error {
	if name == "" {
		return fmt.Errorf("%s is empty", field)
	}
	if err := CheckText(field, name, MaxNameBytes); err != nil {
		return err
	}
	if name == "." || name == ".." || strings.ContainsRune(name, '/') {
		return fmt.Errorf("%s %s is not a name: it would leave the directory it names", field, Clip(name))
	}
	return nil
}

// CheckRange refuses a number outside lo..hi, naming the field.
func CheckRange(field string, v, lo, hi int64) error {
	if v >= lo && v <= hi {
		return nil
	}
	if lo == 0 && v < 0 {
		return fmt.Errorf("%s %d is negative", field, v)
	}
	return fmt.Errorf("%s %d is outside %d..%d", field, v, lo, hi)
}

// Check refuses a host intent read from outside (a desired-state file, an
// agent request) whose names could leave their sysfs directory or whose
// numbers are outside their settings' ranges; field names it in the
// messages ("desired", "intent"). Every problem is one line of the joined
// error. A well-formed name the host lacks is not refused here.
func (hi *HostIntent) Check(field string) error {
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	add(CheckText(field+".host", hi.Host, 255))
	for i, in := range hi.Interfaces {
		f := fmt.Sprintf("%s.interfaces[%d]", field, i)
		if in.Name != AllRDMANetdevs {
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
	return errors.Join(errs...)
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
