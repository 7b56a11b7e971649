package k8s

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/fabricctl/fabricctl/action/check"
	"github.com/fabricctl/fabricctl/action/checklocal/nhc"
	"github.com/fabricctl/fabricctl/action/launch/task"
	"github.com/fabricctl/fabricctl/checks/rdma"
	"github.com/fabricctl/fabricctl/checks/schedule"
	"github.com/fabricctl/fabricctl/fabric"
)

// NodeLabel is the fabric host label naming the host's Kubernetes node when it differs from the
// host name (labels: {fabricctl.io/k8s-node: gpu-017.example.com}).
const NodeLabel = "fabricctl.io/k8s-node"

// Defaults of Options. The NPD image is the one NPD's own deployment/node-problem-detector.yaml
// names; the RDMA resource is the Mellanox k8s-rdma-shared-dev-plugin's example
// (resourcePrefix "rdma", resourceName "rdma_shared_device_a").
const (
	DefaultNamespace    = "fabricctl"
	DefaultImage        = "ghcr.io/fabricctl/fabricctl:latest"
	DefaultNPDImage     = "registry.k8s.io/node-problem-detector/node-problem-detector:v0.8.19"
	DefaultRDMAResource = "rdma/rdma_shared_device_a"
	// DefaultCondition is the node condition NPD sets. NPD conditions name a problem: True means
	// the node has it (NonOK → True, OK → False; NPD's own are KubeletUnhealthy, NTPProblem).
	DefaultCondition = "RDMAFabricUnhealthy"
	DefaultInterval  = 5 * time.Minute
	// Binary is where the DaemonSet's init container puts fabricctl for NPD to run.
	Binary = "/opt/fabricctl/bin/fabricctl"
	// FabricPath is where the ConfigMap's fabric file is mounted.
	FabricPath = "/etc/fabricctl/fabric.yaml"
	// MonitorPath is where NPD reads the custom plugin monitor's configuration.
	MonitorPath = "/etc/fabricctl/fabricctl-monitor.json"
)

// Options say what to render.
type Options struct {
	Namespace string
	// Image is a fabricctl image with perftest and rdma-core (the Jobs run it; the DaemonSet
	// copies its /usr/local/bin/fabricctl, a static binary, for NPD).
	Image        string
	NPDImage     string
	RDMAResource string
	Condition    string
	// Interval is how often NPD runs the check; Budget bounds the check (NPD's timeout is
	// Budget plus 5 s).
	Interval time.Duration
	Budget   time.Duration
	// NodeSelector restricts the DaemonSet and the Jobs (besides each Job's node list).
	NodeSelector map[string]string
}

func (o Options) withDefaults() Options {
	if o.Namespace == "" {
		o.Namespace = DefaultNamespace
	}
	if o.Image == "" {
		o.Image = DefaultImage
	}
	if o.NPDImage == "" {
		o.NPDImage = DefaultNPDImage
	}
	if o.RDMAResource == "" {
		o.RDMAResource = DefaultRDMAResource
	}
	if o.Condition == "" {
		o.Condition = DefaultCondition
	}
	if o.Interval == 0 {
		o.Interval = DefaultInterval
	}
	if o.Budget == 0 {
		o.Budget = nhc.DefaultBudget
	}
	return o
}

// ErrRender: the fabric cannot be rendered for Kubernetes.
var ErrRender = errors.New("rendering Kubernetes manifests")

// NodeOf maps a host to its Kubernetes node name: NodeLabel, else the host name.
func NodeOf(h fabric.HostIntent) string {
	if n := h.Labels[NodeLabel]; n != "" {
		return n
	}
	return h.Host
}

// Manifests are the rendered objects: the node health check (namespace, RBAC, ConfigMap,
// DaemonSet) and one Indexed Job per pairwise round.
type Manifests struct {
	Health []runtime.Object
	Rounds []*batchv1.Job
}

// All lists every object in apply order.
func (m Manifests) All() []runtime.Object {
	out := slices.Clone(m.Health)
	for _, j := range m.Rounds {
		out = append(out, j)
	}
	return out
}

const (
	appLabel   = "app.kubernetes.io/name"
	partLabel  = "app.kubernetes.io/component"
	sweepLabel = "fabricctl.io/sweep"
	roundLabel = "fabricctl.io/round"
)

// Render makes the manifests of f. Zero options take their defaults; then options Validate
// refuses, a fabric name that makes a Job name Kubernetes refuses and a host whose node name is
// no DNS name are errors (ErrRender).
func Render(f *fabric.Fabric, o Options) (Manifests, error) {
	o = o.withDefaults()
	if err := o.Validate(); err != nil {
		return Manifests{}, fmt.Errorf("%w: %w", ErrRender, err)
	}
	hosts := f.Resolve().Hosts
	if len(hosts) == 0 {
		return Manifests{}, fmt.Errorf("%w: the fabric has no hosts", ErrRender)
	}
	fab, err := selfContained(f)
	if err != nil {
		return Manifests{}, err
	}
	mon, err := json.MarshalIndent(MonitorConfig(o), "", "  ")
	if err != nil {
		return Manifests{}, fmt.Errorf("%w: %w", ErrRender, err)
	}
	var m Manifests
	m.Health = healthObjects(f.Metadata.Name, o, string(mon)+"\n", string(fab))
	jobs, err := roundJobs(f, hosts, o)
	if err != nil {
		return Manifests{}, err
	}
	if err := checkNames(f.Metadata.Name, hosts, jobs); err != nil {
		return Manifests{}, err
	}
	m.Rounds = jobs
	return m, nil
}

// MonitorConfig is NPD's custom plugin monitor configuration: one permanent rule running
// `fabricctl check --local -o nhc` (exit 0 OK, 1 NonOK, 2 Unknown; the ERROR line becomes the
// condition's message).
func MonitorConfig(o Options) NPDConfig {
	o = o.withDefaults()
	maxOut, conc, msgUpdate, metrics := nhc.MaxLine, 1, true, true
	timeout := (o.Budget + 5*time.Second).String()
	return NPDConfig{
		Plugin: "custom",
		PluginConfig: NPDGlobalConfig{InvokeInterval: o.Interval.String(), Timeout: timeout, MaxOutputLength: &maxOut,
			Concurrency: &conc, EnableMessageChangeBasedConditionUpdate: &msgUpdate},
		Source:           "fabricctl-custom-plugin-monitor",
		MetricsReporting: &metrics,
		Conditions: []NPDCondition{{Type: o.Condition, Reason: "RDMAFabricIsHealthy",
			Message: "fabricctl check --local found the node's RDMA fabric healthy"}},
		Rules: []NPDRule{{Type: "permanent", Condition: o.Condition, Reason: "RDMAFabricCheckFailed", Path: Binary,
			Args:    []string{"check", "--local", "-o", "nhc", "--budget", o.Budget.String(), "-f", FabricPath},
			Timeout: timeout}},
	}
}

// selfContained writes f as one fabric file with every profile inline (no includes), for the
// ConfigMap.
func selfContained(f *fabric.Fabric) ([]byte, error) {
	c := *f
	c.Spec.Include = nil
	c.Spec.Profiles = nil
	for _, name := range slices.Sorted(maps.Keys(f.Profiles)) {
		c.Spec.Profiles = append(c.Spec.Profiles, *f.Profiles[name])
	}
	var b bytes.Buffer
	b.WriteString("# rendered by fabricctl k8s render: the fabric with its profiles inline\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(c); err != nil {
		return nil, fmt.Errorf("%w: writing the fabric: %w", ErrRender, err)
	}
	return b.Bytes(), nil
}

func labels(fabricName, part string) map[string]string {
	return map[string]string{appLabel: "fabricctl", partLabel: part, sweepLabel: fabricName}
}

var nodeNameEnv = corev1.EnvVar{Name: "NODE_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "spec.nodeName"}}}

func healthObjects(fabricName string, o Options, monitor, fab string) []runtime.Object {
	name := "fabricctl-npd"
	lb := labels(fabricName, "node-health")
	ns := &corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: metav1.ObjectMeta{Name: o.Namespace}}
	sa := &corev1.ServiceAccount{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: o.Namespace, Labels: lb}}
	// what NPD needs (its deployment/rbac.yaml binds system:node-problem-detector): read nodes,
	// patch their status (conditions), write events
	role := &rbacv1.ClusterRole{TypeMeta: metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: lb},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"get"}},
			{APIGroups: []string{""}, Resources: []string{"nodes/status"}, Verbs: []string{"patch"}},
			{APIGroups: []string{"", "events.k8s.io"}, Resources: []string{"events"}, Verbs: []string{"create", "patch", "update"}},
		}}
	bind := &rbacv1.ClusterRoleBinding{TypeMeta: metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRoleBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: lb},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: name},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: name, Namespace: o.Namespace}}}
	cm := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: o.Namespace, Labels: lb},
		Data:       map[string]string{"fabricctl-monitor.json": monitor, "fabric.yaml": fab}}
	privileged := true
	binDir := Binary[:strings.LastIndex(Binary, "/")]
	ds := &appsv1.DaemonSet{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: o.Namespace, Labels: lb},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: lb},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: lb},
				Spec: corev1.PodSpec{
					ServiceAccountName: name,
					// the node's own network namespace: its netdevs and RDMA devices in /sys
					HostNetwork:       true,
					DNSPolicy:         corev1.DNSClusterFirstWithHostNet,
					PriorityClassName: "system-node-critical",
					NodeSelector:      o.NodeSelector,
					Tolerations:       []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
					InitContainers: []corev1.Container{{
						Name:         "fabricctl",
						Image:        o.Image,
						Command:      []string{"cp", "/usr/local/bin/fabricctl", Binary},
						VolumeMounts: []corev1.VolumeMount{{Name: "bin", MountPath: binDir}},
					}},
					Containers: []corev1.Container{{
						Name:    "node-problem-detector",
						Image:   o.NPDImage,
						Command: []string{"/node-problem-detector", "--logtostderr", "--config.custom-plugin-monitor=" + MonitorPath},
						Env:     []corev1.EnvVar{nodeNameEnv},
						Resources: corev1.ResourceRequirements{
							Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("80Mi")},
							Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("200Mi")},
						},
						SecurityContext: &corev1.SecurityContext{Privileged: &privileged},
						VolumeMounts: []corev1.VolumeMount{
							{Name: "bin", MountPath: binDir, ReadOnly: true},
							{Name: "config", MountPath: "/etc/fabricctl", ReadOnly: true},
							{Name: "configfs", MountPath: "/sys/kernel/config", ReadOnly: true},
						},
					}},
					Volumes: []corev1.Volume{
						{Name: "bin", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
						{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: name}}}},
						{Name: "configfs", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/sys/kernel/config"}}},
					},
				},
			},
		}}
	return []runtime.Object{ns, sa, role, bind, cm, ds}
}

// roundJobs makes one Indexed Job per round of the fabric's pairwise schedule.
func roundJobs(f *fabric.Fabric, hosts []fabric.HostIntent, o Options) ([]*batchv1.Job, error) {
	test, kind := check.PairwiseTest(f.Spec.Checks)
	byName := map[string]fabric.HostIntent{}
	sh := make([]schedule.Host, len(hosts))
	for i, h := range hosts {
		byName[h.Host] = h
		sh[i] = schedule.Host{Name: h.Host, Labels: h.Labels}
	}
	plan, err := schedule.Build(kind, sh)
	if err != nil {
		return nil, fmt.Errorf("%w: planning the pairwise sweep: %w", ErrRender, err)
	}
	nodeOf := func(h string) string { return NodeOf(byName[h]) }
	width := len(strconv.Itoa(len(plan.Rounds)))
	var out []*batchv1.Job
	for ri, round := range plan.Rounds {
		var jobs []rdma.Job
		for pi, p := range round {
			jobs = append(jobs, rdma.Job{Server: endpoint(byName[p.Server]), Client: endpoint(byName[p.Client]), Test: test, TCPPort: rdma.DefaultBasePort + pi})
		}
		spec := task.RoundSpec(jobs, nodeOf)
		for i := range spec.Jobs {
			spec.Jobs[i].Server.Interface = iface(byName[round[i].Server])
			spec.Jobs[i].Client.Interface = iface(byName[round[i].Client])
		}
		args, err := task.EncodeArgs(spec)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrRender, err)
		}
		out = append(out, roundJob(f.Metadata.Name, fmt.Sprintf("%0*d", width, ri+1), spec.Nodes(), args, test.Bound(), o))
	}
	return out, nil
}

func endpoint(h fabric.HostIntent) rdma.Endpoint {
	return rdma.Endpoint{Host: h.Host, Address: h.Address, Labels: h.Labels}
}

// iface is the host's first RoCE netdev ("" = every RDMA netdev).
func iface(h fabric.HostIntent) string {
	for _, in := range h.Interfaces {
		if in.Name != fabric.AllRDMANetdevs {
			return in.Name
		}
	}
	return ""
}

// roundJob is one round: as many pods as the round has nodes, at most one per node (pod
// anti-affinity) and only on the round's nodes (node affinity), so the scheduler places exactly
// one pod on each; each pod's task finds its pair from NODE_NAME.
func roundJob(fabricName, round string, nodes []string, args []string, bound time.Duration, o Options) *batchv1.Job {
	n := int32(len(nodes))
	lb := labels(fabricName, "pairwise-round")
	lb[roundLabel] = round
	indexed := batchv1.IndexedCompletion
	backoff := int32(0)
	deadline := int64((bound + 5*time.Minute).Seconds())
	ttl := int32(3600)
	one := resource.MustParse("1")
	return &batchv1.Job{TypeMeta: metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("fabricctl-%s-round-%s", fabricName, round), Namespace: o.Namespace, Labels: lb},
		Spec: batchv1.JobSpec{
			CompletionMode:          &indexed,
			Completions:             &n,
			Parallelism:             &n,
			BackoffLimit:            &backoff,
			ActiveDeadlineSeconds:   &deadline,
			TTLSecondsAfterFinished: &ttl,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: lb},
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					HostNetwork:   true,
					DNSPolicy:     corev1.DNSClusterFirstWithHostNet,
					NodeSelector:  o.NodeSelector,
					Tolerations:   []corev1.Toleration{{Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
					Affinity: &corev1.Affinity{
						NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
							NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{
								Key: "kubernetes.io/hostname", Operator: corev1.NodeSelectorOpIn, Values: slices.Sorted(slices.Values(nodes))}}}}}},
						PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
							LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{sweepLabel: fabricName, roundLabel: round}},
							TopologyKey:   "kubernetes.io/hostname"}}},
					},
					Containers: []corev1.Container{{
						Name:    "perftest",
						Image:   o.Image,
						Command: []string{"fabricctl", "task"},
						Args:    args,
						Env:     []corev1.EnvVar{nodeNameEnv},
						Resources: corev1.ResourceRequirements{
							Requests: corev1.ResourceList{corev1.ResourceName(o.RDMAResource): one},
							Limits:   corev1.ResourceList{corev1.ResourceName(o.RDMAResource): one},
						},
						// perftest registers (pins) its buffers
						SecurityContext: &corev1.SecurityContext{Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"IPC_LOCK"}}},
					}},
				},
			},
		}}
}

// Write writes objects as one YAML stream, "---" between documents.
func Write(objs []runtime.Object) ([]byte, error) {
	var b bytes.Buffer
	for i, obj := range objs {
		y, err := sigsyaml.Marshal(obj)
		if err != nil {
			return nil, fmt.Errorf("%w: encoding %T: %w", ErrRender, obj, err)
		}
		if i > 0 {
			b.WriteString("---\n")
		}
		b.Write(y)
	}
	return b.Bytes(), nil
}
