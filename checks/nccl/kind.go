package nccl

// ReportKind is the kind of the Report document, next to its apiVersion.
const ReportKind = "NCCLAnalysis"
