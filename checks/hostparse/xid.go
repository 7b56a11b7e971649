package hostparse

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// XidAction is a resolution bucket of NVIDIA's Xid catalog, the column
// "Resolution Bucket (Immediate Action)": what NVIDIA says to do first when
// a GPU reports the Xid.
type XidAction string

// The immediate actions NVIDIA's catalog uses.
const (
	XidIgnore           XidAction = "IGNORE"               // nothing to do
	XidRestartApp       XidAction = "RESTART_APP"          // restart the application
	XidResetGPU         XidAction = "RESET_GPU"            // reset the GPU (nvidia-smi -r)
	XidRestartBM        XidAction = "RESTART_BM"           // reboot the bare-metal node
	XidRestartVM        XidAction = "RESTART_VM"           // reboot the virtual machine
	XidContactSupport   XidAction = "CONTACT_SUPPORT"      // a case for NVIDIA or the vendor
	XidCheckMechanicals XidAction = "CHECK_MECHANICALS"    // cabling, power connectors
	XidUpdateSWFW       XidAction = "UPDATE_SWFW"          // update software or firmware
	XidCheckUVM         XidAction = "CHECK_UVM"            // look at the unified-memory driver
	XidWorkflow45       XidAction = "WORKFLOW_XID_45"      // follow the Xid that caused it; alone, restart the fabric manager
	XidWorkflow48       XidAction = "WORKFLOW_XID_48"      // uncorrectable ECC: reset the GPU or reboot, check thresholds
	XidWorkflowNVLink   XidAction = "WORKFLOW_NVLINK_ERR"  // NVLink error: reset the GPU or reboot
	XidWorkflowNVLink5  XidAction = "WORKFLOW_NVLINK5_ERR" // decode the NVLink5 unit and status (sheet "Xid 144-150 Decode")
	XidRecoveryAction   XidAction = "XID_154"              // the line names the recovery action
	XidNoAction         XidAction = ""                     // the catalog gives no immediate action
)

// XidClass is one row of NVIDIA's Xid catalog.
type XidClass struct {
	Code int `json:"code"`
	// Mnemonic is the driver's name for the event.
	Mnemonic string `json:"mnemonic"`
	// Description says what the Xid means, in fabricctl's words.
	Description string `json:"description"`
	// Action is the catalog's immediate action.
	Action XidAction `json:"action,omitempty"`
	// Current: the catalog says the Xid applies to A100, H100, B100 or
	// GB200. The others are not raised by current GPUs and drivers; their
	// descriptions come from the older table for Volta and before.
	Current bool `json:"current"`
}

// xidCatalog is NVIDIA's Xid catalog, "Analyzing Xid Errors with the Xid
// Catalog" (https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html,
// Ampere and newer): number, mnemonic and immediate action as read from the
// copy leptonai/gpud generates from NVIDIA's spreadsheet
// (components/accelerator/nvidia/xid/catalog_generated.go at commit
// 4a8de33a3f02e207f39e9023d67125592d599731, generated 2025-10-29), and the
// "Applies to A100/H100/B100/GB200" columns from the catalog page itself.
// Where the catalog marks an Xid unused, the description is the meaning it
// had in NVIDIA's older "Xid and SXid errors" table for Volta and before
// (as carried in leptonai/gpud components/accelerator/nvidia/query/xid/xid.go,
// r555 of Sep 24, 2024, at commit 5098ae174a618f0893c79cd774d1d3b4788e5360).
// The descriptions are fabricctl's own words.
var xidCatalog = [...]XidClass{
	{1, "ROBUST_CHANNEL_FIFO_ERROR_FIFO_METHOD", "push buffer stream corrupted (Volta and older)", XidContactSupport, false},
	{2, "ROBUST_CHANNEL_FIFO_ERROR_SW_METHOD", "push buffer stream corrupted (Volta and older)", XidContactSupport, false},
	{3, "ROBUST_CHANNEL_FIFO_ERROR_UNK_METHOD", "push buffer stream corrupted (Volta and older)", XidContactSupport, false},
	{4, "ROBUST_CHANNEL_FIFO_ERROR_CHANNEL_BUSY", "push buffer stream corrupted or GPU semaphore timeout (Volta and older)", XidContactSupport, false},
	{5, "ROBUST_CHANNEL_FIFO_ERROR_RUNOUT_OVERFLOW", "not used", XidContactSupport, false},
	{6, "ROBUST_CHANNEL_FIFO_ERROR_PARSE_ERR", "push buffer stream corrupted (Volta and older)", XidContactSupport, false},
	{7, "ROBUST_CHANNEL_FIFO_ERROR_PTE_ERR", "push buffer address corrupted (Volta and older)", XidContactSupport, false},
	{8, "ROBUST_CHANNEL_FIFO_ERROR_IDLE_TIMEOUT", "the GPU stopped processing an application's work", XidRestartApp, true},
	{9, "ROBUST_CHANNEL_GR_ERROR_INSTANCE", "driver error programming the GPU (Volta and older)", XidContactSupport, false},
	{10, "ROBUST_CHANNEL_GR_ERROR_SINGLE_STEP", "not used", XidContactSupport, false},
	{11, "ROBUST_CHANNEL_GR_ERROR_MISSING_HW", "invalid push buffer stream from an application", XidRestartApp, true},
	{12, "ROBUST_CHANNEL_GR_ERROR_SW_METHOD", "driver error handling a GPU exception (Volta and older)", XidContactSupport, false},
	{13, "ROBUST_CHANNEL_GR_EXCEPTION", "graphics/compute engine exception, mostly an application's bad access", XidRestartApp, true},
	{14, "ROBUST_CHANNEL_FAKE_ERROR", "an injected test error", XidIgnore, true},
	{15, "ROBUST_CHANNEL_SCANLINE_TIMEOUT", "not used", XidContactSupport, false},
	{16, "ROBUST_CHANNEL_VBLANK_CALLBACK_TIMEOUT", "display engine hung (Volta and older)", XidContactSupport, false},
	{17, "ROBUST_CHANNEL_PARAMETER_ERROR", "not used", XidContactSupport, false},
	{18, "ROBUST_CHANNEL_BUS_MASTER_TIMEOUT_ERROR", "bus mastering off in PCI config space (Volta and older)", XidContactSupport, false},
	{19, "ROBUST_CHANNEL_DISP_MISSED_NOTIFIER", "display engine error (Volta and older)", XidContactSupport, false},
	{20, "ROBUST_CHANNEL_MPEG_ERROR_SW_METHOD", "MPEG push buffer corrupted (Volta and older)", XidContactSupport, false},
	{21, "ROBUST_CHANNEL_ME_ERROR_SW_METHOD", "motion estimation push buffer corrupted (Volta and older)", XidContactSupport, false},
	{22, "ROBUST_CHANNEL_VP_ERROR_SW_METHOD", "video processor push buffer corrupted (Volta and older)", XidContactSupport, false},
	{23, "ROBUST_CHANNEL_RC_LOGGING_ENABLED", "not used", XidContactSupport, false},
	{24, "ROBUST_CHANNEL_GR_SEMAPHORE_TIMEOUT", "GPU semaphore timeout (Volta and older)", XidContactSupport, false},
	{25, "ROBUST_CHANNEL_GR_ILLEGAL_NOTIFY", "illegal push buffer stream from an application", XidRestartApp, true},
	{26, "ROBUST_CHANNEL_FIFO_ERROR_FBISTATE_TIMEOUT", "framebuffer timeout (Volta and older)", XidContactSupport, false},
	{27, "ROBUST_CHANNEL_VP_ERROR", "video processor exception (Volta and older)", XidContactSupport, false},
	{28, "ROBUST_CHANNEL_VP2_ERROR", "video processor exception (Volta and older)", XidContactSupport, false},
	{29, "ROBUST_CHANNEL_BSP_ERROR", "video processor exception (Volta and older)", XidContactSupport, false},
	{30, "ROBUST_CHANNEL_BAD_ADDR_ACCESS", "GPU semaphore access error (Volta and older)", XidContactSupport, false},
	{31, "ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT", "GPU memory page fault, mostly an application's illegal address", XidRestartApp, true},
	{32, "ROBUST_CHANNEL_PBDMA_ERROR", "push buffer DMA fault, often PCIe quality", XidRestartApp, true},
	{33, "ROBUST_CHANNEL_SEC_ERROR", "internal micro-controller error (Volta and older)", XidContactSupport, false},
	{34, "ROBUST_CHANNEL_MSVLD_ERROR", "video processor exception (Volta and older)", XidContactSupport, false},
	{35, "ROBUST_CHANNEL_MSPDEC_ERROR", "video processor exception (Volta and older)", XidContactSupport, false},
	{36, "ROBUST_CHANNEL_MSPPP_ERROR", "video processor exception (Volta and older)", XidContactSupport, false},
	{37, "ROBUST_CHANNEL_FECS_ERR_UNIMP_FIRMWARE_METHOD", "driver firmware error", XidIgnore, true},
	{38, "ROBUST_CHANNEL_FECS_ERR_WATCHDOG_TIMEOUT", "driver firmware watchdog timeout", XidIgnore, true},
	{39, "ROBUST_CHANNEL_CE0_ERROR", "copy engine 0 exception", XidRestartApp, true},
	{40, "ROBUST_CHANNEL_CE1_ERROR", "copy engine 1 exception", XidRestartApp, true},
	{41, "ROBUST_CHANNEL_CE2_ERROR", "copy engine 2 exception", XidRestartApp, true},
	{42, "ROBUST_CHANNEL_VIC_ERROR", "video processor exception (Volta and older)", XidContactSupport, false},
	{43, "ROBUST_CHANNEL_RESETCHANNEL_VERIF_ERROR", "an application hit a software fault and was stopped; the GPU is fine", XidIgnore, true},
	{44, "ROBUST_CHANNEL_GR_FAULT_DURING_CTXSW", "graphics engine fault during a context switch", XidIgnore, true},
	{45, "ROBUST_CHANNEL_PREEMPTIVE_REMOVAL", "an application's work torn down, after another error or a kill", XidWorkflow45, true},
	{46, "ROBUST_CHANNEL_GPU_TIMEOUT_ERROR", "the GPU stopped processing (timeout)", XidResetGPU, true},
	{47, "ROBUST_CHANNEL_NVENC0_ERROR", "video encoder exception (Volta and older)", XidContactSupport, false},
	{48, "ROBUST_CHANNEL_GPU_ECC_DBE", "uncorrectable (double-bit) ECC error", XidWorkflow48, true},
	{49, "SILENT_RUNNING_CONSTANT_LEVEL_SET_BY_REGISTRY", "not used", XidContactSupport, false},
	{50, "SILENT_RUNNING_LEVEL_TRANSITION_DUE_TO_RC_ERROR", "not used", XidContactSupport, false},
	{51, "SILENT_RUNNING_STRESS_TEST_FAILURE", "not used", XidContactSupport, false},
	{52, "SILENT_RUNNING_LEVEL_TRANS_DUE_TO_TEMP_RISE", "not used", XidContactSupport, false},
	{53, "SILENT_RUNNING_TEMP_REDUCED_CLOCKING", "not used", XidContactSupport, false},
	{54, "SILENT_RUNNING_PWR_REDUCED_CLOCKING", "auxiliary power not connected to the board", XidCheckMechanicals, true},
	{55, "SILENT_RUNNING_TEMPERATURE_READ_ERROR", "not used", XidContactSupport, false},
	{56, "DISPLAY_CHANNEL_EXCEPTION", "display engine error (Volta and older)", XidContactSupport, false},
	{57, "FB_LINK_TRAINING_FAILURE_ERROR", "error programming the video memory interface (Volta and older)", XidContactSupport, false},
	{58, "FB_MEMORY_ERROR", "unstable video memory interface (Volta and older)", XidContactSupport, false},
	{59, "PMU_ERROR", "internal micro-controller error (Volta and older)", XidContactSupport, false},
	{60, "ROBUST_CHANNEL_SEC2_ERROR", "video processor (SEC2) exception", XidRestartApp, true},
	{61, "PMU_BREAKPOINT", "internal micro-controller breakpoint (Volta and older)", XidContactSupport, false},
	{62, "PMU_HALT_ERROR", "internal micro-controller halted", XidResetGPU, true},
	{63, "INFOROM_DRAM_RETIREMENT_EVENT", "memory row remap or page retirement recorded", XidIgnore, true},
	{64, "INFOROM_DRAM_RETIREMENT_FAILURE", "memory row remap or page retirement failed", XidResetGPU, true},
	{65, "ROBUST_CHANNEL_NVENC1_ERROR", "video encoder exception (Volta and older)", XidContactSupport, false},
	{66, "ROBUST_CHANNEL_FECS_ERR_REG_ACCESS_VIOLATION", "illegal register access by the driver", XidIgnore, true},
	{67, "ROBUST_CHANNEL_FECS_ERR_VERIF_VIOLATION", "illegal access by the driver", XidIgnore, true},
	{68, "ROBUST_CHANNEL_NVDEC0_ERROR", "video decoder 0 exception", XidRestartApp, true},
	{69, "ROBUST_CHANNEL_GR_CLASS_ERROR", "graphics engine class error from an application", XidRestartApp, true},
	{70, "ROBUST_CHANNEL_CE3_ERROR", "copy engine 3 error", XidRestartApp, true},
	{71, "ROBUST_CHANNEL_CE4_ERROR", "copy engine 4 error", XidRestartApp, true},
	{72, "ROBUST_CHANNEL_CE5_ERROR", "copy engine 5 error", XidRestartApp, true},
	{73, "ROBUST_CHANNEL_NVENC2_ERROR", "video encoder 2 error (Volta and older)", XidContactSupport, false},
	{74, "NVLINK_ERROR", "NVLink error, on this link or its far end", XidWorkflowNVLink, true},
	{75, "ROBUST_CHANNEL_CE6_ERROR", "copy engine 6 error", XidRestartApp, true},
	{76, "ROBUST_CHANNEL_CE7_ERROR", "copy engine 7 error", XidRestartApp, true},
	{77, "ROBUST_CHANNEL_CE8_ERROR", "copy engine 8 error", XidRestartApp, true},
	{78, "VGPU_START_ERROR", "a vGPU failed to start", XidUpdateSWFW, true},
	{79, "ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS", "GPU fallen off the bus: unreachable over PCIe", XidRestartBM, true},
	{80, "PBDMA_PUSHBUFFER_CRC_MISMATCH", "corrupted data reached the GPU (push buffer CRC)", XidRestartApp, true},
	{81, "ROBUST_CHANNEL_VGA_SUBSYSTEM_ERROR", "VGA subsystem error (Volta and older)", XidContactSupport, false},
	{82, "ROBUST_CHANNEL_NVJPG0_ERROR", "JPEG engine 0 error", XidRestartApp, true},
	{83, "ROBUST_CHANNEL_NVDEC1_ERROR", "video decoder 1 error", XidRestartApp, true},
	{84, "ROBUST_CHANNEL_NVDEC2_ERROR", "video decoder 2 error", XidRestartApp, true},
	{85, "ROBUST_CHANNEL_CE9_ERROR", "copy engine 9 error", XidRestartApp, true},
	{86, "ROBUST_CHANNEL_OFA0_ERROR", "optical flow engine exception", XidRestartApp, true},
	{87, "NVTELEMETRY_DRIVER_REPORT", "reserved, not used", XidContactSupport, false},
	{88, "ROBUST_CHANNEL_NVDEC3_ERROR", "video decoder 3 error", XidRestartApp, true},
	{89, "ROBUST_CHANNEL_NVDEC4_ERROR", "video decoder 4 error", XidRestartApp, true},
	{90, "LTC_ERROR", "reserved, not used", XidContactSupport, false},
	{91, "RESERVED_XID", "reserved, not used", XidContactSupport, false},
	{92, "EXCESSIVE_SBE_INTERRUPTS", "high rate of corrected single-bit ECC errors", XidIgnore, true},
	{93, "INFOROM_ERASE_LIMIT_EXCEEDED", "InfoROM wear limit reached (a provisioned limit, non-fatal)", XidIgnore, true},
	{94, "ROBUST_CHANNEL_CONTAINED_ERROR", "memory error contained to one application", XidRestartApp, true},
	{95, "ROBUST_CHANNEL_UNCONTAINED_ERROR", "memory error not contained: every application on the GPU is hit", XidResetGPU, true},
	{96, "ROBUST_CHANNEL_NVDEC5_ERROR", "video decoder 5 error", XidRestartApp, true},
	{97, "ROBUST_CHANNEL_NVDEC6_ERROR", "video decoder 6 error", XidRestartApp, true},
	{98, "ROBUST_CHANNEL_NVDEC7_ERROR", "video decoder 7 error", XidRestartApp, true},
	{99, "ROBUST_CHANNEL_NVJPG1_ERROR", "JPEG engine 1 error", XidRestartApp, true},
	{100, "ROBUST_CHANNEL_NVJPG2_ERROR", "JPEG engine 2 error", XidRestartApp, true},
	{101, "ROBUST_CHANNEL_NVJPG3_ERROR", "JPEG engine 3 error", XidRestartApp, true},
	{102, "ROBUST_CHANNEL_NVJPG4_ERROR", "JPEG engine 4 error", XidRestartApp, true},
	{103, "ROBUST_CHANNEL_NVJPG5_ERROR", "JPEG engine 5 error", XidRestartApp, true},
	{104, "ROBUST_CHANNEL_NVJPG6_ERROR", "JPEG engine 6 error", XidRestartApp, true},
	{105, "ROBUST_CHANNEL_NVJPG7_ERROR", "JPEG engine 7 error", XidRestartApp, true},
	{106, "SMBPBI_TEST_MESSAGE", "out-of-band (SMBPBI) test message", XidIgnore, true},
	{107, "SMBPBI_TEST_MESSAGE_SILENT", "silent out-of-band (SMBPBI) test message", XidIgnore, true},
	{108, "NVLINK_REMOTE_TRANSLATION_ERROR", "NVLink remote translation error (not used)", XidIgnore, true},
	{109, "ROBUST_CHANNEL_CTXSW_TIMEOUT_ERROR", "context switch timeout", XidResetGPU, true},
	{110, "SEC_FAULT_ERROR", "security fault", XidResetGPU, true},
	{111, "BUNDLE_ERROR_EVENT", "display bundle error (Volta and older)", XidContactSupport, false},
	{112, "DISP_SUPERVISOR_ERROR", "display supervisor error (Volta and older)", XidContactSupport, false},
	{113, "DP_LT_FAILURE", "DisplayPort link training error (Volta and older)", XidContactSupport, false},
	{114, "HEAD_RG_UNDERFLOW", "display pipeline underflow (Volta and older)", XidContactSupport, false},
	{115, "CORE_CHANNEL_REGS", "display core channel error (Volta and older)", XidContactSupport, false},
	{116, "WINDOW_CHANNEL_REGS", "display window channel error (Volta and older)", XidContactSupport, false},
	{117, "CURSOR_CHANNEL_REGS", "display cursor channel error (Volta and older)", XidContactSupport, false},
	{118, "HEAD_REGS", "display pixel pipeline error (Volta and older)", XidContactSupport, false},
	{119, "GSP_RPC_TIMEOUT", "GSP firmware did not answer an RPC in time", XidResetGPU, true},
	{120, "GSP_ERROR", "error in the GSP firmware", XidResetGPU, true},
	{121, "C2C_ERROR", "corrected errors on the C2C link to the Grace CPU", XidIgnore, true},
	{122, "SPI_PMU_RPC_READ_FAIL", "SPI flash read by the PMU failed (older GPUs)", XidContactSupport, false},
	{123, "SPI_PMU_RPC_WRITE_FAIL", "SPI flash write by the PMU failed (older GPUs)", XidContactSupport, false},
	{124, "SPI_PMU_RPC_ERASE_FAIL", "SPI flash erase by the PMU failed (older GPUs)", XidContactSupport, false},
	{125, "INFOROM_FS_ERROR", "InfoROM file system failure (older GPUs)", XidContactSupport, false},
	{126, "ROBUST_CHANNEL_CE10_ERROR", "copy engine 10 error", XidRestartApp, true},
	{127, "ROBUST_CHANNEL_CE11_ERROR", "copy engine 11 error", XidRestartApp, true},
	{128, "ROBUST_CHANNEL_CE12_ERROR", "copy engine 12 error", XidRestartApp, true},
	{129, "ROBUST_CHANNEL_CE13_ERROR", "copy engine 13 error", XidRestartApp, true},
	{130, "ROBUST_CHANNEL_CE14_ERROR", "copy engine 14 error", XidRestartApp, true},
	{131, "ROBUST_CHANNEL_CE15_ERROR", "copy engine 15 error", XidRestartApp, true},
	{132, "ROBUST_CHANNEL_CE16_ERROR", "copy engine 16 error", XidRestartApp, true},
	{133, "ROBUST_CHANNEL_CE17_ERROR", "copy engine 17 error", XidRestartApp, true},
	{134, "ROBUST_CHANNEL_CE18_ERROR", "copy engine 18 error", XidRestartApp, true},
	{135, "ROBUST_CHANNEL_CE19_ERROR", "copy engine 19 error", XidRestartApp, true},
	{136, "ALI_TRAINING_FAIL", "NVLink link training failed", XidResetGPU, true},
	{137, "NVLINK_PRIV_ERR", "illegal NVLink peer access, mostly an application's", XidIgnore, true},
	{138, "ROBUST_CHANNEL_DLA_ERROR", "deep learning accelerator error (not used)", XidContactSupport, false},
	{139, "ROBUST_CHANNEL_OFA1_ERROR", "optical flow engine 1 error", XidRestartApp, true},
	{140, "UNRECOVERABLE_ECC_ERROR_ESCAPE", "uncorrectable ECC error the driver could not retire or remap", XidResetGPU, true},
	{141, "ROBUST_CHANNEL_FAST_PATH_ERROR", "CUDA fast path error", XidIgnore, true},
	{142, "ROBUST_CHANNEL_NVENC3_ERROR", "video encoder 3 error", XidContactSupport, true},
	{143, "GPU_INIT_ERROR", "GPU initialisation failed", XidResetGPU, true},
	{144, "NVLINK_SAW_ERROR", "NVLink5 SAW unit error", XidWorkflowNVLink5, true},
	{145, "NVLINK_RLW_ERROR", "NVLink5 RLW unit error", XidWorkflowNVLink5, true},
	{146, "NVLINK_TLW_ERROR", "NVLink5 TLW unit error", XidWorkflowNVLink5, true},
	{147, "NVLINK_TREX_ERROR", "NVLink5 TREX unit error", XidWorkflowNVLink5, true},
	{148, "NVLINK_NVLPW_CTRL_ERROR", "NVLink5 NVLPW_CTRL unit error", XidWorkflowNVLink5, true},
	{149, "NVLINK_NETIR_ERROR", "NVLink5 NETIR (link) error", XidWorkflowNVLink5, true},
	{150, "NVLINK_MSE_ERROR", "NVLink5 MSE (firmware watchdog) error", XidWorkflowNVLink5, true},
	{151, "ROBUST_CHANNEL_KEY_ROTATION_ERROR", "confidential computing key rotation failed", XidRestartVM, true},
	{152, "ROBUST_CHANNEL_DLA_SMMU_ERROR", "deep learning accelerator SMMU error", XidIgnore, false},
	{153, "ROBUST_CHANNEL_DLA_TIMEOUT", "deep learning accelerator timeout", XidIgnore, false},
	{154, "GPU_RECOVERY_ACTION_CHANGED", "the GPU's required recovery action changed", XidRecoveryAction, true},
	{155, "NVLINK_SW_DEFINED_ERROR", "NVLink taken down on purpose (software-defined)", XidResetGPU, true},
	{156, "RESOURCE_RETIREMENT_EVENT", "a hardware resource was retired", XidResetGPU, true},
	{157, "RESOURCE_RETIREMENT_FAILURE", "no spare left to retire a resource", XidIgnore, true},
	{158, "GPU_FATAL_TIMEOUT", "fatal GPU timeout", XidResetGPU, true},
	{159, "ROBUST_CHANNEL_CHI_NON_DATA_ERROR", "C2C (CHI) non-data error", XidCheckUVM, true},
	{160, "CHANNEL_RETIREMENT_EVENT", "a channel was retired", XidIgnore, true},
	{161, "CHANNEL_RETIREMENT_FAILURE", "retiring a channel failed", XidIgnore, true},
	{162, "PSHC_REENGAGED", "power smoothing circuitry engaged again", XidNoAction, true},
	{163, "PSHC_DISENGAGED", "power smoothing circuitry disengaged", XidNoAction, true},
	{164, "PSHC_LOW_LIFETIME", "power smoothing circuitry near the end of its life", XidNoAction, true},
	{165, "PSHC_ZERO_LIFETIME", "power smoothing circuitry worn out", XidNoAction, true},
	{166, "NVLINK_SECURE_CRYPTO_ERR", "confidential computing traffic before NVLink encryption was set up", XidNoAction, true},
	{167, "PCIE_FATAL_TIMEOUT", "fatal PCIe timeout", XidNoAction, true},
	{168, "REDUCED_GPU_MEMORY_CAPACITY", "errors in the write-protected memory region: less usable memory", XidNoAction, true},
	{169, "SEC2_HALT_ERROR", "SEC2 micro-controller halted", XidNoAction, true},
	{170, "NVLINK_SECURE_OTHER", "unexpected NVLink interrupt in confidential computing mode", XidNoAction, true},
	{171, "UNCORRECTABLE_DRAM_ERROR", "details of an Xid 48 in DRAM", XidNoAction, true},
	{172, "UNCORRECTABLE_SRAM_ERROR", "details of an Xid 48 in SRAM", XidNoAction, true},
}

// LookupXid returns the catalog's row for an Xid number.
func LookupXid(code int) (XidClass, bool) {
	if code < 1 || code > len(xidCatalog) {
		return XidClass{}, false
	}
	return xidCatalog[code-1], true
}

// XidCatalog returns a copy of the whole table, in Xid order.
func XidCatalog() []XidClass { return append([]XidClass(nil), xidCatalog[:]...) }

// XidSeverity is how an Xid event counts against its GPU.
type XidSeverity string

// The severities JudgeXid gives.
const (
	// XidInfo: nothing to do; reported with the facts, not as a finding.
	XidInfo XidSeverity = "info"
	// XidWarn: an application's fault (the GPU itself is fine), or an
	// event NVIDIA gives no action for or fabricctl does not know.
	XidWarn XidSeverity = "warn"
	// XidFail: the GPU needs a reset or service.
	XidFail XidSeverity = "fail"
)

// XidVerdict is the judgement of one Xid event.
type XidVerdict struct {
	Severity XidSeverity
	// Class is the catalog's row; its Code is 0 for an Xid the catalog
	// does not know.
	Class XidClass
	// Action is NVIDIA's action as decided: the catalog's bucket, the
	// recovery action an Xid 154 names, or a NVLink5 decode's bucket.
	Action string
	// Note says why, where the rule departs from the bare bucket.
	Note string
}

// VariantNoXidLine is the variant of an Xid 79 read from a "GPU has fallen
// off the bus" line that came without an Xid line.
const VariantNoXidLine = "fallen off the bus, no Xid line"

// JudgeXid judges one of a GPU's Xid events by NVIDIA's immediate action
// (the catalog's "Resolution Bucket (Immediate Action)"):
//
//   - RESET_GPU, RESTART_BM (node reboot), RESTART_VM, CHECK_MECHANICALS,
//     WORKFLOW_XID_48 and WORKFLOW_NVLINK_ERR (the catalog: a GPU reset or
//     node reboot clears them), and CONTACT_SUPPORT for an Xid the catalog
//     says applies to A100, H100, B100 or GB200: fail, the GPU needs a
//     reset or service.
//   - RESTART_APP, UPDATE_SWFW, CHECK_UVM: warn, an application or software
//     fault; the GPU itself is fine.
//   - IGNORE: information only, reported with the facts.
//   - CONTACT_SUPPORT for an Xid the catalog lists as unused on current GPUs
//     (one of Volta and before, or an old driver): warn.
//   - No action in the catalog (the newest rows), or an Xid the catalog does
//     not know: warn, "unclassified Xid N".
//
// Some Xids carry more than their number:
//
//   - 63 (row remap or page retirement recorded): warn, it is pending a GPU
//     reset; 64 (the remap failed): fail; 79 (fallen off the bus), and a
//     "fallen off the bus" line without an Xid: fail.
//   - 154 names the recovery action it changed to ("GPU Reset Required",
//     "Node Reboot Required", "Drain P2P", "Drain and Reset", "None"; on
//     Windows "PF FLR", "OS Reboot"), else its number as NVML's
//     nvmlDeviceGpuRecoveryAction_t (0 none, 1 GPU reset, 2 node reboot,
//     3 drain P2P, 4 drain and reset, 5 recover the IMEX domain, 6 bus
//     reset, 7 system reboot). Any action but none fails. Only the GPU's
//     last Xid 154 counts: an earlier one was superseded.
//   - 45 (work torn down) follows the other Xids of its GPU (the catalog:
//     "not solo: IGNORE"); alone it warns.
//   - 144-150 (NVLink5) are decoded by NVIDIA per unit and status word; the
//     driver's line says "Fatal" or "Nonfatal", and the decode sheet
//     resolves fatal ones to RESET_GPU (fail) and non-fatal ones to IGNORE
//     or to the Xid 154 that follows (information).
func JudgeXid(e XidEvent, gpu KernelGPU) XidVerdict {
	c, ok := LookupXid(e.Xid)
	if !ok {
		return XidVerdict{Severity: XidWarn, Note: fmt.Sprintf("unclassified Xid %d: not in NVIDIA's catalog", e.Xid)}
	}
	v := XidVerdict{Class: c, Action: string(c.Action), Severity: bucketSeverity(c.Action)}
	switch {
	case e.Xid == 79 && e.Variant == VariantNoXidLine:
		v.Note = "the driver says the GPU has fallen off the bus, with no Xid line"
		if gpu.has(func(o XidEvent) bool { return o.Xid == 79 && o.Variant != VariantNoXidLine }) {
			v.Severity, v.Note = XidInfo, "reported with its Xid 79"
		}
	case e.Xid == 63:
		v.Severity, v.Note = XidWarn, "a row remap or page retirement is pending a GPU reset"
	case e.Xid == 154:
		return judgeRecovery(e, gpu, v)
	case e.Xid == 45:
		if other := gpu.first(func(o XidEvent) bool { return o.Xid != 45 }); other != nil {
			v.Severity, v.Note = XidInfo, fmt.Sprintf("follows Xid %d on this GPU", other.Xid)
		} else {
			v.Severity, v.Note = XidWarn, "no other Xid on this GPU explains it: an application was torn down"
		}
	case c.Action == XidWorkflowNVLink5:
		judgeNVLink5(e, &v)
	case c.Action == XidContactSupport && !c.Current:
		v.Severity, v.Note = XidWarn, "NVIDIA's catalog lists it as not used on A100, H100, B100 or GB200: an older GPU or driver"
	case c.Action == XidNoAction:
		v.Note = "the catalog has no immediate action for it yet"
	}
	return v
}

// bucketSeverity is the rule for the catalog's buckets, before the
// per-Xid exceptions.
func bucketSeverity(a XidAction) XidSeverity {
	switch a {
	case XidIgnore:
		return XidInfo
	case XidResetGPU, XidRestartBM, XidRestartVM, XidContactSupport, XidCheckMechanicals, XidWorkflow48, XidWorkflowNVLink:
		return XidFail
	}
	return XidWarn
}

// judgeNVLink5 decodes an NVLink5 Xid (144-150) by the severity word the
// driver prints after the unit ("RLW_REMAP Nonfatal", "NETIR_LINK_EVT Fatal").
func judgeNVLink5(e XidEvent, v *XidVerdict) {
	switch f := strings.Fields(e.Variant); {
	case len(f) == 2 && strings.EqualFold(f[1], "Fatal"):
		v.Severity, v.Action, v.Note = XidFail, string(XidResetGPU), f[0]+" Fatal: NVIDIA's decode resets the GPU"
	case len(f) == 2:
		v.Severity, v.Action, v.Note = XidInfo, string(XidIgnore), f[0]+" "+f[1]+": NVIDIA's decode ignores it or defers to Xid 154"
	default:
		v.Severity, v.Note = XidWarn, "no Fatal/Nonfatal severity on the line to decode"
	}
}

// recoveryRe reads an Xid 154 variant: "0x2 (Node Reboot Required)" or "0x2".
var recoveryRe = regexp.MustCompile(`^0x([0-9A-Fa-f]+)(?:\s*\(([^)]*)\))?$`)

// nvmlRecoveryActions names nvmlDeviceGpuRecoveryAction_t's values (NVML,
// nvml.h), which Xid 154's numbers follow.
var nvmlRecoveryActions = []string{"none", "GPU reset", "node reboot", "drain P2P", "drain and reset", "recover the IMEX domain", "bus reset", "system reboot"}

// judgeRecovery judges an Xid 154 by the recovery action it changed to.
func judgeRecovery(e XidEvent, gpu KernelGPU, v XidVerdict) XidVerdict {
	m := recoveryRe.FindStringSubmatch(e.Variant)
	if m == nil {
		v.Severity, v.Action, v.Note = XidWarn, "", "cannot read the recovery action it changed to"
		return v
	}
	label := strings.TrimSpace(m[2])
	n, err := strconv.ParseUint(m[1], 16, 8)
	switch {
	case label == "" && err == nil && int(n) < len(nvmlRecoveryActions):
		label = nvmlRecoveryActions[n]
	case label == "":
		v.Severity, v.Action, v.Note = XidWarn, "0x"+m[1], "an unknown recovery action"
		return v
	}
	v.Action = label
	if later := gpu.first(func(o XidEvent) bool { return o.Xid == 154 && o.LastLine > e.LastLine }); later != nil {
		v.Severity, v.Note = XidInfo, "superseded by a later recovery action ("+later.Variant+")"
		return v
	}
	l := strings.ToLower(label)
	switch {
	case strings.Contains(l, "none"):
		v.Severity, v.Note = XidInfo, "the recovery action was cleared"
	case strings.Contains(l, "reboot"), strings.Contains(l, "reset"), strings.Contains(l, "flr"), strings.Contains(l, "drain"), strings.Contains(l, "imex"):
		v.Severity = XidFail
	default:
		v.Severity, v.Note = XidWarn, "an unknown recovery action"
	}
	return v
}

// first returns the GPU's first event that ok accepts, or nil.
func (g KernelGPU) first(ok func(XidEvent) bool) *XidEvent {
	for i := range g.Events {
		if ok(g.Events[i]) {
			return &g.Events[i]
		}
	}
	return nil
}

func (g KernelGPU) has(ok func(XidEvent) bool) bool { return g.first(ok) != nil }
