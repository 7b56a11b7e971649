package all

import (
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
	return fabric.Load("f.yaml", fabric.Options{Platforms: Registry(), ReadFile: fabric.FilesIn(files)})
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

// withMTU is profileFor("roce") with its switchMtu line replaced (or
// dropped, for "").
func withMTU(line string) string {
	return strings.Replace(profileFor("roce"), "    switchMtu: 9214 # EOS's largest\n", line, 1)
}

// An unset switchMtu resolves, per switch, to 9216 where the model takes
// it and to the model's largest where it does not (EOS: 9214); before,
// every fabric with an EOS switch and the documented default failed.
func TestDefaultSwitchMTUFitsEveryPlatform(t *testing.T) {
	f, err := load(withMTU(""))
	if err != nil {
		t.Fatalf("the default switchMtu fails validation: %v", err)
	}
	got := map[string]int{}
	for _, s := range f.Resolve().Switches {
		got[s.Platform] = s.MTU
	}
	want := map[string]int{"arista-eos": 9214, "cisco-nxos": 9216, "cumulus-nvue": 9216, "junos": 9216, "sonic": 9216}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("resolved MTUs %v, want %v", got, want)
	}
}

// switchMtu: max is each platform's largest MTU.
func TestSwitchMTUMax(t *testing.T) {
	f, err := load(withMTU("    switchMtu: max\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range f.Resolve().Switches {
		if want := mustInfo(t, Registry(), s.Platform).MaxMTU; s.MTU != want {
			t.Errorf("%s: MTU %d, want its largest %d", s.Platform, s.MTU, want)
		}
	}
}

// An explicit switchMtu above a platform's largest is a located error
// naming the switch, its model and where the profile sets the value.
func TestExplicitSwitchMTUAboveModelMax(t *testing.T) {
	_, err := load(withMTU("    switchMtu: 9216\n"))
	if err == nil {
		t.Fatal("switchMtu 9216 on an EOS switch passed validation")
	}
	want := `f.yaml:7:68: spec.switches[0].profile: switch "s0" (arista-eos model strata)`
	if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), `takes an MTU of 68..9214, but profile "p" sets switchMtu: 9216 (at p.yaml:7:16)`) {
		t.Errorf("want %q … in:\n%v", want, err)
	}
	if strings.Count(err.Error(), "\n") != 0 {
		t.Errorf("one error expected (the renderer must not repeat it):\n%v", err)
	}
}

// A limit a platform's own validator enforces on a profile field is a
// validate error at that field, naming the platform and the switch (issue
// 29: the user hears before the push, at the line to change, what the
// switch would refuse). EOS takes watchdog timeouts in hundredths of a
// second (AVD's schema: two decimals); SONiC's POLL_INTERVAL is 100..1000.
func TestRenderLimitsLocatedAtTheField(t *testing.T) {
	profile := strings.Replace(profileFor("roce"), "mtu: 9000\n",
		"mtu: 9000\n    pfc:\n      watchdog: {enabled: true, pollInterval: 2000ms, detectionTime: 4005ms, restorationTime: 8000ms}\n", 1)
	_, err := load(profile)
	if err == nil {
		t.Fatal("watchdog limits passed validation")
	}
	for _, want := range []string{
		`p.yaml:8:70: spec.ethernet.pfc.watchdog.detectionTime: arista-eos cannot render profile "p" for switch "s0" (f.yaml:7:68): PFC watchdog detection time 4005 ms: EOS takes it in steps of 10 ms`,
		`p.yaml:8:47: spec.ethernet.pfc.watchdog.pollInterval: sonic cannot render profile "p" for switch "s4" (f.yaml:11:63): not supported by platform: PFC watchdog poll interval 2000 ms outside 100..1000 (sonic-pfcwd.yang)`,
		`p.yaml:8:47: spec.ethernet.pfc.watchdog.pollInterval: cisco-nxos cannot render profile "p" for switch "s1" (f.yaml:8:68): PFC watchdog interval 2000 ms outside 100..1000 ms`,
		`p.yaml:8:70: spec.ethernet.pfc.watchdog.detectionTime: cumulus-nvue cannot render profile "p" for switch "s2" (f.yaml:9:70)`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("want %q in:\n%v", want, err)
		}
	}
	fixed := strings.Replace(strings.Replace(profile, "4005ms", "4000ms", 1), "pollInterval: 2000ms", "pollInterval: 1000ms", 1)
	if _, err := load(fixed); err != nil {
		t.Fatalf("the fixed profile: %v", err)
	}
}

// Junos's PFC watchdog poll-interval and recovery are uint16 milliseconds
// in Juniper's YANG: a restoration time above 65.535 s is refused at the
// field instead of by the switch.
func TestJunosWatchdogUint16AtTheField(t *testing.T) {
	profile := strings.Replace(profileFor("roce"), "mtu: 9000\n",
		"mtu: 9000\n    pfc:\n      watchdog: {enabled: true, pollInterval: 100ms, detectionTime: 200ms, restorationTime: 70s}\n", 1)
	_, err := load(profile)
	want := `spec.ethernet.pfc.watchdog.restorationTime: junos cannot render profile "p" for switch "s3"`
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "above 65535 ms") {
		t.Fatalf("want %q in:\n%v", want, err)
	}
}
