package sim

import (
	"maps"
	"slices"
	"sync"
)

// portSet is a switch's running counters per port, the store behind
// PortCounters and Congestion: every port starts blank, update changes
// one, clear blanks them all, read returns them sorted by port. Safe for
// concurrent use; call init before any other method.
type portSet[T any] struct {
	mu    sync.Mutex
	ports map[string]T
	// blank returns a port's counters at zero.
	blank func(port string) T
}

// init sets the blank counters of ports.
func (s *portSet[T]) init(blank func(port string) T, ports []string) {
	s.blank = blank
	s.ports = make(map[string]T, len(ports))
	for _, p := range ports {
		s.ports[p] = blank(p)
	}
}

// update applies f to port's counters (a port not known yet is added
// blank first).
func (s *portSet[T]) update(port string, f func(*T)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.ports[port]
	if !ok {
		p = s.blank(port)
	}
	f(&p)
	s.ports[port] = p
}

// clear blanks every port's counters.
func (s *portSet[T]) clear() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for name := range s.ports {
		s.ports[name] = s.blank(name)
	}
}

// read returns every port's counters, sorted by port.
func (s *portSet[T]) read() []T {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]T, 0, len(s.ports))
	for _, name := range slices.Sorted(maps.Keys(s.ports)) {
		out = append(out, s.ports[name])
	}
	return out
}

// readSource reads a device's counters from source, an Options.Counters
// or Options.Congestion: none when it is not set.
func readSource[T any](source func() ([]T, error)) ([]T, error) {
	if source == nil {
		return nil, nil
	}
	return source()
}
