package k8s

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"

	"github.com/fabricctl/fabricctl/fabric"
)

// npdMargin is what NPD's timeout adds to the check's budget.
const npdMargin = 5 * time.Second

// imageRef is an image reference as container runtimes read it: [DOMAIN[:PORT]/]PATH[:TAG][@DIGEST],
// PATH lowercase components separated by '/', a component's words joined by '.', '_', '__' or
// dashes; DOMAIN a host name or a bracketed IPv6 address.
var imageRef = func() *regexp.Regexp {
	const (
		word      = `[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*`
		path      = word + `(?:/` + word + `)*`
		host      = `(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*|\[[0-9a-fA-F:.]+\])`
		domain    = host + `(?::[0-9]+)?`
		tag       = `[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}`
		algorithm = `[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*`
		digest    = algorithm + `:[0-9a-fA-F]{32,}`
	)
	return regexp.MustCompile(`^(?:` + domain + `/)?` + path + `(?::` + tag + `)?(?:@` + digest + `)?$`)
}()

// maxImageName bounds an image's name (before its tag and digest).
const maxImageName = 255

// Validate refuses options that would make a broken manifest, each named by the flag of
// `fabricctl k8s render` that sets it, with Kubernetes' rule for its field: the namespace a
// DNS-1123 label, the images image references, the RDMA resource an extended resource
// (DOMAIN/NAME, a qualified name), the condition a qualified name (as a condition type is), the
// node selector's keys and values label keys and values. Interval and Budget must be positive,
// and NPD's timeout (Budget plus 5 s) shorter than Interval: NPD runs the check every interval
// and waits for it, so a longer one would run back to back (and a zero interval makes NPD's
// ticker panic). Validate checks the options as given (the command's flags always carry a
// value); Render fills in the zero ones first.
func (o Options) Validate() error {
	var errs []error
	bad := func(flag, v string, msgs []string) {
		if len(msgs) > 0 {
			errs = append(errs, fmt.Errorf("%s %+q: %s", flag, v, strings.Join(msgs, "; ")))
		}
	}
	bad("--namespace", o.Namespace, content.IsDNS1123Label(o.Namespace))
	for _, img := range [2]struct{ flag, v string }{{"--image", o.Image}, {"--npd-image", o.NPDImage}} {
		bad(img.flag, img.v, imageProblems(img.v))
	}
	bad("--rdma-resource", o.RDMAResource, resourceProblems(o.RDMAResource))
	bad("--condition", o.Condition, content.IsLabelKey(o.Condition))
	for _, k := range slices.Sorted(maps.Keys(o.NodeSelector)) {
		v := o.NodeSelector[k]
		bad("--node-selector", k+"="+v, append(content.IsLabelKey(k), content.IsLabelValue(v)...))
	}
	switch {
	case o.Interval <= 0:
		errs = append(errs, fmt.Errorf("--interval %s: must be positive", o.Interval))
	case o.Budget <= 0:
		errs = append(errs, fmt.Errorf("--budget %s: must be positive", o.Budget))
	case o.Budget >= o.Interval-npdMargin:
		errs = append(errs, fmt.Errorf("--budget %s: NPD's timeout (the budget + %s) must be shorter than --interval %s: NPD waits for each run", o.Budget, npdMargin, o.Interval))
	}
	return errors.Join(errs...)
}

// imageProblems says why s is no image reference.
func imageProblems(s string) []string {
	name, _, _ := strings.Cut(s, "@")
	if i := strings.LastIndexByte(name, ':'); i > strings.LastIndexByte(name, '/') {
		name = name[:i]
	}
	switch {
	case !imageRef.MatchString(s):
		return []string{"not an image reference ([REGISTRY[:PORT]/]NAME[:TAG][@DIGEST], NAME lowercase)"}
	case len(name) > maxImageName:
		return []string{fmt.Sprintf("not an image reference: its name is over %d characters", maxImageName)}
	}
	return nil
}

// resourceProblems says why s is no extended resource name: Kubernetes takes only DOMAIN/NAME
// for resources it does not know, and none in its own kubernetes.io domain.
func resourceProblems(s string) []string {
	msgs := content.IsLabelKey(s)
	domain, _, ok := strings.Cut(s, "/")
	switch {
	case !ok:
		msgs = append(msgs, "an extended resource is DOMAIN/NAME")
	case domain == "kubernetes.io" || strings.HasSuffix(domain, ".kubernetes.io"):
		msgs = append(msgs, "the kubernetes.io domain holds no extended resources")
	}
	return msgs
}

// maxJobName bounds a Job's name: Kubernetes puts it into its pods' job-name label, whose
// values are at most 63 characters.
const maxJobName = content.LabelValueMaxLength

// checkNames refuses names from the fabric that Kubernetes would refuse or never match: a Job
// name (from the fabric's name) that is no DNS-1123 subdomain of at most 63 characters, a host
// whose node name (NodeLabel, else its name) is no DNS-1123 subdomain.
func checkNames(fabricName string, hosts []fabric.HostIntent, jobs []*batchv1.Job) error {
	var errs []error
	for _, j := range jobs {
		msgs := content.IsDNS1123Subdomain(j.Name)
		if len(j.Name) > maxJobName {
			msgs = append(msgs, content.MaxLenError(maxJobName))
		}
		if len(msgs) > 0 {
			errs = append(errs, fmt.Errorf("%w: Job %+q (from the fabric's name %+q): %s", ErrRender, j.Name, fabricName, strings.Join(msgs, "; ")))
			break // every round's Job is named alike
		}
	}
	for _, h := range hosts {
		if msgs := content.IsDNS1123Subdomain(NodeOf(h)); len(msgs) > 0 {
			errs = append(errs, fmt.Errorf("%w: host %s: Kubernetes node %+q (label %s): %s", ErrRender, h.Host, NodeOf(h), NodeLabel, strings.Join(msgs, "; ")))
		}
	}
	return errors.Join(errs...)
}
