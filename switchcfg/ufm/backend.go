package ufm

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"
	"github.com/fabricctl/fabricctl/switchcfg/opensm"
)

// ErrVerify: after applying, UFM's table differs from the desired one; the
// change was rolled back.
var ErrVerify = errors.New("verification failed")

// Defaults are the values UFM gives a pkey created without them (mtu_limit 2
// = 2048, rate_limit 2.5 Gb/s = code 2, SL 0, membership full); Compare uses
// them so that an intent leaving a field unset shows no drift.
var Defaults = opensm.Defaults{MTUCode: 4, RateCode: 2, ServiceLevel: 0, Membership: "full"}

// Backend manages a subnet manager's partitions through UFM's REST API. It
// owns the pkeys the intent lists; other pkeys are left alone (UFM is often
// shared, e.g. with Kubernetes IB plugins) unless Prune is set, and the
// management pkey 0x7fff is always UFM's own.
type Backend struct {
	Client *Client
	// Prune deletes pkeys the intent does not list (never 0x7fff).
	Prune bool
	// Index0 asks UFM to put each managed pkey at index 0 of its members'
	// pkey tables.
	Index0 bool
}

// Result reports what Apply did.
type Result struct {
	Changed    bool          `json:"changed"`
	Diffs      []opensm.Diff `json:"diffs,omitempty"` // before the change
	RolledBack bool          `json:"rolledBack,omitempty"`
}

// Desired is the partition table the backend manages for sm: opensm.Desired
// without the default partition. It rejects what UFM's REST API cannot
// express, with errors wrapping switchcfg.ErrNotSupported: keyword members
// (ALL, SELF, …), "both" memberships, partitions without a pkey, the 0x7fff
// partition, and MTUs other than 2048 and 4096.
func Desired(sm fabric.SubnetManagerIntent, guids map[string][]string) ([]fabric.PartitionIntent, error) {
	for _, p := range sm.Partitions {
		if p.PKey&0x7fff == opensm.DefaultPKey {
			return nil, fmt.Errorf("partition %q: %w: UFM manages the default partition 0x7fff itself", p.Name, switchcfg.ErrNotSupported)
		}
	}
	all, err := opensm.Desired(sm.Partitions, guids)
	if err != nil {
		return nil, err
	}
	var out []fabric.PartitionIntent
	var errs []error
	for _, p := range all {
		if p.PKey == opensm.DefaultPKey {
			continue
		}
		bad := func(format string, args ...any) {
			errs = append(errs, fmt.Errorf("partition %q: %w: "+format, append([]any{p.Name, switchcfg.ErrNotSupported}, args...)...))
		}
		if p.PKey == 0 {
			bad("UFM needs an explicit pkey")
		}
		if p.MTU != 0 && p.MTU != 2048 && p.MTU != 4096 {
			bad("UFM's mtu_limit takes 2048 or 4096, not %d", p.MTU)
		}
		for _, m := range p.Members {
			switch {
			case m.Special != "":
				bad("UFM's REST API takes port GUIDs, not %s", m.Special)
			case m.Membership == "both":
				bad("UFM memberships are full or limited, not both (%s)", m.GUID)
			}
		}
		out = append(out, p)
	}
	return out, errors.Join(errs...)
}

// Observe returns UFM's pkeys as partitions (0x7fff included), sorted by pkey.
func (b *Backend) Observe(ctx context.Context) ([]fabric.PartitionIntent, error) {
	live, err := b.Client.ListPKeys(ctx)
	if err != nil {
		return nil, fmt.Errorf("observing %v: %w", b.Client, err)
	}
	return toIntents(live)
}

// decodePKeys turns a GET .../pkeys reply into partitions.
func decodePKeys(data []byte) ([]fabric.PartitionIntent, error) {
	live, err := parsePKeyMap(data)
	if err != nil {
		return nil, err
	}
	return toIntents(live)
}

func toIntents(live map[uint16]PKey) ([]fabric.PartitionIntent, error) {
	out := make([]fabric.PartitionIntent, 0, len(live))
	for k, p := range live {
		in := fabric.PartitionIntent{Name: p.Partition, PKey: k, IPoIB: p.IPoIB, ServiceLevel: -1, Members: []fabric.PartitionMember{}}
		if p.QoS != nil {
			in.ServiceLevel = p.QoS.ServiceLevel
			if code := fabric.MTUCode(p.QoS.MTULimit * 1024); code != 0 {
				in.MTU, in.MTUCode = p.QoS.MTULimit*1024, code
			}
			if code := fabric.RateCode(p.QoS.RateLimit); code != 0 {
				in.Rate, in.RateCode = p.QoS.RateLimit, code
			}
		}
		for _, m := range p.GUIDs {
			v, err := opensm.ParseGUID(m.GUID)
			if err != nil {
				return nil, fmt.Errorf("pkey %s: UFM returned %w", FormatPKey(k), err)
			}
			in.Members = append(in.Members, fabric.PartitionMember{GUID: opensm.FormatGUID(v), Membership: m.Membership})
		}
		out = append(out, in)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].PKey < out[j].PKey })
	return out, nil
}

// compare is opensm.CompareWith under UFM's defaults, limited to the pkeys
// the backend owns, and without names (UFM names pkeys itself, e.g.
// "api_pkey_0x5", and has no rename call).
func (b *Backend) compare(want, got []fabric.PartitionIntent) []opensm.Diff {
	owned := map[uint16]bool{}
	for _, p := range want {
		owned[p.PKey] = true
	}
	var mine []fabric.PartitionIntent
	for _, p := range got {
		if owned[p.PKey] || (b.Prune && p.PKey != opensm.DefaultPKey) {
			mine = append(mine, p)
		}
	}
	var out []opensm.Diff
	for _, d := range opensm.CompareWith(want, mine, Defaults) {
		if d.Field != "name" {
			out = append(out, d)
		}
	}
	return out
}

// Plan returns how UFM differs from the intent.
func (b *Backend) Plan(ctx context.Context, sm fabric.SubnetManagerIntent, guids map[string][]string) ([]opensm.Diff, error) {
	want, err := Desired(sm, guids)
	if err != nil {
		return nil, fmt.Errorf("planning %s: %w", sm.Name, err)
	}
	got, err := b.Observe(ctx)
	if err != nil {
		return nil, err
	}
	return b.compare(want, got), nil
}

// Apply makes UFM's pkeys match the intent, pkey by pkey: create a missing
// one (POST .../pkeys/add with its QoS and IPoIB flag), set the exact member
// list (PUT .../pkeys), fix QoS (PUT .../pkeys/qos_conf), and with Prune
// delete pkeys the intent does not list. A pkey that must end up without
// members is deleted and created empty (UFM drops a pkey whose last GUID is
// removed). It then reads everything back; any failure restores the touched
// pkeys to what they were (RolledBack) and returns the error, wrapping
// ErrVerify when only the read-back disagreed.
func (b *Backend) Apply(ctx context.Context, sm fabric.SubnetManagerIntent, guids map[string][]string) (Result, error) {
	var res Result
	want, err := Desired(sm, guids)
	if err != nil {
		return res, fmt.Errorf("applying %s: %w", sm.Name, err)
	}
	live, err := b.Client.ListPKeys(ctx)
	if err != nil {
		return res, fmt.Errorf("applying %s: %w", sm.Name, err)
	}
	got, err := toIntents(live)
	if err != nil {
		return res, err
	}
	res.Diffs = b.compare(want, got)
	if len(res.Diffs) == 0 {
		return res, nil
	}
	changed := map[uint16]bool{}
	for _, d := range res.Diffs {
		changed[d.PKey] = true
	}
	var touched []uint16 // in order, for rollback
	err = func() error {
		for _, p := range want {
			if !changed[p.PKey] {
				continue
			}
			touched = append(touched, p.PKey)
			if err := b.put(ctx, p, live); err != nil {
				return err
			}
		}
		if b.Prune {
			wanted := map[uint16]bool{}
			for _, p := range want {
				wanted[p.PKey] = true
			}
			for _, k := range sortedKeys(live) {
				if k != opensm.DefaultPKey && !wanted[k] {
					touched = append(touched, k)
					if err := b.Client.DeletePKey(ctx, k); err != nil {
						return err
					}
				}
			}
		}
		after, err := b.Observe(ctx)
		if err != nil {
			return err
		}
		if d := b.compare(want, after); len(d) != 0 {
			return fmt.Errorf("%w: UFM reads back differently: %v", ErrVerify, d[0])
		}
		return nil
	}()
	res.Changed = len(touched) > 0
	if err == nil {
		return res, nil
	}
	res.RolledBack = true
	return res, fmt.Errorf("applying %s: %w", sm.Name, errors.Join(err, b.restore(ctx, touched, live)))
}

// put makes one pkey on UFM equal p.
func (b *Backend) put(ctx context.Context, p fabric.PartitionIntent, live map[uint16]PKey) error {
	cur, exists := live[p.PKey]
	qos := qosOf(p)
	if exists && len(p.Members) == 0 && (len(cur.GUIDs) > 0 || cur.IPoIB != p.IPoIB) {
		if err := b.Client.DeletePKey(ctx, p.PKey); err != nil {
			return err
		}
		exists = false
	}
	if !exists {
		return b.create(ctx, p.PKey, p.Name, p.IPoIB, qos, members(p, b.Index0))
	}
	ms := members(p, b.Index0)
	if len(ms) > 0 && (!sameMembers(cur.GUIDs, ms) || cur.IPoIB != p.IPoIB) {
		if err := b.setMembers(ctx, p.PKey, p.IPoIB, ms); err != nil {
			return err
		}
	}
	if cur.QoS == nil || *cur.QoS != qos {
		return b.Client.UpdateQoS(ctx, QoSRequest{PKey: FormatPKey(p.PKey), QoS: qos})
	}
	return nil
}

func (b *Backend) create(ctx context.Context, pkey uint16, name string, ipoib bool, qos QoS, ms []Member) error {
	req := CreateRequest{PKey: FormatPKey(pkey), PartitionName: name, Index0: b.Index0, IPoIB: ipoib,
		MTULimit: &qos.MTULimit, ServiceLevel: &qos.ServiceLevel, RateLimit: &qos.RateLimit}
	if err := b.Client.CreatePKey(ctx, req); err != nil {
		return err
	}
	if len(ms) == 0 {
		return nil
	}
	return b.setMembers(ctx, pkey, ipoib, ms)
}

// setMembers sets the exact member list; UFM takes one index0 per request,
// so members with index0 are added in a second request.
func (b *Backend) setMembers(ctx context.Context, pkey uint16, ipoib bool, ms []Member) error {
	var plain, idx0 GUIDsRequest
	for _, r := range []*GUIDsRequest{&plain, &idx0} {
		r.PKey, r.IPoIB, r.GUIDs, r.Memberships = FormatPKey(pkey), ipoib, []string{}, []string{}
	}
	idx0.Index0 = true
	for _, m := range ms {
		r := &plain
		if m.Index0 {
			r = &idx0
		}
		r.GUIDs = append(r.GUIDs, m.GUID)
		r.Memberships = append(r.Memberships, m.Membership)
	}
	first, second := plain, idx0
	if len(plain.GUIDs) == 0 {
		first, second = idx0, GUIDsRequest{}
	}
	if err := b.Client.SetGUIDs(ctx, first); err != nil {
		return err
	}
	if len(second.GUIDs) == 0 {
		return nil
	}
	return b.Client.AddGUIDs(ctx, second)
}

// restore puts the touched pkeys back as they were in live. It runs even
// when ctx is cancelled.
func (b *Backend) restore(ctx context.Context, touched []uint16, live map[uint16]PKey) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	var errs []error
	for i := len(touched) - 1; i >= 0; i-- {
		k := touched[i]
		old, existed := live[k]
		_, now, err := b.Client.GetPKey(ctx, k)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !existed {
			if now {
				errs = append(errs, b.Client.DeletePKey(ctx, k))
			}
			continue
		}
		qos := DefaultQoS()
		if old.QoS != nil {
			qos = *old.QoS
		}
		ms := append([]Member(nil), old.GUIDs...)
		for i := range ms {
			if g, err := FormatGUID(ms[i].GUID); err == nil {
				ms[i].GUID = g
			}
		}
		if !now || len(ms) == 0 {
			if now {
				if err := b.Client.DeletePKey(ctx, k); err != nil {
					errs = append(errs, err)
					continue
				}
			}
			errs = append(errs, b.create(ctx, k, old.Partition, old.IPoIB, qos, ms))
			continue
		}
		if err := b.setMembers(ctx, k, old.IPoIB, ms); err != nil {
			errs = append(errs, err)
			continue
		}
		errs = append(errs, b.Client.UpdateQoS(ctx, QoSRequest{PKey: FormatPKey(k), QoS: qos}))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("rolling back: %w", err)
	}
	return nil
}

// DefaultQoS is the QoS UFM gives a new pkey: 2048 MTU, SL 0, 2.5 Gb/s.
func DefaultQoS() QoS { return QoS{MTULimit: 2, ServiceLevel: 0, RateLimit: 2.5} }

// qosOf is p's QoS in UFM's units, unset fields at UFM's defaults.
func qosOf(p fabric.PartitionIntent) QoS {
	q := DefaultQoS()
	if p.MTU != 0 {
		q.MTULimit = p.MTU / 1024
	}
	if p.RateCode != 0 {
		q.RateLimit = fabric.RateFromCode(p.RateCode)
	}
	if p.ServiceLevel >= 0 {
		q.ServiceLevel = p.ServiceLevel
	}
	return q
}

func members(p fabric.PartitionIntent, index0 bool) []Member {
	out := make([]Member, 0, len(p.Members))
	for _, m := range p.Members {
		g, _ := FormatGUID(m.GUID) // Desired already checked it
		out = append(out, Member{GUID: g, Membership: m.Membership, Index0: index0})
	}
	return out
}

func sameMembers(cur []Member, want []Member) bool {
	if len(cur) != len(want) {
		return false
	}
	m := map[string]Member{}
	for _, c := range cur {
		if g, err := FormatGUID(c.GUID); err == nil {
			c.GUID = g
		}
		m[c.GUID] = c
	}
	for _, w := range want {
		if c, ok := m[w.GUID]; !ok || c.Membership != w.Membership || c.Index0 != w.Index0 {
			return false
		}
	}
	return true
}

func sortedKeys(m map[uint16]PKey) []uint16 {
	out := make([]uint16, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
