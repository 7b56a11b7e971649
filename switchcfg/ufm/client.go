package ufm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/switchcfg/opensm"
)

var (
	// ErrNoPassword: the environment variable that should hold the password
	// is unset or empty.
	ErrNoPassword = errors.New("no UFM password")
	// ErrUnauthorized: UFM answered 401 or 403.
	ErrUnauthorized = errors.New("UFM rejected the credentials")
	// ErrNotFound: UFM answered 404 (unknown pkey or port GUID).
	ErrNotFound = errors.New("not found on UFM")
)

// APIError is a non-2xx answer of UFM.
type APIError struct {
	Method, Path string // path without query, never credentials
	Status       int
	Message      string // UFM's "error" field, or the start of the body
}

func (e *APIError) Error() string {
	msg := fmt.Sprintf("UFM %s %s: %d %s", e.Method, e.Path, e.Status, http.StatusText(e.Status))
	if e.Message != "" {
		msg += ": " + e.Message
	}
	return msg
}

// Is makes errors.Is(err, ErrNotFound) and ErrUnauthorized match.
func (e *APIError) Is(target error) bool {
	switch target {
	case ErrNotFound:
		return e.Status == http.StatusNotFound
	case ErrUnauthorized:
		return e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden
	}
	return false
}

// Client talks to UFM Enterprise's pkey REST API under /ufmRest/resources/pkeys
// with HTTP basic auth. The password is read once from the environment
// variable the caller names and is never logged, printed or put in an error.
// A Client is safe for concurrent use.
type Client struct {
	base     *url.URL
	user     string
	password string
	hc       *http.Client
}

// New returns a client for the UFM at baseURL ("https://ufm.example:443",
// without /ufmRest and without credentials) logging in as user with the
// password held in the environment variable passwordEnv. hc nil means
// http.DefaultClient; pass one with TLS settings and a timeout in production.
func New(baseURL, user, passwordEnv string, hc *http.Client) (*Client, error) {
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("creating UFM client: base URL %q is not http(s)://host[:port]", baseURL)
	}
	if u.User != nil {
		return nil, errors.New("creating UFM client: the base URL must not carry credentials; name a password environment variable instead")
	}
	if passwordEnv == "" {
		return nil, fmt.Errorf("creating UFM client: %w: no password environment variable named", ErrNoPassword)
	}
	pw := os.Getenv(passwordEnv)
	if pw == "" {
		return nil, fmt.Errorf("creating UFM client: %w: environment variable %s is unset or empty", ErrNoPassword, passwordEnv)
	}
	if hc == nil {
		hc = http.DefaultClient
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	return &Client{base: u, user: user, password: pw, hc: hc}, nil
}

// String names the client without its password.
func (c *Client) String() string { return fmt.Sprintf("UFM %s as %s", c.base, c.user) }

// GoString keeps %#v from printing the password.
func (c *Client) GoString() string { return c.String() }

// PKey is one partition as UFM reports it (GET .../pkeys?guids_data=true&qos_conf=true).
type PKey struct {
	Partition string   `json:"partition"`
	IPoIB     bool     `json:"ip_over_ib"`
	QoS       *QoS     `json:"qos_conf,omitempty"`
	GUIDs     []Member `json:"guids"`
}

// Member is one port GUID of a pkey.
type Member struct {
	GUID       string `json:"guid"`       // 16 hex digits, no 0x
	Membership string `json:"membership"` // full | limited
	Index0     bool   `json:"index0"`
}

// QoS is a pkey's QoS configuration: mtu_limit in KiB of MTU (2 = 2048,
// 4 = 4096), service_level 0..15, rate_limit in Gb/s (2.5, 10, … 400).
type QoS struct {
	MTULimit     int     `json:"mtu_limit"`
	ServiceLevel int     `json:"service_level"`
	RateLimit    float64 `json:"rate_limit"`
}

// CreateRequest is the body of POST /ufmRest/resources/pkeys/add, which
// creates a pkey without members. Nil QoS fields take UFM's defaults.
type CreateRequest struct {
	PKey          string   `json:"pkey"`
	PartitionName string   `json:"partition_name,omitempty"` // UFM 6.22+
	Index0        bool     `json:"index0"`
	IPoIB         bool     `json:"ip_over_ib"`
	MTULimit      *int     `json:"mtu_limit,omitempty"`
	ServiceLevel  *int     `json:"service_level,omitempty"`
	RateLimit     *float64 `json:"rate_limit,omitempty"`
}

// GUIDsRequest is the body of POST (add GUIDs) and PUT (set exactly these
// GUIDs) on /ufmRest/resources/pkeys. Memberships is index-aligned with GUIDs.
type GUIDsRequest struct {
	PKey        string   `json:"pkey"`
	GUIDs       []string `json:"guids"`
	Memberships []string `json:"memberships"`
	Index0      bool     `json:"index0"`
	IPoIB       bool     `json:"ip_over_ib"`
}

// QoSRequest is the body of PUT /ufmRest/resources/pkeys/qos_conf.
type QoSRequest struct {
	PKey string `json:"pkey"`
	QoS
}

const pkeysPath = "/ufmRest/resources/pkeys"

// FormatPKey spells a pkey as UFM does: "0x7fff".
func FormatPKey(k uint16) string { return "0x" + strconv.FormatUint(uint64(k), 16) }

// ParsePKey reads "0x7fff" or a decimal pkey, keeping the low 15 bits.
func ParsePKey(s string) (uint16, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	base := 10
	if strings.HasPrefix(t, "0x") {
		t, base = t[2:], 16
	}
	v, err := strconv.ParseUint(t, base, 16)
	if err != nil {
		return 0, fmt.Errorf("bad pkey %q", s)
	}
	return uint16(v) & 0x7fff, nil
}

// FormatGUID spells a port GUID as UFM does: 16 lowercase hex digits.
func FormatGUID(g string) (string, error) {
	v, err := opensm.ParseGUID(g)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%016x", v), nil
}

// ListPKeys returns every pkey with its members and QoS.
func (c *Client) ListPKeys(ctx context.Context) (map[uint16]PKey, error) {
	var raw json.RawMessage
	if err := c.do(ctx, http.MethodGet, pkeysPath, url.Values{"guids_data": {"true"}, "qos_conf": {"true"}}, nil, &raw); err != nil {
		return nil, fmt.Errorf("listing pkeys: %w", err)
	}
	out, err := parsePKeyMap(raw)
	if err != nil {
		return nil, fmt.Errorf("listing pkeys: %w", err)
	}
	return out, nil
}

// parsePKeyMap decodes the reply of GET .../pkeys (an object keyed by "0x…").
func parsePKeyMap(data []byte) (map[uint16]PKey, error) {
	var raw map[string]PKey
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("decoding UFM's reply: %w", err)
	}
	out := make(map[uint16]PKey, len(raw))
	for k, v := range raw {
		key, err := ParsePKey(k)
		if err != nil {
			return nil, fmt.Errorf("UFM returned %w", err)
		}
		out[key] = v
	}
	return out, nil
}

// GetPKey returns one pkey; ok is false when UFM does not have it (UFM
// answers an empty object, some versions 404).
func (c *Client) GetPKey(ctx context.Context, pkey uint16) (p PKey, ok bool, err error) {
	var raw json.RawMessage
	err = c.do(ctx, http.MethodGet, pkeysPath+"/"+FormatPKey(pkey), url.Values{"guids_data": {"true"}, "qos_conf": {"true"}}, nil, &raw)
	if errors.Is(err, ErrNotFound) {
		return p, false, nil
	}
	if err != nil {
		return p, false, fmt.Errorf("getting pkey %s: %w", FormatPKey(pkey), err)
	}
	if t := bytes.TrimSpace(raw); len(t) == 0 || bytes.Equal(t, []byte("{}")) {
		return p, false, nil
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return p, false, fmt.Errorf("getting pkey %s: decoding: %w", FormatPKey(pkey), err)
	}
	return p, true, nil
}

// CreatePKey creates a pkey without members.
func (c *Client) CreatePKey(ctx context.Context, r CreateRequest) error {
	if err := c.do(ctx, http.MethodPost, pkeysPath+"/add", nil, r, nil); err != nil {
		return fmt.Errorf("creating pkey %s: %w", r.PKey, err)
	}
	return nil
}

// AddGUIDs adds members to a pkey (creating it when UFM does not have it).
func (c *Client) AddGUIDs(ctx context.Context, r GUIDsRequest) error {
	if err := c.do(ctx, http.MethodPost, pkeysPath, nil, r, nil); err != nil {
		return fmt.Errorf("adding GUIDs to pkey %s: %w", r.PKey, err)
	}
	return nil
}

// SetGUIDs makes r.GUIDs the pkey's exact member list, in one request.
func (c *Client) SetGUIDs(ctx context.Context, r GUIDsRequest) error {
	if err := c.do(ctx, http.MethodPut, pkeysPath, nil, r, nil); err != nil {
		return fmt.Errorf("setting the GUIDs of pkey %s: %w", r.PKey, err)
	}
	return nil
}

// RemoveGUIDs removes members from a pkey.
func (c *Client) RemoveGUIDs(ctx context.Context, pkey uint16, guids []string) error {
	if len(guids) == 0 {
		return nil
	}
	parts := make([]string, len(guids))
	for i, g := range guids {
		parts[i] = url.PathEscape(g)
	}
	p := pkeysPath + "/" + FormatPKey(pkey) + "/guids/" + strings.Join(parts, ",")
	if err := c.do(ctx, http.MethodDelete, p, nil, nil, nil); err != nil {
		return fmt.Errorf("removing GUIDs from pkey %s: %w", FormatPKey(pkey), err)
	}
	return nil
}

// DeletePKey deletes a pkey and its memberships.
func (c *Client) DeletePKey(ctx context.Context, pkey uint16) error {
	if err := c.do(ctx, http.MethodDelete, pkeysPath+"/"+FormatPKey(pkey), nil, nil, nil); err != nil {
		return fmt.Errorf("deleting pkey %s: %w", FormatPKey(pkey), err)
	}
	return nil
}

// UpdateQoS sets a pkey's MTU limit, SL and rate limit.
func (c *Client) UpdateQoS(ctx context.Context, r QoSRequest) error {
	if err := c.do(ctx, http.MethodPut, pkeysPath+"/qos_conf", nil, r, nil); err != nil {
		return fmt.Errorf("updating the QoS of pkey %s: %w", r.PKey, err)
	}
	return nil
}

// maxBody bounds what is read of a reply.
const maxBody = 16 << 20

func (c *Client) do(ctx context.Context, method, path string, q url.Values, body, out any) error {
	u := *c.base
	u.Path = c.base.Path + path
	u.RawQuery = ""
	if q != nil {
		keys := make([]string, 0, len(q))
		for k := range q {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var parts []string
		for _, k := range keys {
			parts = append(parts, url.QueryEscape(k)+"="+url.QueryEscape(q.Get(k)))
		}
		u.RawQuery = strings.Join(parts, "&")
	}
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("encoding the request: %w", err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return err
	}
	req.SetBasicAuth(c.user, c.password)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		// *url.Error carries the URL, which never holds credentials here.
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return fmt.Errorf("reading UFM's reply: %w", err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return &APIError{Method: method, Path: path, Status: resp.StatusCode, Message: errorMessage(data)}
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("decoding UFM's reply to %s %s: %w", method, path, err)
	}
	return nil
}

// errorMessage extracts UFM's message from an error body.
func errorMessage(b []byte) string {
	var e struct {
		Error   string `json:"error"`
		Message string `json:"message"`
	}
	if json.Unmarshal(b, &e) == nil {
		if e.Error != "" {
			return e.Error
		}
		if e.Message != "" {
			return e.Message
		}
	}
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
