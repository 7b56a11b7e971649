package rdma

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fabricctl/fabricctl/checks/rdma/rdmatest"
)

// The test binary doubles as a perftest (rdmatest.Main).
func TestMain(m *testing.M) {
	if rdmatest.IsFake() {
		os.Exit(rdmatest.Main(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// fakePath makes a PATH directory whose ib_* are the fake perftest, or the
// named script of testdata/fakes.
func fakePath(t *testing.T, script string) string {
	if script != "" {
		script = filepath.Join("testdata", "fakes", script)
	}
	return rdmatest.Path(t, script)
}

func freePort(t *testing.T) int { return rdmatest.FreePort(t) }
