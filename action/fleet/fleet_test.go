package fleet

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/agent/agentclient"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/testutil"
	"github.com/fabricctl/fabricctl/switchcfg"
	"github.com/fabricctl/fabricctl/switchcfg/all"
	"github.com/fabricctl/fabricctl/switchcfg/opensm"
)

func labFabric(t *testing.T) *fabric.Fabric {
	t.Helper()
	f, err := fabric.Load(filepath.Join(testutil.RepoRoot(t), "profiles", "lab", "fabric.yaml"), fabric.Options{Platforms: all.Registry()})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestTargetsOfTheLabFabric: the subnet manager through its kind's driver,
// each switch through its platform's, each host through its agent, hosts
// depending on the leaf their label names; nothing connects yet.
func TestTargetsOfTheLabFabric(t *testing.T) {
	f := labFabric(t)
	targets, closeAll, err := Targets(f, Options{Registry: all.Registry(), Deployer: &agentclient.Deployer{}})
	defer closeAll()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tg := range targets {
		var deps []string
		if d, ok := tg.(fabric.Dependent); ok {
			deps = d.DependsOn()
		}
		got = append(got, tg.Tier().String()+":"+tg.Name()+"<"+strings.Join(deps, ",")+">")
	}
	want := "subnet-manager:sm-01<> switch:leaf-01<> switch:leaf-02<> host:lab-h1<leaf-01> host:lab-h2<leaf-01> host:lab-h3<leaf-02> host:lab-h4<leaf-02>"
	if strings.Join(got, " ") != want {
		t.Errorf("targets\n%s\nwant\n%s", strings.Join(got, " "), want)
	}
	if _, ok := targets[0].(*opensm.Target); !ok {
		t.Errorf("the OpenSM target is a %T", targets[0])
	}
	if st, ok := targets[1].(*switchcfg.Target); !ok || st.Driver.Info().Name != "cumulus-nvue" {
		t.Errorf("leaf-01 is %T", targets[1])
	}
}

func TestTargetsOnlyAndUnknown(t *testing.T) {
	f := labFabric(t)
	o := Options{Registry: all.Registry(), Deployer: &agentclient.Deployer{}, Only: []string{"lab-h3", "leaf-02"}}
	targets, closeAll, err := Targets(f, o)
	closeAll()
	if err != nil || len(targets) != 2 || targets[0].Name() != "leaf-02" || targets[1].Name() != "lab-h3" {
		t.Fatalf("targets %v, %v", targets, err)
	}
	o.Only = []string{"nope"}
	if _, closeAll, err = Targets(f, o); err == nil || !strings.Contains(err.Error(), "no target named [nope]") {
		t.Errorf("unknown target: %v", err)
	}
	closeAll()
	f.Spec.SubnetManagers[0].Kind = "sm-x"
	o.Only = nil
	if _, closeAll, err = Targets(f, o); !errors.Is(err, fabric.ErrUnknownKind) {
		t.Errorf("an unregistered subnet-manager kind: %v", err)
	}
	closeAll()
}

// TestSSHConfigMerges: a target's own settings win over the defaults; the
// check flags replace both for hosts.
func TestSSHConfigMerges(t *testing.T) {
	f := labFabric(t)
	c := SSHConfig(f, "leaf-01", "10.99.0.101", f.Spec.Switches[0].SSH, Options{})
	if c.User != "cumulus" || c.PasswordEnv != "LAB_SWITCH_PASSWORD" || c.Port != 22 || c.IdentityFile != "/run/fabricctl-lab/id_ed25519" {
		t.Errorf("merged %+v", c)
	}
	hosts, closeAll := Hosts(f, Options{Only: []string{"lab-h2"}, IdentityFile: "/k", KnownHostsFile: "/kh"})
	defer closeAll()
	if len(hosts) != 1 || hosts[0].Intent.Host != "lab-h2" || hosts[0].conn.Config.IdentityFile != "/k" || hosts[0].conn.Config.KnownHostsFile != "/kh" {
		t.Errorf("hosts %+v", hosts)
	}
}
