package view

// Kinds of the reports of this package, next to their apiVersion
// (output.Write adds the member).
const (
	// KindApplyReport is what host apply prints.
	KindApplyReport = "HostApplyReport"
	// KindRecoverReport is what host recover prints.
	KindRecoverReport = "HostRecoverReport"
	// KindFleetRecoverReport is what recover prints.
	KindFleetRecoverReport = "RecoverReport"
)

// DocumentKind is KindApplyReport.
func (ApplyReport) DocumentKind() string { return KindApplyReport }

// DocumentKind is KindRecoverReport.
func (RecoverReport) DocumentKind() string { return KindRecoverReport }

// DocumentKind is KindFleetRecoverReport.
func (FleetRecoverReport) DocumentKind() string { return KindFleetRecoverReport }
