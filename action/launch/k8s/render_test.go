package k8s

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"

	"github.com/fabricctl/fabricctl/action/launch/task"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/testutil"
)

func loadFabric(t *testing.T, rel string) *fabric.Fabric {
	t.Helper()
	f, err := fabric.Load(filepath.Join(testutil.RepoRoot(t), rel))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// strictDecoder decodes YAML documents into the typed objects of their apiVersion/kind,
// refusing unknown and duplicate fields (apimachinery's strict serializer).
func strictDecoder(t *testing.T) runtime.Decoder {
	t.Helper()
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, appsv1.AddToScheme, batchv1.AddToScheme, rbacv1.AddToScheme} {
		if err := add(s); err != nil {
			t.Fatal(err)
		}
	}
	return kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, s, s, kjson.SerializerOptions{Yaml: true, Strict: true})
}

func documents(stream []byte) [][]byte {
	var out [][]byte
	for _, d := range bytes.Split(stream, []byte("\n---\n")) {
		if len(bytes.TrimSpace(d)) > 0 {
			out = append(out, d)
		}
	}
	return out
}

// TestRenderDecodesStrictly: every document of the rendered stream decodes strictly into its
// typed object, and a stray field is refused (the test can fail).
func TestRenderDecodesStrictly(t *testing.T) {
	f := loadFabric(t, "profiles/lab/fabric.yaml")
	m, err := Render(f, Options{Image: "registry.example/fabricctl:v1"})
	if err != nil {
		t.Fatal(err)
	}
	stream, err := Write(m.All())
	if err != nil {
		t.Fatal(err)
	}
	dec := strictDecoder(t)
	kinds := map[string]int{}
	for i, doc := range documents(stream) {
		obj, gvk, err := dec.Decode(doc, nil, nil)
		if err != nil {
			t.Fatalf("document %d: %v\n%s", i, err, doc)
		}
		kinds[gvk.Kind]++
		if want := m.All()[i]; !cmp.Equal(obj, want) {
			t.Errorf("document %d (%s) decodes to something else: %s", i, gvk.Kind, cmp.Diff(want, obj))
		}
	}
	want := map[string]int{"Namespace": 1, "ServiceAccount": 1, "ClusterRole": 1, "ClusterRoleBinding": 1, "ConfigMap": 1, "DaemonSet": 1, "Job": 3}
	if !cmp.Equal(kinds, want) {
		t.Errorf("kinds %v, want %v (3 rounds for 4 hosts, all-pairs)", kinds, want)
	}
	bad := bytes.Replace(documents(stream)[5], []byte("hostNetwork: true"), []byte("hostNetwork: true\n      hostNetwrk: true"), 1)
	if _, _, err := dec.Decode(bad, nil, nil); err == nil || !strings.Contains(err.Error(), "unknown field") {
		t.Errorf("a misspelled field decoded: %v", err)
	}
	testutil.Golden(t, "lab.yaml.golden", stream)
}

// TestMonitorConfig: the ConfigMap's NPD configuration decodes strictly into NPD's types (as
// mirrored) and satisfies the rules of NPD's CustomPluginConfig.Validate: plugin "custom", a
// positive invoke interval, rule timeouts within the global one, a default condition for every
// permanent rule.
func TestMonitorConfig(t *testing.T) {
	m, err := Render(loadFabric(t, "profiles/lab/fabric.yaml"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	cm := m.Health[4].(*corev1.ConfigMap)
	dec := json.NewDecoder(strings.NewReader(cm.Data["fabricctl-monitor.json"]))
	dec.DisallowUnknownFields()
	var c NPDConfig
	if err := dec.Decode(&c); err != nil {
		t.Fatal(err)
	}
	global, err := time.ParseDuration(c.PluginConfig.Timeout)
	if err != nil {
		t.Fatal(err)
	}
	if iv, err := time.ParseDuration(c.PluginConfig.InvokeInterval); err != nil || iv <= 0 {
		t.Errorf("invoke interval %q", c.PluginConfig.InvokeInterval)
	}
	if c.Plugin != "custom" || len(c.Rules) != 1 || len(c.Conditions) != 1 {
		t.Fatalf("config %+v", c)
	}
	r := c.Rules[0]
	rt, err := time.ParseDuration(r.Timeout)
	if err != nil || rt > global || r.Type != "permanent" || r.Condition != c.Conditions[0].Type || r.Condition != DefaultCondition {
		t.Errorf("rule %+v (global timeout %s)", r, global)
	}
	if !slices.Equal(r.Args[:4], []string{"check", "--local", "-o", "nhc"}) || r.Path != Binary {
		t.Errorf("rule runs %s %q", r.Path, r.Args)
	}
	// NPD kills the plugin at the rule timeout; fabricctl answers within its budget before that
	budget, _ := time.ParseDuration(r.Args[slices.Index(r.Args, "--budget")+1])
	if budget >= rt {
		t.Errorf("budget %s not below NPD's timeout %s", budget, rt)
	}
	// the fabric in the ConfigMap is the fabric, profiles inline
	f2, err := fabric.LoadBytes("fabric.yaml", []byte(cm.Data["fabric.yaml"]))
	if err != nil {
		t.Fatalf("the ConfigMap's fabric does not load: %v", err)
	}
	if d := cmp.Diff(loadFabric(t, "profiles/lab/fabric.yaml").Resolve().Hosts, f2.Resolve().Hosts); d != "" {
		t.Errorf("the ConfigMap's fabric resolves differently (-want +got):\n%s", d)
	}
}

// TestRoundJobs: one pod per node of the round, only there; each pod's spec names its pair.
func TestRoundJobs(t *testing.T) {
	f := loadFabric(t, "profiles/lab/fabric.yaml")
	m, err := Render(f, Options{RDMAResource: "nvidia.com/hostdev"})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, j := range m.Rounds {
		spec, err := task.DecodeArgs(j.Spec.Template.Spec.Containers[0].Args)
		if err != nil {
			t.Fatalf("%s: %v", j.Name, err)
		}
		nodes := spec.Nodes()
		if *j.Spec.Completions != int32(len(nodes)) || *j.Spec.Parallelism != int32(len(nodes)) || *j.Spec.CompletionMode != batchv1.IndexedCompletion {
			t.Errorf("%s: completions %d parallelism %d for %d nodes", j.Name, *j.Spec.Completions, *j.Spec.Parallelism, len(nodes))
		}
		aff := j.Spec.Template.Spec.Affinity
		vals := aff.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchExpressions[0].Values
		if !slices.Equal(vals, slices.Sorted(slices.Values(nodes))) || aff.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0].TopologyKey != "kubernetes.io/hostname" {
			t.Errorf("%s: affinity %v", j.Name, vals)
		}
		c := j.Spec.Template.Spec.Containers[0]
		if !j.Spec.Template.Spec.HostNetwork || c.Resources.Limits.Name("nvidia.com/hostdev", "").String() != "1" {
			t.Errorf("%s: host network %v, limits %v", j.Name, j.Spec.Template.Spec.HostNetwork, c.Resources.Limits)
		}
		for _, jb := range spec.Jobs {
			if jb.Server.Interface != "eth0" || jb.Server.Device != "" || jb.Server.Address == "" {
				t.Errorf("%s: side %+v: want the netdev, no device (found on the node)", j.Name, jb.Server)
			}
			seen[jb.Server.Host+"-"+jb.Client.Host] = true
		}
	}
	if len(seen) != 6 {
		t.Errorf("%d pairs over the rounds, want 6", len(seen))
	}
}

func TestNodeLabel(t *testing.T) {
	h := fabric.HostIntent{Host: "gpu-01", Labels: map[string]string{NodeLabel: "ip-10-0-0-1.ec2.internal"}}
	if NodeOf(h) != "ip-10-0-0-1.ec2.internal" || NodeOf(fabric.HostIntent{Host: "x"}) != "x" {
		t.Error("NodeOf")
	}
}
