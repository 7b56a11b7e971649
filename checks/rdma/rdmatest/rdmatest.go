package rdmatest

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/hostcfg/sysfs"
)

// IsFake reports whether this process runs as a fake perftest binary.
func IsFake() bool { return strings.HasPrefix(filepath.Base(os.Args[0]), "ib_") }

const fakeTable = `---------------------------------------------------------------------------------------
                    RDMA_Write BW Test
 Dual-port       : OFF		Device         : %s
 Number of qps   : 1		Transport type : IB
 Connection type : RC		Using SRQ      : OFF
 Mtu             : 1024[B]
 Link type       : Ethernet
 GID index       : 1
 Data ex. method : Ethernet
---------------------------------------------------------------------------------------
 #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]
 65536      1000             %.2f              %.2f   		   0.000476
---------------------------------------------------------------------------------------
`

// Main is the fake perftest: call it from TestMain when the binary runs
// as ib_* (IsFake), and exit with what it returns.
func Main(args []string) int {
	port, dev, peer := 18515, "", ""
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "-p":
			i++
			port, _ = strconv.Atoi(args[i])
		case "-d":
			i++
			dev = args[i]
		case "-i", "-x", "-D", "-n", "-s", "-q", "-u":
			i++
		default:
			if !strings.HasPrefix(args[i], "-") {
				peer = args[i]
			}
		}
	}
	gbps, _ := strconv.ParseFloat(os.Getenv("FAKE_GBPS"), 64)
	if gbps == 0 {
		gbps = 0.25
	}
	if d, err := time.ParseDuration(os.Getenv("FAKE_RUN")); err == nil {
		defer time.Sleep(d)
	}
	if os.Getenv("FAKE_PERFTEST") == "hang" || strings.HasPrefix(dev, "hang") {
		select {}
	}
	// A device named slow* is a bad NIC: every test it takes part in is slow.
	slow := func(d string) {
		if strings.HasPrefix(d, "slow") {
			gbps /= 5
		}
	}
	slow(dev)
	if peer == "" {
		if d, err := time.ParseDuration(os.Getenv("FAKE_LISTEN_DELAY")); err == nil {
			time.Sleep(d)
		}
		fmt.Println("\n************************************\n* Waiting for client to connect... *\n************************************")
		ln, err := net.Listen("tcp", ":"+strconv.Itoa(port))
		if err != nil {
			fmt.Fprintln(os.Stderr, "Couldn't listen to port", port)
			return 1
		}
		c, err := ln.Accept()
		if err != nil {
			return 1
		}
		fmt.Fprintln(c, dev)
		peerDev, _ := bufio.NewReader(c).ReadString('\n')
		slow(strings.TrimSpace(peerDev))
		c.Close()
		fmt.Printf(fakeTable, dev, gbps, gbps)
		return 0
	}
	c, err := net.DialTimeout("tcp", net.JoinHostPort(peer, strconv.Itoa(port)), time.Second)
	if err != nil {
		fmt.Fprintf(os.Stderr, "Couldn't connect to %s:%d\nUnable to open file descriptor for socket connection Unable to init the socket connection\n", peer, port)
		return 1
	}
	peerDev, _ := bufio.NewReader(c).ReadString('\n')
	slow(strings.TrimSpace(peerDev))
	fmt.Fprintln(c, dev)
	c.Close()
	if calibrationFails() {
		// perftest with -F: the rate columns come out as zeros.
		fmt.Fprintln(os.Stderr, "Correlation coefficient r^2: 0.67 < 0.9")
		fmt.Printf(fakeTable, dev, 0.0, 0.0)
		return 0
	}
	fmt.Printf(fakeTable, dev, gbps, gbps)
	return 0
}

// calibrationFails reports whether this client is one of the first
// FAKE_CALIB_FAILS clients (counted with token files in FAKE_STATE) whose
// CPU clock calibration fails.
func calibrationFails() bool {
	n, _ := strconv.Atoi(os.Getenv("FAKE_CALIB_FAILS"))
	dir := os.Getenv("FAKE_STATE")
	for i := 1; i <= n && dir != ""; i++ {
		f, err := os.OpenFile(filepath.Join(dir, "calib-"+strconv.Itoa(i)), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err == nil {
			f.Close()
			return true
		}
	}
	return false
}

// Path makes a PATH directory whose ib_write_bw, ib_read_bw and
// ib_send_lat are the test binary (which must call Main from TestMain), or
// the given script.
func Path(t testing.TB, script string) string {
	t.Helper()
	dir := t.TempDir()
	target, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if script != "" {
		if target, err = filepath.Abs(script); err != nil {
			t.Fatal(err)
		}
	}
	for _, b := range []string{"ib_write_bw", "ib_read_bw", "ib_send_lat"} {
		if err := os.Symlink(target, filepath.Join(dir, b)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// FreePort finds a TCP port p such that p..p+7 are free, below the
// ephemeral range (32768+): a sweep uses p+i for its i-th concurrent pair,
// and a port in the ephemeral range may be taken by any outgoing connection,
// the tests' own clients included.
func FreePort(t testing.TB) int {
	t.Helper()
	for try := 0; try < 200; try++ {
		p := 20000 + rand.IntN(12000)
		ok := true
		for i := range 8 {
			ln, err := net.Listen("tcp", ":"+strconv.Itoa(p+i))
			if err != nil {
				ok = false
				break
			}
			ln.Close()
		}
		if ok {
			return p
		}
	}
	t.Fatal("no free TCP port range below 32768")
	return 0
}

// Table is the fake's output at a given bandwidth on device dev.
func Table(dev string, gbps float64) string {
	return fmt.Sprintf(fakeTable, dev, gbps, gbps)
}

// Sys makes a sysfs tree in a temporary directory with an RDMA device of
// each name: port 1, ACTIVE, Ethernet, GID 0 (link-local) and GID 1 (RoCE
// v2, IPv4 10.0.0.11) on netdev eth0, and zero hw_counters. The agent checks
// a request's device, port and GID index against it, so that devices named
// slow* and hang* steer the fake.
func Sys(t testing.TB, devs ...string) sysfs.FS {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"state": "4: ACTIVE", "phys_state": "5: LinkUp", "rate": "10 Gb/sec (1X QDR)", "link_layer": "Ethernet",
		"gids/0": "fe80:0000:0000:0000:5054:00ff:fe12:3456", "gids/1": "0000:0000:0000:0000:0000:ffff:0a00:000b",
		"gid_attrs/types/0": "RoCE v2", "gid_attrs/types/1": "RoCE v2",
		"gid_attrs/ndevs/0": "eth0", "gid_attrs/ndevs/1": "eth0",
		"hw_counters/rcvd_pkts": "0", "hw_counters/sent_pkts": "0",
	}
	for _, d := range devs {
		for name, v := range files {
			p := filepath.Join(root, "class", "infiniband", d, "ports", "1", name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(v+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return sysfs.NewFS(root)
}
