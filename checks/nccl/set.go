package nccl

import (
	"fmt"
	"iter"
	"slices"
	"strings"
	"unique"
)

// smallMap maps keys to values in insertion order: one slice while it is
// small, plus an index once it grows, so a host's handful of interfaces or
// links costs a few words and a hostile log with thousands stays linear.
type smallMap[K comparable, V any] struct {
	items []kv[K, V]
	index map[K]int
}

type kv[K comparable, V any] struct {
	k K
	v V
}

// indexAt is the size from which a smallMap or set keeps an index.
const indexAt = 16

// find returns the position of k, -1 when absent.
func (m *smallMap[K, V]) find(k K) int {
	if m.index != nil {
		if i, ok := m.index[k]; ok {
			return i
		}
		return -1
	}
	for i := range m.items {
		if m.items[i].k == k {
			return i
		}
	}
	return -1
}

// slot returns k's value, adding it with the zero value when absent; the
// pointer is valid until the next insertion.
func (m *smallMap[K, V]) slot(k K) (v *V, added bool) {
	if i := m.find(k); i >= 0 {
		return &m.items[i].v, false
	}
	m.items = append(m.items, kv[K, V]{k: k})
	switch n := len(m.items); {
	case m.index != nil:
		m.index[k] = n - 1
	case n > indexAt:
		m.index = make(map[K]int, n)
		for i := range m.items {
			m.index[m.items[i].k] = i
		}
	}
	return &m.items[len(m.items)-1].v, true
}

// get returns k's value.
func (m *smallMap[K, V]) get(k K) (V, bool) {
	if i := m.find(k); i >= 0 {
		return m.items[i].v, true
	}
	var zero V
	return zero, false
}

// set records v for k.
func (m *smallMap[K, V]) set(k K, v V) {
	p, _ := m.slot(k)
	*p = v
}

func (m *smallMap[K, V]) len() int { return len(m.items) }

// all yields the keys and values in insertion order.
func (m *smallMap[K, V]) all() iter.Seq2[K, *V] {
	return func(yield func(K, *V) bool) {
		for i := range m.items {
			if !yield(m.items[i].k, &m.items[i].v) {
				return
			}
		}
	}
}

// set is a smallMap without values: its members in insertion order, with an
// index once it grows.
type set[T comparable] struct {
	keys  []T
	index map[T]struct{}
}

// add adds v and reports whether it was new.
func (s *set[T]) add(v T) bool {
	if s.has(v) {
		return false
	}
	s.keys = append(s.keys, v)
	switch n := len(s.keys); {
	case s.index != nil:
		s.index[v] = struct{}{}
	case n > indexAt:
		s.index = make(map[T]struct{}, n)
		for _, x := range s.keys {
			s.index[x] = struct{}{}
		}
	}
	return true
}

func (s *set[T]) has(v T) bool {
	if s.index != nil {
		_, ok := s.index[v]
		return ok
	}
	for _, x := range s.keys {
		if x == v {
			return true
		}
	}
	return false
}

func (s *set[T]) len() int { return len(s.keys) }

// addAll adds o's members.
func (s *set[T]) addAll(o *set[T]) {
	for _, v := range o.keys {
		s.add(v)
	}
}

// pos is where a line was read: its source (shared by all its lines) and
// the 1-based line; the zero pos is "nowhere". Two words, and no allocation
// until a finding or a link prints it.
type pos struct {
	src  *source
	line int
}

// source is a log being read: its name and its place among the sources.
type source struct {
	name  string
	index int
}

func (p pos) String() string {
	if p.line == 0 {
		return ""
	}
	return fmt.Sprintf("%s:%d", p.src.name, p.line)
}

// earlier returns the earlier of p and q (sources in the order given, then
// lines), ignoring nowhere: "first seen" whatever order processes and
// machines are merged in.
func earlier(p, q pos) pos {
	switch {
	case p.line == 0:
		return q
	case q.line == 0:
		return p
	case q.src.index < p.src.index || (q.src == p.src && q.line < p.line):
		return q
	}
	return p
}

// firstAt records at for k unless k was seen earlier.
func firstAt(m *smallMap[string, pos], k string, at pos) {
	p, _ := m.slot(k)
	*p = earlier(*p, at)
}

// intern returns s as one shared copy: what the analysis keeps (versions,
// device, interface and transport names, host names) never holds on to the
// log line it was cut from, and is stored once however many hosts print it.
func intern(s string) string { return unique.Make(s).Value() }

// shared hands out one copy of each value of equal content, so that a fleet
// of hosts that print the same versions, devices, settings and transports
// stores them once: the Analysis is read-only.
type shared struct{ seen map[string]any }

// share returns the stored value for key, or stores and returns build().
func share[T any](c *shared, key string, build func() T) T {
	if v, ok := c.seen[key]; ok {
		return v.(T)
	}
	if c.seen == nil {
		c.seen = map[string]any{}
	}
	v := build()
	c.seen[key] = v
	return v
}

// sharedMap is m as a map (nil when empty), shared among equal ones.
func sharedMap[V comparable](c *shared, kind string, m *smallMap[string, V]) map[string]V {
	if m.len() == 0 {
		return nil
	}
	items := slices.Clone(m.items)
	slices.SortFunc(items, func(x, y kv[string, V]) int { return strings.Compare(x.k, y.k) })
	var key strings.Builder
	key.WriteString(kind)
	for _, e := range items {
		fmt.Fprintf(&key, "\x00%q\x00%#v", e.k, e.v)
	}
	return share(c, key.String(), func() map[string]V {
		out := make(map[string]V, len(items))
		for _, e := range items {
			out[e.k] = e.v
		}
		return out
	})
}

// sharedList is s (nil when empty, its capacity its length), shared among
// equal ones.
func sharedList[T any](c *shared, kind string, s []T) []T {
	if len(s) == 0 {
		return nil
	}
	var key strings.Builder
	key.WriteString(kind)
	for _, v := range s {
		fmt.Fprintf(&key, "\x00%#v", v)
	}
	return share(c, key.String(), func() []T { return slices.Clip(s) })
}
