package hostcfg

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadDesiredRefusesSpecialFiles: host show --desired on a FIFO blocked
// in open(2) and on /dev/zero grew until killed (issue 28); both are now
// refused at once, naming the file.
func TestReadDesiredRefusesSpecialFiles(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "p")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{
		fifo:        "reading desired state: " + fifo + ": is a named pipe (FIFO), not a regular file",
		"/dev/zero": "reading desired state: /dev/zero: is a character device, not a regular file",
	} {
		done := make(chan error, 1)
		go func() { _, err := ReadDesired(context.Background(), p); done <- err }()
		select {
		case err := <-done:
			if err == nil || err.Error() != want {
				t.Errorf("ReadDesired(%s) = %v; want %q", p, err, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("ReadDesired(%s) blocked", p)
		}
	}
	if _, err := ReadDesired(context.Background(), "testdata/desired"); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("a directory: %v", err)
	}
}

// TestReadDesiredChecksNumbers (issue 28): numbers outside their settings'
// ranges and names that would leave /sys are refused where the file is
// read, each naming its field.
func TestReadDesiredChecksNumbers(t *testing.T) {
	p := filepath.Join(t.TempDir(), "d.json")
	doc := `{"apiVersion": "fabricctl.io/v1alpha1", "host": "h1", "interfaces": [{"name": "../../etc", "mtu": -1,
	  "pfc": {"priorities": [3, 9]}, "dscpMap": [{"dscp": 64, "priority": 3}], "roce": {"tos": 300}}]}`
	if err := os.WriteFile(p, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := ReadDesired(context.Background(), p)
	for _, want := range []string{
		p + ": desired.interfaces[0].name \"../../etc\" is not a name",
		"desired.interfaces[0].mtu -1 is negative",
		"desired.interfaces[0].pfc.priorities[1] 9 is outside 0..7",
		"desired.interfaces[0].dscpMap[0].dscp 64 is outside 0..63",
		"desired.interfaces[0].roce.tos 300 is outside 0..255",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("want %q in %v", want, err)
		}
	}
}
