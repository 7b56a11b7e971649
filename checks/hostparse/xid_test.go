package hostparse

import (
	"strings"
	"testing"
)

// TestXidCatalogComplete: the table holds every Xid of NVIDIA's catalog,
// 1 to 172, once and in order, each with a mnemonic, a description and a
// bucket NVIDIA uses (or none, where the catalog gives none).
func TestXidCatalogComplete(t *testing.T) {
	known := map[XidAction]bool{
		XidIgnore: true, XidRestartApp: true, XidResetGPU: true, XidRestartBM: true, XidRestartVM: true,
		XidContactSupport: true, XidCheckMechanicals: true, XidUpdateSWFW: true, XidCheckUVM: true,
		XidWorkflow45: true, XidWorkflow48: true, XidWorkflowNVLink: true, XidWorkflowNVLink5: true,
		XidRecoveryAction: true, XidNoAction: true,
	}
	cat := XidCatalog()
	if len(cat) != 172 {
		t.Fatalf("%d rows, want 172", len(cat))
	}
	for i, c := range cat {
		if c.Code != i+1 || c.Mnemonic == "" || c.Description == "" || !known[c.Action] {
			t.Errorf("row %d: %+v", i, c)
		}
		if got, ok := LookupXid(c.Code); !ok || got != c {
			t.Errorf("LookupXid(%d) = %+v %v", c.Code, got, ok)
		}
	}
	for _, code := range []int{0, -1, 173, 1000} {
		if _, ok := LookupXid(code); ok {
			t.Errorf("LookupXid(%d) found", code)
		}
	}
}

// TestXidCatalogRows spot-checks rows against NVIDIA's catalog.
func TestXidCatalogRows(t *testing.T) {
	for _, w := range []struct {
		code    int
		action  XidAction
		current bool
	}{
		{3, XidContactSupport, false}, {8, XidRestartApp, true}, {13, XidRestartApp, true}, {14, XidIgnore, true},
		{31, XidRestartApp, true}, {43, XidIgnore, true}, {45, XidWorkflow45, true}, {46, XidResetGPU, true},
		{48, XidWorkflow48, true}, {54, XidCheckMechanicals, true}, {63, XidIgnore, true}, {64, XidResetGPU, true},
		{74, XidWorkflowNVLink, true}, {78, XidUpdateSWFW, true}, {79, XidRestartBM, true}, {92, XidIgnore, true},
		{94, XidRestartApp, true}, {95, XidResetGPU, true}, {119, XidResetGPU, true}, {142, XidContactSupport, true},
		{145, XidWorkflowNVLink5, true}, {151, XidRestartVM, true}, {152, XidIgnore, false}, {154, XidRecoveryAction, true},
		{159, XidCheckUVM, true}, {162, XidNoAction, true}, {172, XidNoAction, true},
	} {
		c, _ := LookupXid(w.code)
		if c.Action != w.action || c.Current != w.current {
			t.Errorf("Xid %d: %s current=%v, want %s current=%v", w.code, c.Action, c.Current, w.action, w.current)
		}
	}
}

// TestJudgeXid pins the severity rule: reset, reboot, drain and current
// CONTACT_SUPPORT fail; RESTART_APP warns; IGNORE is information; an
// unknown Xid warns; 63 warns, 64 and 79 fail; 154 is judged by the action
// it names; 45 only counts alone; NVLink5 Xids by the driver's own
// Fatal/Nonfatal word.
func TestJudgeXid(t *testing.T) {
	ev := func(xid int, variant string, line int) XidEvent {
		return XidEvent{Xid: xid, Variant: variant, Count: 1, Line: line, LastLine: line}
	}
	gpu := func(evs ...XidEvent) KernelGPU { return KernelGPU{Bus: "0000:3b:00", Events: evs} }
	for _, c := range []struct {
		name   string
		e      XidEvent
		g      KernelGPU
		sev    XidSeverity
		action string
		note   string
	}{
		{"fallen off the bus", ev(79, "", 1), KernelGPU{}, XidFail, "RESTART_BM", ""},
		{"DBE", ev(48, "", 1), KernelGPU{}, XidFail, "WORKFLOW_XID_48", ""},
		{"GSP timeout", ev(119, "", 1), KernelGPU{}, XidFail, "RESET_GPU", ""},
		{"NVLink", ev(74, "", 1), KernelGPU{}, XidFail, "WORKFLOW_NVLINK_ERR", ""},
		{"aux power", ev(54, "", 1), KernelGPU{}, XidFail, "CHECK_MECHANICALS", ""},
		{"key rotation", ev(151, "", 1), KernelGPU{}, XidFail, "RESTART_VM", ""},
		{"current contact support", ev(142, "", 1), KernelGPU{}, XidFail, "CONTACT_SUPPORT", ""},
		{"app fault", ev(13, "", 1), KernelGPU{}, XidWarn, "RESTART_APP", ""},
		{"contained", ev(94, "", 1), KernelGPU{}, XidWarn, "RESTART_APP", ""},
		{"vGPU", ev(78, "", 1), KernelGPU{}, XidWarn, "UPDATE_SWFW", ""},
		{"ignore", ev(92, "", 1), KernelGPU{}, XidInfo, "IGNORE", ""},
		{"row remap pending", ev(63, "", 1), KernelGPU{}, XidWarn, "IGNORE", "pending"},
		{"remap failure", ev(64, "", 1), KernelGPU{}, XidFail, "RESET_GPU", ""},
		{"legacy unused", ev(3, "", 1), KernelGPU{}, XidWarn, "CONTACT_SUPPORT", "not used on A100, H100, B100 or GB200"},
		{"no bucket", ev(167, "", 1), KernelGPU{}, XidWarn, "", "no immediate action"},
		{"unknown", ev(201, "", 1), KernelGPU{}, XidWarn, "", "unclassified"},
		{"45 alone", ev(45, "", 1), gpu(ev(45, "", 1)), XidWarn, "WORKFLOW_XID_45", "no other Xid"},
		{"45 with 48", ev(45, "", 1), gpu(ev(45, "", 1), ev(48, "", 2)), XidInfo, "WORKFLOW_XID_45", "Xid 48"},
		{"154 reboot", ev(154, "0x2 (Node Reboot Required)", 5), gpu(ev(154, "0x2 (Node Reboot Required)", 5)), XidFail, "Node Reboot Required", ""},
		{"154 reset", ev(154, "0x1 (GPU Reset Required)", 5), gpu(ev(154, "0x1 (GPU Reset Required)", 5)), XidFail, "GPU Reset Required", ""},
		{"154 windows FLR", ev(154, "0x1 (PF FLR)", 5), gpu(ev(154, "0x1 (PF FLR)", 5)), XidFail, "PF FLR", ""},
		{"154 drain", ev(154, "0x3 (Drain P2P)", 5), gpu(ev(154, "0x3 (Drain P2P)", 5)), XidFail, "Drain P2P", ""},
		{"154 drain and reset", ev(154, "0x4 (Drain and Reset)", 5), gpu(ev(154, "0x4 (Drain and Reset)", 5)), XidFail, "Drain and Reset", ""},
		{"154 hex only", ev(154, "0x2", 5), gpu(ev(154, "0x2", 5)), XidFail, "node reboot", ""},
		{"154 none", ev(154, "0x0 (None)", 5), gpu(ev(154, "0x0 (None)", 5)), XidInfo, "None", "cleared"},
		{"154 superseded", ev(154, "0x1 (GPU Reset Required)", 5), gpu(ev(154, "0x1 (GPU Reset Required)", 5), ev(154, "0x0 (None)", 9)), XidInfo, "GPU Reset Required", "later"},
		{"154 unreadable", ev(154, "", 5), gpu(ev(154, "", 5)), XidWarn, "", "cannot read"},
		{"NVLink5 fatal", ev(149, "NETIR_LINK_EVT Fatal", 1), KernelGPU{}, XidFail, "RESET_GPU", "Fatal"},
		{"NVLink5 nonfatal", ev(145, "RLW_REMAP Nonfatal", 1), KernelGPU{}, XidInfo, "IGNORE", "Nonfatal"},
		{"NVLink5 no word", ev(146, "", 1), KernelGPU{}, XidWarn, "WORKFLOW_NVLINK5_ERR", "severity"},
		{"fell off, no Xid line", ev(79, VariantNoXidLine, 3), gpu(ev(79, VariantNoXidLine, 3)), XidFail, "RESTART_BM", "no Xid line"},
		{"fell off beside its Xid 79", ev(79, VariantNoXidLine, 3), gpu(ev(79, "", 2), ev(79, VariantNoXidLine, 3)), XidInfo, "RESTART_BM", "Xid 79"},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := JudgeXid(c.e, c.g)
			if v.Severity != c.sev || v.Action != c.action || !strings.Contains(v.Note, c.note) {
				t.Errorf("JudgeXid = %+v, want %s %q note ~%q", v, c.sev, c.action, c.note)
			}
		})
	}
}
