package perftest

import (
	"bytes"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/internal/testutil"
)

// corpusExpect is what each real-world capture must yield. Every file of
// corpus/validation/perftest must have an entry, so a new capture cannot go
// untested.
type corpusExpect struct {
	test      Test
	cause     checks.FailureClass // "" = no failure
	detail    string
	server    bool
	rows      int // bandwidth + latency rows
	truncated bool
	check     func(t *testing.T, r *Report)
}

var corpusExpectations = map[string]corpusExpect{
	"p01a_ib_write_bw_RoCE_server_a_report_gbits_waiting.txt": {server: true},
	"p01b_ib_write_bw_RoCE_client_a_report_gbits_gdr.txt": {test: WriteBW, rows: 23, check: func(t *testing.T, r *Report) {
		f, _ := r.Final()
		if f.Bytes != 8388608 || f.BWAverage != 92.39 || r.BWUnit != checks.UnitGbps || *r.Header.GIDIndex != 5 || r.Header.MTU != 1024 || r.Header.LinkType != "Ethernet" {
			t.Errorf("final %+v header %+v", f, r.Header)
		}
		if r.Local[0].GID != "::ffff:192.168.2.226" || r.Remote[0].GID != "::ffff:192.168.2.225" {
			t.Errorf("GIDs %s %s", r.Local[0].GID, r.Remote[0].GID)
		}
	}},
	"p02_ib_write_bw_IB_client_a_report_gbits_quoted.txt": {test: WriteBW, rows: 3, truncated: true, check: func(t *testing.T, r *Report) {
		if r.Header.LinkType != "IB" || r.Header.GIDIndex != nil || r.BW[0].BWAverage != 0.042185 {
			t.Errorf("header %+v rows %+v", r.Header, r.BW)
		}
	}},
	"p03_ib_write_bw_RoCE_server_duration_MBsec.txt": {test: WriteBW, server: true, truncated: true, check: func(t *testing.T, r *Report) {
		if r.BWUnit != checks.UnitMBps || *r.Header.GIDIndex != 3 {
			t.Errorf("unit %q header %+v", r.BWUnit, r.Header)
		}
	}},
	"p04_ib_write_bw_postlist_60s_8B_gbits.txt": {test: WriteBW, rows: 1, check: func(t *testing.T, r *Report) {
		if !r.PostList || r.Header.PostList != 128 || r.BW[0].Iterations != 224958464 || r.BW[0].MsgRate != 7.498617 {
			t.Errorf("post list report %+v", r)
		}
	}},
	"p05_ib_write_bw_IB_loopback_localhost_header.txt": {test: WriteBW, check: func(t *testing.T, r *Report) {
		if r.Header.Device != "ibp5" || r.Header.LinkType != "IB" || !strings.HasPrefix(r.Local[0].GID, "fe80::") {
			t.Errorf("header %+v local %+v", r.Header, r.Local)
		}
	}},
	"p06_ib_send_bw_all_vs_fixed_size_rows.txt": {rows: 2, check: func(t *testing.T, r *Report) {
		if r.BW[0].BWAverage != 5544.28 || r.BW[1].BWAverage != 920.13 || r.BWUnit != checks.UnitMBps {
			t.Errorf("rows %+v", r.BW)
		}
	}},
	"p07_err_couldnt_connect_unable_init_socket.txt": {cause: checks.OOBConnect, detail: "192.168.125.211:18515"},
	"p08_err_rdma_cm_read_keys_modify_qp_rts.txt":    {cause: checks.QPBringUp, detail: "RTS"},
	"p09_err_modify_qp_rtr_zero_gid_container.txt": {test: WriteBW, cause: checks.QPBringUp, detail: "RTR", check: func(t *testing.T, r *Report) {
		if h := strings.Join(Hints(nil, r), "\n"); !strings.Contains(h, "local GID at index 0 is all zeros") {
			t.Errorf("hints %q", h)
		}
	}},
	"p10_err_modify_qp_rtr_grh_required.txt": {cause: checks.QPBringUp, detail: "RTR"},
	"p11_ib_write_bw_RoCE_server_before_completion_error.txt": {test: WriteBW, server: true, check: func(t *testing.T, r *Report) {
		if len(r.Warnings) != 2 || r.Header.Device != "rocep4s0f0" {
			t.Errorf("warnings %q header %+v", r.Warnings, r.Header)
		}
	}},
	"p12_ngc_rdma_test_bidir_write_output_bandwidth_json.txt": {test: WriteBW, check: func(t *testing.T, r *Report) {
		if !r.Bidirectional || r.Header.QPs != 2 || len(r.Warnings) != 1 {
			t.Errorf("report %+v", r)
		}
	}},
	"p13_ib_send_bw_RoCE_bond_rdma_cm_exchange.txt": {test: SendBW, check: func(t *testing.T, r *Report) {
		if r.Header.DataExMethod != "rdma_cm" || r.Header.Device != "mlx5_bond_0" {
			t.Errorf("header %+v", r.Header)
		}
	}},
	"p14_ib_read_bw_softroce_rxe_header.txt": {test: ReadBW, check: func(t *testing.T, r *Report) {
		if r.Header.Device != "rxe0" || r.Header.GIDIndex == nil || *r.Header.GIDIndex != 0 || r.Header.OutstandReads != 128 {
			t.Errorf("header %+v", r.Header)
		}
	}},
	"p15_ib_atomic_bw_pib_loopback_complete.txt": {test: AtomicBW, rows: 1, check: func(t *testing.T, r *Report) {
		if r.BW[0].BWAverage != 1.67 || r.BWUnit != checks.UnitMBps || r.Title != "Atomic CMP_AND_SWAP BW Test" {
			t.Errorf("report %+v", r)
		}
	}},
	"p16_ib_write_lat_RoCE_server_a_C_header.txt": {test: WriteLat, server: true, truncated: true},
	"p17_ib_write_lat_out_json_invalid_old_format.txt": {test: WriteLat, rows: 1, check: func(t *testing.T, r *Report) {
		if !r.Lenient || r.Lat[0].P999 != 4.03 || r.Lat[0].TTypical != 2.42 || r.Header.Device != "rxe0" {
			t.Errorf("report %+v", r)
		}
	}},
	"p18_err_argument_parser_lat_bidir_duration_margin.txt": {cause: checks.ArgumentError},
}

// jsonBlock returns the lines from the first "{" line to the last "}" line: the
// --out_json file a capture shows between shell prompts.
func jsonBlock(b []byte) []byte {
	start := bytes.Index(b, []byte("\n{\n"))
	end := bytes.LastIndex(b, []byte("\n}\n"))
	if start < 0 || end < start {
		return nil
	}
	return b[start+1 : end+2]
}

func TestCorpus(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range testutil.CorpusFiles(t, "validation/perftest", "*.txt") {
		seen[f.Name] = true
		t.Run(f.Name, func(t *testing.T) {
			want, ok := corpusExpectations[f.Name]
			if !ok {
				t.Fatalf("no expectation for corpus file %s: add one", f.Name)
			}
			var r *Report
			var err error
			if block := jsonBlock(f.Body); block != nil {
				r, err = ParseJSON(block)
			} else {
				r, err = Parse(bytes.NewReader(f.Body))
			}
			if err != nil {
				t.Fatalf("parsing: %v", err)
			}
			if r.Test != want.test || r.ServerBanner != want.server || r.Truncated != want.truncated || len(r.BW)+len(r.Lat) != want.rows {
				t.Errorf("test %v server %v truncated %v rows %d; want %v %v %v %d", r.Test, r.ServerBanner, r.Truncated, len(r.BW)+len(r.Lat), want.test, want.server, want.truncated, want.rows)
			}
			cause, failed := Cause(r)
			if failed != (want.cause != "") || cause.Class != want.cause || (want.detail != "" && cause.Detail != want.detail) {
				t.Errorf("cause %+v, want %s %q", cause, want.cause, want.detail)
			}
			if want.check != nil {
				want.check(t, r)
			}
		})
	}
	for name := range corpusExpectations {
		if !seen[name] {
			t.Errorf("expectation for %s, which the corpus no longer has", name)
		}
	}
}
