package fabric

import (
	"fmt"
	"regexp"
	"strings"
	"time"
)

var counterNameRE = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// checks validates spec.checks (the types are in checks.go).
func (v *validator) checks(c *Checks) {
	perftestCommon := func(path string, size Bytes, dur Duration, minPct, minBest int, maxLat Duration, retries *int, qpTimeout int) {
		if minPct < 0 || minPct > 100 {
			v.ferr(path+".minPercentOfPortRate", "%d is outside 0..100", minPct)
		}
		if minBest < 0 || minBest > 100 {
			v.ferr(path+".minPercentOfBest", "%d is outside 1..100 (0 or absent: %d)", minBest, DefaultMinPercentOfBest)
		}
		if size < 0 || size > 1<<30 {
			v.ferr(path+".messageSize", "%s is outside 1B..1GiB", size)
		}
		if dur < 0 {
			v.ferr(path+".duration", "must be positive")
		} else if dur%Duration(1e9) != 0 || (dur > 0 && dur < Duration(5e9)) {
			v.ferr(path+".duration", "%s: perftest runs whole seconds, at least 5s", dur)
		}
		// maxLatency bounds *_lat tests; DESIGN.md's example sets it beside
		// write_bw, so a bandwidth test accepts (and ignores) it.
		if maxLat < 0 {
			v.ferr(path+".maxLatency", "must be positive")
		}
		if retries != nil && (*retries < 0 || *retries > 10) {
			v.ferr(path+".retries", "%d is outside 0..10", *retries)
		}
		if qpTimeout < 0 || qpTimeout > MaxQPTimeout {
			v.ferr(path+".qpTimeout", "%d is outside 1..%d (0 or absent: perftest's 14)", qpTimeout, MaxQPTimeout)
		}
	}
	if l := c.Loopback; l != nil {
		perftestCommon("spec.checks.loopback", l.MessageSize, l.Duration, l.MinPercentOfPortRate, l.MinPercentOfBest, l.MaxLatency, l.Retries, l.QPTimeout)
	}
	if p := c.Pairwise; p != nil {
		perftestCommon("spec.checks.pairwise", p.MessageSize, p.Duration, p.MinPercentOfPortRate, p.MinPercentOfBest, p.MaxLatency, p.Retries, p.QPTimeout)
		if p.Schedule == "cross-leaf" {
			for i, h := range v.f.Spec.Hosts {
				if h.Labels["leaf"] == "" {
					v.ferr(fmt.Sprintf("spec.hosts[%d].labels", i), "schedule cross-leaf needs a leaf label on every host; %s has none", h.Name)
				}
			}
		}
		if p.Bidirectional && strings.HasSuffix(p.Test, "_lat") {
			v.ferr("spec.checks.pairwise.bidirectional", "applies to bandwidth tests; test %s measures latency", p.Test)
		}
		if r := p.LocalizeRounds; r != nil && (*r < 0 || *r > MaxLocalizeRounds) {
			v.ferr("spec.checks.pairwise.localizeRounds", "%d is outside 0..%d (absent: %d)", *r, MaxLocalizeRounds, DefaultLocalizeRounds)
		}
		if p.Partners < 0 || p.Partners > 16 {
			v.ferr("spec.checks.pairwise.partners", "%d is outside 1..16 (0 or absent: %d)", p.Partners, DefaultPartners)
		}
		if len(v.f.Spec.Hosts) < 2 {
			v.ferr("spec.checks.pairwise", "a pairwise sweep needs at least two hosts")
		}
	}
	if n := c.NCCL; n != nil {
		v.ncclChecks(n)
	}
	if in := c.Incast; in != nil {
		v.incastChecks(in)
	}
	if r := c.Counters; r != nil {
		if r.Sigma < 0 || r.Sigma > 100 {
			v.ferr("spec.checks.counters.sigma", "%g is outside 0..100 (0 or absent: %g)", r.Sigma, DefaultSigma)
		}
		if r.MinEvents < 0 {
			v.ferr("spec.checks.counters.minEvents", "%d is negative", r.MinEvents)
		}
		if r.MinPerGB < 0 {
			v.ferr("spec.checks.counters.minPerGB", "%g is negative", r.MinPerGB)
		}
		if r.MaxHealthyPerTest < 0 {
			v.ferr("spec.checks.counters.maxHealthyPerTest", "%d is negative", r.MaxHealthyPerTest)
		}
		seen := map[string]bool{}
		for i, n := range r.Ignore {
			p := fmt.Sprintf("spec.checks.counters.ignore[%d]", i)
			switch {
			case !counterNameRE.MatchString(n):
				v.ferr(p, "%q is not a counter name (as in hw_counters/, counters/ or ethtool -S)", n)
			case seen[n]:
				v.ferr(p, "%s is listed twice", n)
			}
			seen[n] = true
		}
	}
}

// maxNCCLBytes is the largest all-reduce the NCCL check sizes to.
const maxNCCLBytes = 16 << 30

// ncclChecks validates spec.checks.nccl.
func (v *validator) ncclChecks(n *NCCL) {
	const at = "spec.checks.nccl."
	if n.RanksPerHost < 0 || n.RanksPerHost > 64 {
		v.ferr(at+"ranksPerHost", "%d is outside 0..64", n.RanksPerHost)
	}
	if n.MinBytes < 0 || n.MinBytes > maxNCCLBytes {
		v.ferr(at+"minBytes", "%s is outside 0..16GiB", n.MinBytes)
	}
	if n.MaxBytes < 0 || n.MaxBytes > maxNCCLBytes {
		v.ferr(at+"maxBytes", "%s is outside 0..16GiB", n.MaxBytes)
	}
	if n.MaxBytes > 0 && n.MinBytes > n.MaxBytes {
		v.ferr(at+"minBytes", "%s is larger than maxBytes %s", n.MinBytes, n.MaxBytes)
	}
	if n.Iterations < 0 || n.Iterations > 10000 {
		v.ferr(at+"iterations", "%d is outside 1..10000", n.Iterations)
	}
	if n.Timeout < 0 {
		v.ferr(at+"timeout", "must be positive")
	}
	if n.Port < 0 || n.Port > 65535 {
		v.ferr(at+"port", "%d is outside 1..65535", n.Port)
	}
	if n.MinPercentOfPortRate < 0 || n.MinPercentOfPortRate > 100 {
		v.ferr(at+"minPercentOfPortRate", "%d is outside 0..100", n.MinPercentOfPortRate)
	}
	if strings.HasPrefix(n.Python, "-") || strings.ContainsAny(n.Python, "\x00\n") {
		v.ferr(at+"python", "%q is not a program name or path", n.Python)
	}
	if strings.ContainsAny(n.OOBInterface, " /\x00\n") || len(n.OOBInterface) > 15 {
		v.ferr(at+"oobInterface", "%q is not an interface name", n.OOBInterface)
	}
	for _, k := range sortedKeys(n.Env) {
		if !ncclEnvRe.MatchString(k) {
			v.ferr(at+"env."+k, "not an NCCL variable (NCCL_ followed by capitals, digits and underscores)")
		}
		if strings.ContainsAny(n.Env[k], "\x00\n") {
			v.ferr(at+"env."+k, "the value holds a NUL or a line break")
		}
	}
}

var ncclEnvRe = regexp.MustCompile(`^NCCL_[A-Z0-9_]+$`)

// incastChecks validates spec.checks.incast.
func (v *validator) incastChecks(in *Incast) {
	const at = "spec.checks.incast."
	if in.Senders < 0 || in.Senders > 1024 {
		v.ferr(at+"senders", "%d is outside 1..1024 (0 or absent: %d)", in.Senders, DefaultIncastSenders)
	}
	if in.MessageSize < 0 || in.MessageSize > 1<<30 {
		v.ferr(at+"messageSize", "%s is outside 1B..1GiB", in.MessageSize)
	}
	if in.QPs < 0 || in.QPs > 16384 {
		v.ferr(at+"qps", "%d is outside 1..16384 (0 or absent: %d)", in.QPs, DefaultIncastQPs)
	}
	if in.Duration < 0 {
		v.ferr(at+"duration", "must be positive")
	} else if in.Duration%Duration(time.Second) != 0 || (in.Duration > 0 && in.Duration < Duration(5*time.Second)) {
		v.ferr(at+"duration", "%s: perftest runs whole seconds, at least 5s", in.Duration)
	}
	if in.ReceiversPerLeaf < 0 || in.ReceiversPerLeaf > 64 {
		v.ferr(at+"receiversPerLeaf", "%d is outside 1..64 (0 or absent: %d)", in.ReceiversPerLeaf, DefaultIncastReceiversPerLeaf)
	}
	if in.Retries != nil && (*in.Retries < 0 || *in.Retries > 10) {
		v.ferr(at+"retries", "%d is outside 0..10", *in.Retries)
	}
	if in.QPTimeout < 0 || in.QPTimeout > MaxQPTimeout {
		v.ferr(at+"qpTimeout", "%d is outside 1..%d (0 or absent: perftest's 14)", in.QPTimeout, MaxQPTimeout)
	}
	if b := in.Bounds; b != nil {
		if b.MaxPausedPercent < 0 || b.MaxPausedPercent > 100 {
			v.ferr(at+"bounds.maxPausedPercent", "%g is outside 0..100 (0 or absent: 50)", b.MaxPausedPercent)
		}
		if b.HeavyPausedPercent < 0 || b.HeavyPausedPercent > 100 {
			v.ferr(at+"bounds.heavyPausedPercent", "%g is outside 0..100 (0 or absent: 5)", b.HeavyPausedPercent)
		}
		if b.HeavyPausedPercent > 0 && b.MaxPausedPercent > 0 && b.HeavyPausedPercent >= b.MaxPausedPercent {
			v.ferr(at+"bounds.heavyPausedPercent", "%g is not below maxPausedPercent %g: heavy pausing is less than a storm", b.HeavyPausedPercent, b.MaxPausedPercent)
		}
		if b.HeavyPauseFrames < 0 {
			v.ferr(at+"bounds.heavyPauseFrames", "%d is negative", b.HeavyPauseFrames)
		}
	}
	seen := map[string]bool{}
	for i, n := range in.Ignore {
		p := fmt.Sprintf(at+"ignore[%d]", i)
		switch {
		case !incastCounterRE.MatchString(n):
			v.ferr(p, "%q is not a counter name (as in hw_counters/ or ethtool -S)", n)
		case seen[n]:
			v.ferr(p, "%s is listed twice", n)
		}
		seen[n] = true
	}
	if len(v.f.Spec.Hosts) < 2 {
		v.ferr("spec.checks.incast", "an incast needs at least two hosts")
	}
}

// incastCounterRE is a host counter name: hw_counters' and ethtool -S's
// (irdma's and ice's hold capitals and dots).
var incastCounterRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.]{0,63}$`)
