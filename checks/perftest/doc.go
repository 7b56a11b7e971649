// Package perftest speaks to the linux-rdma perftest binaries
// (ib_{write,read,send,atomic}_{bw,lat}) without running them: Args builds
// the argv of one side of a test, Parse reads what a side printed, ParseJSON
// reads an --out_json file, and Cause and Hints turn the error lines of both
// sides into a FailureClass and advice.
//
// Building a pairwise test (the server first, then the client with Peer set):
//
//	spec := perftest.Spec{Test: perftest.WriteBW, Device: "mlx5_0", GIDIndex: &gidIdx,
//		TCPPort: 20001, ReportGbits: true, IgnoreFreq: true, Duration: 5 * time.Second}
//	serverArgv, err := perftest.Args(spec)
//	spec.Device, spec.GIDIndex, spec.Peer = "mlx5_1", &peerGID, "10.0.1.11"
//	clientArgv, err := perftest.Args(spec)
//
// argv is exec'd as is; nothing is ever joined into a shell string, and Spec
// rejects values that getopt would read as options.
//
// Reading the outputs:
//
//	srv, _ := perftest.Parse(serverStdout)
//	cli, err := perftest.Parse(clientStdout)
//	if f, failed := perftest.Cause(srv, cli); failed {
//		// f.Class is checks.QPBringUp, f.Detail "RTR", f.Text the line perftest printed;
//		// perftest.Hints(srv, cli) says "local GID at index 0 is all zeros …".
//	}
//	row, _ := cli.Final() // the largest message size
//	gbps := perftest.ToGbps(row.BWAverage, cli.BWUnit)
//
// Parse understands bandwidth tables in Gb/s (--report_gbits) and MB/s, extra
// columns (CPU_Util, per-port, #sl), latency tables in usec or cycles (-C),
// duration-mode latency (t_avg, tps average), bare --output values, several
// result tables (-a), server and client banners, and every error shape in the
// project's corpus: the out-of-band socket ("Couldn't connect to host:port"),
// QP bring-up ("Failed to modify QP to RTR"), completion errors with the
// ibv_wc_status named ("Failed status 12" → RETRY_EXC_ERR), argument errors,
// clock calibration ("Correlation coefficient r^2 … < 0.9"), a missing device,
// a down port and a missing binary. Output cut off mid-row sets Truncated; the
// complete rows before it are kept. A row whose figure is no measurement (NaN,
// an infinity, a negative value, a number its field cannot hold: a message
// size of 1e23, a JSON 1e999) is left out and listed, located, in NotNumbers:
// never read as zero.
//
// perftest 4.5 (Debian 12) writes --out_json files with unquoted keys and
// values; ParseJSON reads them leniently and sets Lenient, but the text table
// stays the primary source on such hosts.
//
// All functions are pure and safe for concurrent use; a Report is a plain value.
package perftest
