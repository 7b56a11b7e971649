package analyze

import (
	"path/filepath"
	"testing"

	"github.com/fabricctl/fabricctl/checks"
)

// TestLSPCIDevStaErrorBits: DevSta's error bits are judged per device, in
// both pciutils spellings (NonFatalErr/UnsupReq and the older
// UncorrErr/UnsuppReq): FatalErr+ fails, CorrErr+/NonFatalErr+/UnsupReq+
// warn, none passes; DevCtl's same-named reporting enables are not errors.
func TestLSPCIDevStaErrorBits(t *testing.T) {
	checkFindings(t, filepath.Join("..", "hostparse", "testdata", "lspci", "devsta_error_bits.txt"), KindLSPCI, checks.StatusFail, []findingWant{
		{"lspci/devsta", "0000:3b:00.0", checks.StatusWarn, []string{"CorrErr+", "UnsupReq+"}},
		{"lspci/devsta", "0000:5e:00.0", checks.StatusFail, []string{"NonFatalErr+", "FatalErr+ (fatal uncorrectable error detected)"}},
		{"lspci/devsta", "0000:86:00.0", checks.StatusPass, []string{"no DevSta error bits"}},
	})
}

// TestLSPCIGrepPairs: grep-filtered LnkCap/LnkSta lines without device
// headers, indented or not, are read pair by pair; "Speed unknown" (pciutils
// too old to decode the rate) is not a downgrade, a narrower width is.
func TestLSPCIGrepPairs(t *testing.T) {
	checkFindings(t, filepath.Join("..", "hostparse", "testdata", "lspci", "grep_lnk_pairs_no_headers.txt"), KindLSPCI, checks.StatusFail, []findingWant{
		{"lspci/pcie-link", "(partial block)", checks.StatusPass, []string{"16GT/s x16"}},
		{"lspci/pcie-link", "(partial block 2)", checks.StatusPass, []string{"unknown x8, at its capability"}},
		{"lspci/pcie-link", "(partial block 3)", checks.StatusFail, []string{"width x4 is below"}},
	})
}

// TestLSPCIGPUSpeedOnly: a GPU whose link is only slower than its capability
// warns (GPUs lower the link speed while idle); a narrower link still fails.
func TestLSPCIGPUSpeedOnly(t *testing.T) {
	checkFindings(t, filepath.Join("..", "hostparse", "testdata", "lspci", "gpu_speed_only_idle.txt"), KindLSPCI, checks.StatusWarn, []findingWant{
		{"lspci/pcie-link", "0000:c1:00.0", checks.StatusWarn, []string{"2.5GT/s is below", "under load"}},
	})
	checkFindings(t, filepath.Join("..", "hostparse", "testdata", "lspci", "nic_ok_and_gpu_downgraded.txt"), KindLSPCI, checks.StatusFail, []findingWant{
		{"lspci/pcie-link", "0000:9d:00.0", checks.StatusFail, []string{"width x8 is below"}},
	})
}
