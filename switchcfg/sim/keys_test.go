package sim

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadCredentials(t *testing.T) {
	var o Options
	if err := o.LoadCredentials("", "", ""); err == nil || !strings.Contains(err.Error(), "never accepts logins without credentials") {
		t.Errorf("no credentials: err = %v", err)
	}
	t.Setenv("FABRICCTL_TEST_SIM_PW", "")
	if err := o.LoadCredentials("FABRICCTL_TEST_SIM_PW", "", ""); err == nil || !strings.Contains(err.Error(), "FABRICCTL_TEST_SIM_PW (--password-env) is empty or unset") {
		t.Errorf("empty password: err = %v", err)
	}
	t.Setenv("FABRICCTL_TEST_SIM_PW", "s3cret")
	key := filepath.Join(t.TempDir(), "host_key")
	o = Options{}
	if err := o.LoadCredentials("FABRICCTL_TEST_SIM_PW", "", key); err != nil {
		t.Fatal(err)
	}
	if o.Password != "s3cret" || o.HostKey == nil {
		t.Errorf("options %+v: want the password and a created host key", o)
	}
	o = Options{}
	if err := o.LoadCredentials("", filepath.Join(t.TempDir(), "missing"), ""); err == nil {
		t.Error("a missing authorized_keys file was accepted")
	}
}
