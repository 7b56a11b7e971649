package checks

import "strconv"

// wcStatus holds the names of enum ibv_wc_status (rdma-core
// libibverbs/verbs.h) by value, without the IBV_WC_ prefix.
var wcStatus = []string{
	"SUCCESS", "LOC_LEN_ERR", "LOC_QP_OP_ERR", "LOC_EEC_OP_ERR", "LOC_PROT_ERR",
	"WR_FLUSH_ERR", "MW_BIND_ERR", "BAD_RESP_ERR", "LOC_ACCESS_ERR", "REM_INV_REQ_ERR",
	"REM_ACCESS_ERR", "REM_OP_ERR", "RETRY_EXC_ERR", "RNR_RETRY_EXC_ERR", "LOC_RDD_VIOL_ERR",
	"REM_INV_RD_REQ_ERR", "REM_ABORT_ERR", "INV_EECN_ERR", "INV_EEC_STATE_ERR", "FATAL_ERR",
	"RESP_TIMEOUT_ERR", "GENERAL_ERR", "TM_ERR", "TM_RNDV_INCOMPLETE",
}

// WCStatusName names a work-completion status number as perftest and NCCL print
// it ("Failed status 12", "with error 12"): 12 → "RETRY_EXC_ERR". Unknown
// numbers come back as "status N".
func WCStatusName(n int) string {
	if n >= 0 && n < len(wcStatus) {
		return wcStatus[n]
	}
	return "status " + strconv.Itoa(n)
}
