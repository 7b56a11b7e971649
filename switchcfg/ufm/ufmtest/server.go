package ufmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Member is one GUID of a partition.
type Member struct {
	GUID       string `json:"guid"`
	Membership string `json:"membership"`
	Index0     bool   `json:"index0"`
}

// QoS is a partition's QoS.
type QoS struct {
	MTULimit     int     `json:"mtu_limit"`
	ServiceLevel int     `json:"service_level"`
	RateLimit    float64 `json:"rate_limit"`
}

// Partition is one pkey.
type Partition struct {
	Name    string
	IPoIB   bool
	QoS     QoS
	Members map[string]Member // by 16-digit lowercase GUID
}

// Fault makes the Nth (1-based; 0 = every) request matching Method and
// PathPrefix fail with Status and Message instead of being served.
type Fault struct {
	Method, PathPrefix string
	Nth                int
	Status             int
	Message            string
	seen               int
}

// Server is the test double. Create it with New.
type Server struct {
	user, password string

	mu         sync.Mutex
	partitions map[uint16]*Partition
	ports      map[string]bool // nil: any GUID exists
	faults     []*Fault
	log        []string
}

// DefaultPKey is UFM's management partition.
const DefaultPKey uint16 = 0x7fff

// New returns a Server accepting user/password, holding only 0x7fff.
func New(user, password string) *Server {
	return &Server{user: user, password: password, partitions: map[uint16]*Partition{
		DefaultPKey: {Name: "management", IPoIB: true, QoS: defaultQoS(), Members: map[string]Member{}},
	}}
}

func defaultQoS() QoS { return QoS{MTULimit: 2, ServiceLevel: 0, RateLimit: 2.5} }

// SetPorts restricts GUIDs to these discovered ports.
func (s *Server) SetPorts(guids ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ports = map[string]bool{}
	for _, g := range guids {
		if n, ok := normGUID(g); ok {
			s.ports[n] = true
		}
	}
}

// Put stores a partition as is (test setup, bypassing validation).
func (s *Server) Put(pkey uint16, p Partition) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p.Members == nil {
		p.Members = map[string]Member{}
	}
	s.partitions[pkey] = &p
}

// Get returns a copy of one partition.
func (s *Server) Get(pkey uint16) (Partition, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.partitions[pkey]
	if !ok {
		return Partition{}, false
	}
	c := *p
	c.Members = map[string]Member{}
	for k, v := range p.Members {
		c.Members[k] = v
	}
	return c, true
}

// PKeys lists the pkeys held, ascending.
func (s *Server) PKeys() []uint16 {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []uint16
	for k := range s.partitions {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// Inject adds a fault.
func (s *Server) Inject(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &f)
}

// Requests returns "METHOD PATH" of every request served or failed so far.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.log...)
}

type apiError struct {
	status int
	msg    string
}

func fail(status int, format string, args ...any) *apiError {
	return &apiError{status, fmt.Sprintf(format, args...)}
}

const prefix = "/ufmRest/resources/pkeys"

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = append(s.log, r.Method+" "+r.URL.Path)
	if u, p, ok := r.BasicAuth(); !ok || u != s.user || p != s.password {
		w.Header().Set("WWW-Authenticate", `Basic realm="UFM"`)
		http.Error(w, "Unauthorized", http.StatusUnauthorized)
		return
	}
	for _, f := range s.faults {
		if f.Method == r.Method && strings.HasPrefix(r.URL.Path, f.PathPrefix) {
			f.seen++
			if f.Nth == 0 || f.Nth == f.seen {
				writeJSON(w, f.Status, map[string]string{"error": f.Message})
				return
			}
		}
	}
	out, err := s.route(r)
	if err != nil {
		writeJSON(w, err.status, map[string]string{"error": err.msg})
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (s *Server) route(r *http.Request) (any, *apiError) {
	path := r.URL.Path
	if path != prefix && !strings.HasPrefix(path, prefix+"/") {
		return nil, fail(http.StatusNotFound, "no such resource %s", path)
	}
	rest := strings.Trim(strings.TrimPrefix(path, prefix), "/")
	q := r.URL.Query()
	guidsData, qosConf := q.Get("guids_data") == "true", q.Get("qos_conf") == "true"
	switch {
	case r.Method == http.MethodGet && rest == "":
		out := map[string]any{}
		for k, p := range s.partitions {
			out[formatPKey(k)] = view(p, guidsData, qosConf)
		}
		return out, nil
	case r.Method == http.MethodGet && !strings.Contains(rest, "/"):
		k, err := parsePKey(rest, true)
		if err != nil {
			return nil, err
		}
		p, ok := s.partitions[k]
		if !ok {
			return map[string]any{}, nil
		}
		return view(p, guidsData, qosConf), nil
	case r.Method == http.MethodPost && rest == "add":
		return s.create(r)
	case (r.Method == http.MethodPost || r.Method == http.MethodPut) && rest == "":
		return s.guids(r, r.Method == http.MethodPut)
	case r.Method == http.MethodPut && rest == "qos_conf":
		return s.qos(r)
	case r.Method == http.MethodDelete:
		return s.delete(rest)
	}
	return nil, fail(http.StatusMethodNotAllowed, "%s %s is not supported", r.Method, path)
}

func view(p *Partition, guidsData, qosConf bool) map[string]any {
	v := map[string]any{"partition": p.Name, "ip_over_ib": p.IPoIB}
	if qosConf {
		v["qos_conf"] = p.QoS
	}
	if guidsData {
		keys := make([]string, 0, len(p.Members))
		for k := range p.Members {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		list := make([]Member, 0, len(keys))
		for _, k := range keys {
			list = append(list, p.Members[k])
		}
		v["guids"] = list
	}
	return v
}

func decode(r *http.Request, v any) *apiError {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fail(http.StatusBadRequest, "invalid request body: %v", err)
	}
	return nil
}

func (s *Server) create(r *http.Request) (any, *apiError) {
	var req struct {
		PKey          string   `json:"pkey"`
		PartitionName string   `json:"partition_name"`
		Index0        bool     `json:"index0"`
		IPoIB         *bool    `json:"ip_over_ib"`
		MTULimit      *int     `json:"mtu_limit"`
		ServiceLevel  *int     `json:"service_level"`
		RateLimit     *float64 `json:"rate_limit"`
	}
	if err := decode(r, &req); err != nil {
		return nil, err
	}
	k, err := parsePKey(req.PKey, false)
	if err != nil {
		return nil, err
	}
	if _, ok := s.partitions[k]; ok {
		return nil, fail(http.StatusBadRequest, "PKey %s already exists", formatPKey(k))
	}
	q := defaultQoS()
	if req.MTULimit != nil {
		q.MTULimit = *req.MTULimit
	}
	if req.ServiceLevel != nil {
		q.ServiceLevel = *req.ServiceLevel
	}
	if req.RateLimit != nil {
		q.RateLimit = *req.RateLimit
	}
	if err := checkQoS(q); err != nil {
		return nil, err
	}
	p := &Partition{Name: req.PartitionName, IPoIB: req.IPoIB == nil || *req.IPoIB, QoS: q, Members: map[string]Member{}}
	if p.Name == "" {
		p.Name = "api_pkey_" + formatPKey(k)
	}
	s.partitions[k] = p
	return map[string]any{}, nil
}

func (s *Server) guids(r *http.Request, set bool) (any, *apiError) {
	var req struct {
		PKey        string   `json:"pkey"`
		GUIDs       []string `json:"guids"`
		Membership  string   `json:"membership"`
		Memberships []string `json:"memberships"`
		Index0      bool     `json:"index0"`
		IPoIB       *bool    `json:"ip_over_ib"`
	}
	if err := decode(r, &req); err != nil {
		return nil, err
	}
	k, err := parsePKey(req.PKey, false)
	if err != nil {
		return nil, err
	}
	if len(req.GUIDs) == 0 {
		return nil, fail(http.StatusBadRequest, "guids is mandatory")
	}
	if req.Membership != "" && len(req.Memberships) > 0 {
		return nil, fail(http.StatusBadRequest, "membership and memberships conflict")
	}
	if len(req.Memberships) > 0 && len(req.Memberships) != len(req.GUIDs) {
		return nil, fail(http.StatusBadRequest, "memberships must have the same length as guids")
	}
	ms := make([]Member, len(req.GUIDs))
	for i, g := range req.GUIDs {
		n, ok := normGUID(g)
		if !ok {
			return nil, fail(http.StatusBadRequest, "invalid GUID %q", g)
		}
		if s.ports != nil && !s.ports[n] {
			return nil, fail(http.StatusNotFound, "port %s does not exist", n)
		}
		m := req.Membership
		if len(req.Memberships) > 0 {
			m = req.Memberships[i]
		}
		if m == "" {
			m = "full"
		}
		if m != "full" && m != "limited" {
			return nil, fail(http.StatusBadRequest, "invalid membership %q", m)
		}
		ms[i] = Member{GUID: n, Membership: m, Index0: req.Index0}
	}
	p, ok := s.partitions[k]
	switch {
	case !ok && set:
		return nil, fail(http.StatusNotFound, "PKey %s does not exist", formatPKey(k))
	case !ok:
		p = &Partition{Name: "api_pkey_" + formatPKey(k), IPoIB: true, QoS: defaultQoS(), Members: map[string]Member{}}
		s.partitions[k] = p
	}
	if req.IPoIB != nil {
		p.IPoIB = *req.IPoIB
	}
	if set {
		p.Members = map[string]Member{}
	}
	for _, m := range ms {
		p.Members[m.GUID] = m
	}
	return map[string]any{}, nil
}

func (s *Server) qos(r *http.Request) (any, *apiError) {
	var req struct {
		PKey string `json:"pkey"`
		QoS
	}
	if err := decode(r, &req); err != nil {
		return nil, err
	}
	k, err := parsePKey(req.PKey, false)
	if err != nil {
		return nil, err
	}
	p, ok := s.partitions[k]
	if !ok {
		return nil, fail(http.StatusNotFound, "PKey %s does not exist", formatPKey(k))
	}
	if err := checkQoS(req.QoS); err != nil {
		return nil, err
	}
	p.QoS = req.QoS
	return map[string]any{}, nil
}

func (s *Server) delete(rest string) (any, *apiError) {
	pk, guids, hasGUIDs := strings.Cut(rest, "/guids/")
	k, err := parsePKey(pk, false)
	if err != nil {
		return nil, err
	}
	p, ok := s.partitions[k]
	if !ok {
		return nil, fail(http.StatusNotFound, "PKey %s does not exist", formatPKey(k))
	}
	if !hasGUIDs {
		delete(s.partitions, k)
		return map[string]any{}, nil
	}
	for _, g := range strings.Split(guids, ",") {
		n, ok := normGUID(g)
		if !ok {
			return nil, fail(http.StatusBadRequest, "invalid GUID %q", g)
		}
		delete(p.Members, n)
	}
	if len(p.Members) == 0 {
		delete(s.partitions, k)
	}
	return map[string]any{}, nil
}

var validRates = map[float64]bool{2.5: true, 10: true, 30: true, 5: true, 20: true, 40: true, 60: true, 80: true, 120: true,
	14: true, 56: true, 112: true, 168: true, 25: true, 100: true, 200: true, 300: true, 400: true}

func checkQoS(q QoS) *apiError {
	if q.MTULimit != 2 && q.MTULimit != 4 {
		return fail(http.StatusBadRequest, "mtu_limit must be 2 or 4")
	}
	if q.ServiceLevel < 0 || q.ServiceLevel > 15 {
		return fail(http.StatusBadRequest, "service_level must be 0-15")
	}
	if !validRates[q.RateLimit] {
		return fail(http.StatusBadRequest, "invalid rate_limit %g", q.RateLimit)
	}
	return nil
}

func formatPKey(k uint16) string { return "0x" + strconv.FormatUint(uint64(k), 16) }

// parsePKey accepts "0x…" or decimal; writes must stay inside (0x0, 0x7fff).
func parsePKey(s string, read bool) (uint16, *apiError) {
	t := strings.ToLower(s)
	base := 10
	if strings.HasPrefix(t, "0x") {
		t, base = t[2:], 16
	}
	v, err := strconv.ParseUint(t, base, 16)
	if err != nil || v > 0x7fff || v == 0 || (!read && v == uint64(DefaultPKey)) {
		return 0, fail(http.StatusBadRequest, "invalid pkey %q: must be a hexadecimal string between 0x0 and 0x7fff exclusive", s)
	}
	return uint16(v), nil
}

// normGUID accepts 16 to 20 characters of hex, with or without 0x.
func normGUID(g string) (string, bool) {
	t := strings.TrimPrefix(strings.ToLower(g), "0x")
	if len(g) < 16 || len(g) > 20 || t == "" || len(t) > 16 {
		return "", false
	}
	v, err := strconv.ParseUint(t, 16, 64)
	if err != nil {
		return "", false
	}
	return fmt.Sprintf("%016x", v), true
}
