package k8s

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// flagDefaults are the options `fabricctl k8s render` passes when no flag is given.
func flagDefaults() Options {
	return Options{Namespace: DefaultNamespace, Image: DefaultImage, NPDImage: DefaultNPDImage, RDMAResource: DefaultRDMAResource,
		Condition: DefaultCondition, Interval: DefaultInterval, Budget: 50 * time.Second}
}

// TestK8sValidateRefusesBrokenManifests: every option that goes into a manifest unchecked is held
// to Kubernetes' rule for its field (stated in the error), and durations that would make
// node-problem-detector's configuration broken are refused, each naming its flag.
func TestK8sValidateRefusesBrokenManifests(t *testing.T) {
	if err := flagDefaults().Validate(); err != nil {
		t.Fatalf("the flags' defaults: %v", err)
	}
	for name, c := range map[string]struct {
		edit func(*Options)
		want string
	}{
		"namespace path":  {func(o *Options) { o.Namespace = "../../etc" }, `--namespace "../../etc": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-'`},
		"namespace long":  {func(o *Options) { o.Namespace = strings.Repeat("a", 64) }, "--namespace \"" + strings.Repeat("a", 64) + "\": must be no more than 63 bytes"},
		"namespace upper": {func(o *Options) { o.Namespace = "Fabric" }, `--namespace "Fabric"`},
		"namespace empty": {func(o *Options) { o.Namespace = "" }, `--namespace "": `},
		"negative budget": {func(o *Options) { o.Budget = -time.Second }, "--budget -1s: must be positive"},
		"zero interval":   {func(o *Options) { o.Interval = 0 }, "--interval 0s: must be positive"},
		"budget over interval": {func(o *Options) { o.Interval, o.Budget = time.Minute, time.Minute },
			"--budget 1m0s: NPD's timeout (the budget + 5s) must be shorter than --interval 1m0s"},
		"image with space":     {func(o *Options) { o.Image = "registry.example/fabricctl:v1 --privileged" }, `--image "registry.example/fabricctl:v1 --privileged": not an image reference`},
		"image uppercase repo": {func(o *Options) { o.NPDImage = "Registry.example/NPD:v1" }, `--npd-image "Registry.example/NPD:v1": not an image reference`},
		"image empty":          {func(o *Options) { o.Image = "" }, `--image "": not an image reference`},
		"resource unprefixed":  {func(o *Options) { o.RDMAResource = "rdma" }, `--rdma-resource "rdma": an extended resource is DOMAIN/NAME`},
		"resource bad name":    {func(o *Options) { o.RDMAResource = "rdma/shared device" }, `--rdma-resource "rdma/shared device": name part must consist of alphanumeric characters`},
		"condition":            {func(o *Options) { o.Condition = "RDMA fabric\nunhealthy" }, `--condition "RDMA fabric\nunhealthy"`},
		"selector key":         {func(o *Options) { o.NodeSelector = map[string]string{"-bad": "x"} }, `--node-selector "-bad=x": name part must consist of alphanumeric characters`},
		"selector value":       {func(o *Options) { o.NodeSelector = map[string]string{"pool": "a b"} }, `--node-selector "pool=a b": a valid label must be an empty string or consist of alphanumeric characters`},
	} {
		o := flagDefaults()
		c.edit(&o)
		err := o.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", name, err, c.want)
		}
	}
	for _, img := range []string{"ghcr.io/fabricctl/fabricctl:latest", "registry.k8s.io/node-problem-detector/node-problem-detector:v0.8.19",
		"localhost:5000/fabricctl", "fabricctl", "registry.example/fabricctl@sha256:" + strings.Repeat("ab", 32), "[fd00::1]:5000/a/b:v1.2_3"} {
		o := flagDefaults()
		o.Image = img
		if err := o.Validate(); err != nil {
			t.Errorf("image %q: %v", img, err)
		}
	}
}

// TestK8sRenderRefusesBadOptions: Render validates the options after filling in the defaults of
// the zero ones, so a negative duration is an error, not the default.
func TestK8sRenderRefusesBadOptions(t *testing.T) {
	f := loadFabric(t, "profiles/lab/fabric.yaml")
	if _, err := Render(f, Options{}); err != nil {
		t.Fatalf("zero options (the defaults): %v", err)
	}
	_, err := Render(f, Options{Budget: -time.Second})
	if !errors.Is(err, ErrRender) || !strings.Contains(err.Error(), "--budget -1s: must be positive") {
		t.Errorf("negative budget: %v", err)
	}
	_, err = Render(f, Options{Namespace: "../../etc"})
	if !errors.Is(err, ErrRender) || !strings.Contains(err.Error(), `--namespace "../../etc"`) {
		t.Errorf("namespace: %v", err)
	}
}

// TestK8sRenderRefusesBadNames: a fabric whose name makes a Job name Kubernetes refuses (over 63
// characters: it becomes the pods' job-name label; '_' is no DNS name), or a host whose
// Kubernetes node is no node name, is an error naming it.
func TestK8sRenderRefusesBadNames(t *testing.T) {
	f := loadFabric(t, "profiles/lab/fabric.yaml")
	long := *f
	long.Metadata.Name = strings.Repeat("a", 50)
	if _, err := Render(&long, Options{}); err == nil || !strings.Contains(err.Error(), `Job "fabricctl-`+strings.Repeat("a", 50)+`-round-`) ||
		!strings.Contains(err.Error(), "must be no more than 63 bytes") {
		t.Errorf("a 50-character fabric name: %v", err)
	}
	under := *f
	under.Metadata.Name = "lab_a"
	if _, err := Render(&under, Options{}); err == nil || !strings.Contains(err.Error(), `Job "fabricctl-lab_a-round-`) {
		t.Errorf("a fabric name with '_': %v", err)
	}
	node := *f
	node.Spec.Hosts = append(node.Spec.Hosts[:0:0], f.Spec.Hosts...)
	node.Spec.Hosts[0].Labels = map[string]string{NodeLabel: "GPU 01"}
	if _, err := Render(&node, Options{}); err == nil || !strings.Contains(err.Error(), `host `+f.Spec.Hosts[0].Name+`: Kubernetes node "GPU 01" (label fabricctl.io/k8s-node)`) {
		t.Errorf("a node name with a space: %v", err)
	}
}

// TestK8sParseNodeSelectorRefusesRepeats: a key given twice is an error, not the last value.
func TestK8sParseNodeSelectorRefusesRepeats(t *testing.T) {
	if _, err := ParseNodeSelector([]string{"pool=a", "pool=b"}); err == nil || !strings.Contains(err.Error(), `--node-selector "pool=b": key "pool" given twice`) {
		t.Errorf("got %v", err)
	}
}
