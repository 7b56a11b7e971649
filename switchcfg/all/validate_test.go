package all

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
)

// profileFor is a valid profile whose names and numbers the tests vary.
func profileFor(className string) string {
	return fmt.Sprintf(`apiVersion: fabricctl.io/v1alpha1
kind: Profile
metadata: {name: p}
spec:
  ethernet:
    mtu: 9000
    switchMtu: 9214 # EOS's largest
    classes:
      - {name: %q, priority: 3, dscp: [26], lossless: true, ets: {bandwidthPercent: 50}, ecn: {minThreshold: 150KB, maxThreshold: 1500KB}}
      - {name: cnp, priority: 6, dscp: [48], ets: {strict: true}}
      - {name: other, priority: 0, dscp: rest, ets: {bandwidthPercent: 50}}
    roce: {class: %q, cnpClass: cnp}
`, className, className)
}

var portOf = map[string]string{"arista-eos": "Ethernet1", "cisco-nxos": "Ethernet1/1", "cumulus-nvue": "swp1", "junos": "et-0/0/0", "sonic": "Ethernet0"}

// fabricFor is a fabric with one switch of every platform using profile p.
func fabricFor() string {
	var b strings.Builder
	b.WriteString("apiVersion: fabricctl.io/v1alpha1\nkind: Fabric\nmetadata: {name: f}\nspec:\n  include: [p.yaml]\n  switches:\n")
	for i, n := range Registry().Names() {
		fmt.Fprintf(&b, "    - {name: s%d, platform: %s, address: 10.0.0.%d, profile: p, ports: [%s]}\n", i, n, i+1, portOf[n])
	}
	return b.String()
}

func load(profile string) (*fabric.Fabric, error) {
	files := map[string]string{"f.yaml": fabricFor(), "p.yaml": profile}
	return fabric.Load("f.yaml", fabric.Options{Platforms: Registry(), ReadFile: func(p string) ([]byte, error) {
		s, ok := files[p]
		if !ok {
			return nil, errors.New("no such file")
		}
		return []byte(s), nil
	}})
}

// Validation refuses what render refuses, located at the switch's profile
// and naming the platform (issue 13: an NX-OS class name with a space
// passed validate, and render's error had no location).
func TestValidateRefusesWhatRenderRefuses(t *testing.T) {
	_, err := load(profileFor("roce data"))
	if err == nil {
		t.Fatal("a class name with a space passed validation")
	}
	for _, want := range []string{
		`f.yaml:8:68: spec.switches[1].profile: cisco-nxos cannot render profile "p": class name "roce data" is not a usable class-map name`, `(spec.ethernet.classes[0].name at p.yaml:9:16)`,
		`spec.switches[3].profile: junos cannot render profile "p": class name "roce data" cannot name a forwarding class`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("want %q in:\n%v", want, err)
		}
	}
	if _, err := load(profileFor("roce")); err != nil {
		t.Fatalf("the valid profile: %v", err)
	}
}

// FuzzValidateImpliesRender: whatever profile validation accepts, every
// platform renders.
func FuzzValidateImpliesRender(f *testing.F) {
	f.Add(profileFor("roce"))
	f.Add(profileFor("roce data"))
	f.Add(strings.Replace(profileFor("roce"), "ets: {strict: true}", "ets: {strict: true}, queue: 5", 1))
	f.Add(strings.Replace(profileFor("roce"), "mtu: 9000", "mtu: 9000\n    trust: pcp\n    pfc: {watchdog: {enabled: true, pollInterval: 100ms, detectionTime: 250ms, restorationTime: 400ms}}", 1))
	r := Registry()
	f.Fuzz(func(t *testing.T, profile string) {
		fab, err := load(profile)
		if err != nil {
			return
		}
		for _, s := range fab.Resolve().Switches {
			d, err := r.Driver(s.Platform)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := d.Render(s); err != nil {
				t.Fatalf("validation passed but %s does not render: %v\n%s", s.Platform, err, profile)
			}
		}
	})
}
