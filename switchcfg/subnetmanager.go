package switchcfg

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/fabricctl/fabricctl/fabric"
)

// SubnetManager is one InfiniBand subnet-manager kind (switchcfg/opensm,
// switchcfg/ufm): it renders a manager's partitions and builds the engine
// target that reconciles them. Like switch drivers, each kind's package
// exports Register and switchcfg/all calls it. Implementations keep no
// per-manager state and are safe for concurrent use.
type SubnetManager interface {
	// Info returns the kind's facts.
	Info() SubnetManagerInfo
	// Render returns what `fabricctl render` shows for sm (OpenSM's
	// partitions.conf; UFM's partition intent as JSON). guids maps host
	// names to their port GUIDs. Pure.
	Render(sm fabric.SubnetManagerIntent, guids map[string][]string) (string, error)
	// Target returns the engine target that plans and applies sm through c.
	Target(sm fabric.SubnetManagerIntent, guids map[string][]string, c SubnetManagerConn) (fabric.Target, error)
}

// PartitionsReader is implemented by subnet-manager kinds whose configuration
// can be audited offline from a capture (OpenSM's partitions.conf):
// `fabricctl switch parse --platform KIND` and `drift --from-dir`.
type PartitionsReader interface {
	// ParseCapture reads a captured configuration into what `switch parse`
	// prints; a located error when it cannot.
	ParseCapture(data []byte) (any, error)
	// PlanCapture compares a captured configuration with sm's intent.
	PlanCapture(sm fabric.SubnetManagerIntent, guids map[string][]string, data []byte) ([]fabric.Change, error)
}

// SubnetManagerInfo is what fabricctl knows about a subnet-manager kind.
type SubnetManagerInfo struct {
	// Kind is the name used in fabric files ("opensm").
	Kind string
	// FileExt is the extension `fabricctl render --out` gives Render's text.
	FileExt string
	// NoPartitionsFile, when set, says why the kind takes no partitionsFile
	// (UFM keeps partitions behind its REST API); fabric validation reports it.
	NoPartitionsFile string
}

// SubnetManagerConn is how a subnet-manager target reaches its manager. The
// caller (action/fleet) fills it from the fabric's ssh settings; a kind
// uses what it needs.
type SubnetManagerConn struct {
	// Address is the manager's address from the fabric file.
	Address string
	// User and PasswordEnv are the login (ssh user, REST user) and the
	// environment variable holding the password.
	User, PasswordEnv string
	// Run runs a command on the manager's host over SSH (connecting on first
	// use) and returns its stdout.
	Run func(ctx context.Context, argv []string, stdin []byte) ([]byte, error)
	// HTTP is the client of REST managers (nil: http.DefaultClient).
	HTTP *http.Client
}

// AddSubnetManager registers m; registering a kind twice panics.
func (r *Registry) AddSubnetManager(m SubnetManager) {
	kind := m.Info().Kind
	if _, dup := r.sms[kind]; dup {
		panic("switchcfg: subnet-manager kind registered twice: " + kind)
	}
	r.sms[kind] = m
}

// SubnetManagerKinds returns the registered subnet-manager kinds, sorted.
func (r *Registry) SubnetManagerKinds() []string {
	return slices.Sorted(maps.Keys(r.sms))
}

// SubnetManager returns the driver of kind, or an error wrapping
// ErrUnknownKind that lists the valid kinds.
func (r *Registry) SubnetManager(kind string) (SubnetManager, error) {
	if m, ok := r.sms[kind]; ok {
		return m, nil
	}
	return nil, fmt.Errorf("subnet-manager kind %q: %w (valid: %s)", kind, fabric.ErrUnknownKind,
		strings.Join(r.SubnetManagerKinds(), ", "))
}

// PartitionsFileProblem says why kind takes no partitionsFile, "" when it
// reads one or the kind is unknown (for fabric validation).
func (r *Registry) PartitionsFileProblem(kind string) string {
	if m, ok := r.sms[kind]; ok {
		return m.Info().NoPartitionsFile
	}
	return ""
}
