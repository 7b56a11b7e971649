package nccl

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/checks"
)

// Family is the library taxonomy a Class comes from.
type Family string

// The families of error classes.
const (
	// FamilyResult: NCCL's ncclResult_t (src/nccl.h.in), as a name
	// ("ncclRemoteError"), as the text of ncclGetErrorString (src/init.cc),
	// or as a number ("retcode 6", the "file.cc:123 -> 6" back-trace lines
	// NCCLCHECK prints, src/include/checks.h).
	FamilyResult Family = "ncclResult"
	// FamilyAsyncEvent: an IB asynchronous event, named by rdma-core's
	// ibv_event_type_str (libibverbs/enum_strs.c).
	FamilyAsyncEvent Family = "ibv_event_type"
	// FamilyCompletion: a work completion status (ibv_wc_status).
	FamilyCompletion Family = "ibv_wc_status"
	// FamilyErrno: a system call failed with an errno NCCL prints through
	// strerror ("Call to X failed : Connection reset by peer").
	FamilyErrno Family = "errno"
	// FamilyCUDA: a CUDA call failed ("Cuda failure 'out of memory'").
	FamilyCUDA Family = "cuda"
	// FamilyTimeout: an operation ran out of time.
	FamilyTimeout Family = "timeout"
)

// Class is where a WARN or error line sits in the libraries' own error
// taxonomy. Fatal classes make a job fail whatever their wording; the others
// are worth a look (a link flap, a changed GID table).
type Class struct {
	Family Family `json:"family"`
	// Name is the library's name for the class: "ncclRemoteError",
	// "IBV_EVENT_DEVICE_FATAL", "IBV_WC_RETRY_EXC_ERR", "ECONNRESET".
	Name  string `json:"name"`
	Fatal bool   `json:"fatal"`
	// Failure is the fabricctl failure class the event stands for, where
	// one does.
	Failure checks.FailureClass `json:"failure,omitempty"`
	// Meaning says in a few words what the class means.
	Meaning string `json:"meaning"`
}

func (c Class) String() string { return c.Name }

// ncclResult_t, NCCL 2.30.7 src/nccl.h.in (values stable since 2.x; ncclTimeout
// added in 2.2x), with ncclGetErrorString's texts from src/init.cc.
var results = []struct {
	code        int
	name, text  string
	failure     checks.FailureClass
	description string
}{
	{1, "ncclUnhandledCudaError", "unhandled cuda error", "", "a CUDA call failed"},
	{2, "ncclSystemError", "unhandled system error", "", "a system call or external library (sockets, verbs, memory) failed"},
	{3, "ncclInternalError", "internal error - please report", "", "an NCCL internal check failed"},
	{4, "ncclInvalidArgument", "invalid argument (run with", "", "an invalid argument reached NCCL"},
	{5, "ncclInvalidUsage", "invalid usage (run with", "", "NCCL was used wrongly (mismatched calls, duplicate GPUs, a bad environment)"},
	{6, "ncclRemoteError", "remote process exited or there was a network error", "", "a remote process exited or the network failed"},
	{8, "ncclTimeout", "", checks.Timeout, "an NCCL operation timed out"},
}

// resultClass returns the class of an ncclResult_t code (7, ncclInProgress,
// is no error).
func resultClass(code int) (Class, bool) {
	for _, r := range results {
		if r.code == code {
			return Class{Family: FamilyResult, Name: r.name, Fatal: true, Failure: r.failure, Meaning: r.description}, true
		}
	}
	return Class{}, false
}

// asyncEvents are rdma-core's ibv_event_type_str names (rdma-core 65,
// libibverbs/enum_strs.c) and whether the event breaks the job. NCCL 2.23
// and later prints them after "async fatal event", "Got non-fatal async
// event:"; earlier releases after "Got async event :". A port error is
// fatal here although NCCL calls it non-fatal: the link went down under the
// job, and every queue pair on it stalls until it comes back.
var asyncEvents = []struct {
	str, name string
	fatal     bool
	failure   checks.FailureClass
	meaning   string
}{
	{"local catastrophic error", "IBV_EVENT_DEVICE_FATAL", true, "", "the HCA is in a fatal state and needs a reset"},
	{"local work queue catastrophic error", "IBV_EVENT_QP_FATAL", true, checks.CompletionError, "a queue pair hit a fatal error"},
	{"invalid request local work queue error", "IBV_EVENT_QP_REQ_ERR", true, checks.CompletionError, "a queue pair received an invalid request"},
	{"local access violation work queue error", "IBV_EVENT_QP_ACCESS_ERR", true, checks.CompletionError, "a queue pair violated an access right"},
	{"CQ error", "IBV_EVENT_CQ_ERR", true, checks.CompletionError, "a completion queue overran or failed"},
	{"SRQ catastrophic error", "IBV_EVENT_SRQ_ERR", true, checks.CompletionError, "a shared receive queue failed"},
	{"WQ fatal", "IBV_EVENT_WQ_FATAL", true, checks.CompletionError, "a work queue hit a fatal error"},
	{"path migration request error", "IBV_EVENT_PATH_MIG_ERR", true, "", "the alternate path failed"},
	{"port error", "IBV_EVENT_PORT_ERR", true, checks.PortDown, "the port went down under the job"},
	{"port active", "IBV_EVENT_PORT_ACTIVE", false, "", "the port came (back) up: a link flap"},
	{"LID change", "IBV_EVENT_LID_CHANGE", false, "", "the subnet manager changed the port's LID"},
	{"P_Key change", "IBV_EVENT_PKEY_CHANGE", false, "", "the partition key table changed"},
	{"SM change", "IBV_EVENT_SM_CHANGE", false, "", "the subnet manager changed"},
	{"client reregistration", "IBV_EVENT_CLIENT_REREGISTER", false, "", "the subnet manager asked clients to re-register"},
	{"GID table change", "IBV_EVENT_GID_CHANGE", false, "", "the port's GID table changed (an address moved)"},
	{"GID table changed", "IBV_EVENT_GID_CHANGE", false, "", "the port's GID table changed (an address moved)"},
	{"Device link speed change", "IBV_EVENT_DEVICE_SPEED_CHANGE", false, "", "the link retrained to another speed"},
	{"path migrated", "IBV_EVENT_PATH_MIG", false, "", "traffic moved to the alternate path"},
	{"send queue drained", "IBV_EVENT_SQ_DRAINED", false, "", "a send queue drained"},
	{"communication established", "IBV_EVENT_COMM_EST", false, "", "a connection was established"},
	{"SRQ limit reached", "IBV_EVENT_SRQ_LIMIT_REACHED", false, "", "a shared receive queue ran low"},
	{"last WQE reached", "IBV_EVENT_QP_LAST_WQE_REACHED", false, "", "the last work request of a queue pair completed"},
}

// errnos are strerror texts of the system errors NCCL's socket and verbs
// wrappers pass on (SYSCHECK, "Call to X failed : %s"), with the errno name.
var errnos = []struct {
	text, name string
	failure    checks.FailureClass
}{
	{"Connection refused", "ECONNREFUSED", checks.OOBConnect},
	{"Connection reset by peer", "ECONNRESET", ""},
	{"Broken pipe", "EPIPE", ""},
	{"No route to host", "EHOSTUNREACH", checks.OOBConnect},
	{"Network is unreachable", "ENETUNREACH", checks.OOBConnect},
	{"Connection timed out", "ETIMEDOUT", checks.OOBConnect},
	{"Software caused connection abort", "ECONNABORTED", ""},
	{"Cannot assign requested address", "EADDRNOTAVAIL", checks.OOBConnect},
	{"Address already in use", "EADDRINUSE", checks.PortInUse},
	{"Cannot allocate memory", "ENOMEM", ""},
	{"Too many open files", "EMFILE", ""},
	{"No such device", "ENODEV", checks.NoDevice},
	{"Input/output error", "EIO", ""},
	{"Bad address", "EFAULT", ""},
	{"Operation not permitted", "EPERM", ""},
	{"Permission denied", "EACCES", ""},
	{"No space left on device", "ENOSPC", ""},
	{"Invalid argument", "EINVAL", ""},
}

var (
	// resultNameRe finds an ncclResult_t name; "ncclInProgress" is no error.
	resultNameRe = regexp.MustCompile(`\b(ncclUnhandledCudaError|ncclSystemError|ncclInternalError|ncclInvalidArgument|ncclInvalidUsage|ncclRemoteError|ncclTimeout)\b`)
	// resultCodeRe finds a result by number: "retcode 6", "ncclResult 2",
	// "NCCL error 3", "failed with error 6 (…)" is left to the texts.
	resultCodeRe = regexp.MustCompile(`\b(?:retcode|ncclResult(?:_t)?|[Rr]esult code|NCCL error(?: code)?)\s*[:=]?\s*(\d+)\b`)
	// traceRe is NCCLCHECK's back-trace line, every era:
	// "misc/socket.cc:567 -> 2 (Connection refused)", "init.cc:1040 (ncclCommInitRankFunc) -> 6 [Async thread]".
	traceRe = regexp.MustCompile(`[\w./-]+\.(?:cc|cu|c|cpp|h|hpp):\d+(?: \([\w:~<>]+\))? -> (\d+)(?: \(([^)]*)\))?(?: \[([^\]]+)\])?\s*$`)
	// asyncRe is the event text NCCL's async thread prints, every era.
	asyncRe = regexp.MustCompile(`(?:Got (?:non-fatal )?async event\s*:?|async fatal event(?: on \w+)?(?: \([^)]*\))?[^:]*:)\s*(.+?)\s*(?:\((\d+)\))?\s*$`)
	// cudaRe: a failed CUDA call, as NCCL ("Cuda failure 'X'"), nccl-tests and PyTorch print it.
	// RCCL's HIP calls are the same class ("hipIpcGetMemHandle failed : invalid argument").
	cudaRe = regexp.MustCompile(`(?i)\bcuda failure\b|\bCUDA error\b|\bcudaError\w+|\bCUDA driver error\b|CUBLAS_STATUS_\w+|\billegal memory access\b|\bhip\w+ failed\b|\bhipError\w+|\bHIP failure\b`)
	// usageRe: WARNs NCCL returns ncclInvalidUsage or ncclInvalidArgument
	// after (net_socket.cc "message truncated": collective sizes differ
	// between ranks; init.cc: a communicator used before it was ready).
	usageRe    = regexp.MustCompile(`message truncated : receiving \d+ bytes instead of`)
	argumentRe = regexp.MustCompile(`Attempt to use communicator before the previous operation returned ncclSuccess`)
	// callFailedRe: SYSCHECK and the wrappers of verbs and pthreads.
	callFailedRe = regexp.MustCompile(`\bCall to \S+ failed\b|\b(?:ibv|wrap_ibv|mlx5dv|ncclIbv)_\w+(?:\(\))? failed\b|\bsocket(?:Start)?[Cc]onnect\w*:? .*failed|\bsocketProgress\w*: |\bConnect to \S+ failed`)
	// remoteClosedRe: the peer closed its socket (socket.cc returns ncclRemoteError).
	remoteClosedRe = regexp.MustCompile(`(?i)Connection closed by remote peer|remote process exited|peer (?:closed|disconnected)|unexpected EOF`)
	// timeoutRe: an operation ran out of time; environment variable names do not count.
	timeoutRe = regexp.MustCompile(`(?i)\btimed out\b|\btimeout\b`)
	envNameRe = regexp.MustCompile(`\b[A-Z][A-Z0-9_]*TIMEOUT[A-Z0-9_]*\b`)
	// abortRe: the process or communicator was aborted.
	abortRe = regexp.MustCompile(`(?i)\bcommunicator (?:was |is )?aborted\b|\bSegmentation fault\b|\bAborted \(core dumped\)|\bcaught signal\b|\bSIGSEGV\b|\bSIGABRT\b`)
)

// Classify places one WARN or error text in the libraries' taxonomy: an
// ncclResult_t (by name, by ncclGetErrorString's text or by number), an IB
// async event (by ibv_event_type_str), a work-completion status, a system
// error (by strerror text), a CUDA failure or a timeout. ok is false when the
// text fits no class: the caller reports it as unclassified, never as fine.
func Classify(msg string) (c Class, ok bool) {
	if m := asyncRe.FindStringSubmatch(msg); m != nil {
		return asyncClass(msg, m)
	}
	if m := completionRe.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[2])
		if n == 0 {
			return Class{}, false
		}
		return Class{Family: FamilyCompletion, Name: "IBV_WC_" + checks.WCStatusName(n), Fatal: true, Failure: checks.CompletionError,
			Meaning: "a work request completed with an error"}, true
	}
	if m := traceRe.FindStringSubmatch(msg); m != nil {
		code, _ := strconv.Atoi(m[1])
		return resultClass(code)
	}
	if m := resultNameRe.FindStringSubmatch(msg); m != nil {
		for _, r := range results {
			if r.name == m[1] {
				return resultClass(r.code)
			}
		}
	}
	for _, r := range results {
		if r.text != "" && strings.Contains(msg, r.text) {
			return resultClass(r.code)
		}
	}
	if m := resultCodeRe.FindStringSubmatch(msg); m != nil {
		code, _ := strconv.Atoi(m[1])
		if c, ok := resultClass(code); ok {
			return c, true
		}
	}
	if cudaRe.MatchString(msg) {
		return resultClass(1)
	}
	if usageRe.MatchString(msg) {
		return resultClass(5)
	}
	if argumentRe.MatchString(msg) {
		return resultClass(4)
	}
	if remoteClosedRe.MatchString(msg) {
		c, _ := resultClass(6)
		return c, true
	}
	for _, e := range errnos {
		if strings.Contains(msg, e.text) {
			return Class{Family: FamilyErrno, Name: e.name, Fatal: true, Failure: e.failure, Meaning: strings.ToLower(e.text[:1]) + e.text[1:]}, true
		}
	}
	if callFailedRe.MatchString(msg) {
		return resultClass(2)
	}
	if timeoutRe.MatchString(envNameRe.ReplaceAllString(msg, "")) {
		return Class{Family: FamilyTimeout, Name: "timeout", Fatal: true, Failure: checks.Timeout, Meaning: "an operation ran out of time"}, true
	}
	if abortRe.MatchString(msg) {
		return Class{Family: FamilyResult, Name: "abort", Fatal: true, Meaning: "the process or communicator was aborted"}, true
	}
	return Class{}, false
}

// asyncClass names the event of an async-event line by its text (or, when
// NCCL printed only "unknown event type (N)", leaves it unclassified).
func asyncClass(msg string, m []string) (Class, bool) {
	text := strings.TrimSpace(m[1])
	for _, e := range asyncEvents {
		if strings.EqualFold(text, e.str) || strings.HasPrefix(strings.ToLower(text), strings.ToLower(e.str)) {
			fatal := e.fatal || strings.Contains(msg, "async fatal event")
			return Class{Family: FamilyAsyncEvent, Name: e.name, Fatal: fatal, Failure: e.failure, Meaning: e.meaning}, true
		}
	}
	if strings.Contains(msg, "async fatal event") {
		return Class{Family: FamilyAsyncEvent, Name: "fatal event", Fatal: true, Meaning: "NCCL reported a fatal async event: " + text}, true
	}
	return Class{}, false
}

// describe writes a classified line for a finding: the class, what it means
// and the line itself.
func (c Class) describe(line string) string {
	if len(line) > 300 {
		line = line[:300] + "…"
	}
	return fmt.Sprintf("%s (%s): %s — %s", c.Name, c.Family, c.Meaning, line)
}
