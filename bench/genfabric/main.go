// Command genfabric writes a large synthetic fabric for benchmarks:
//
//	go run ./bench/genfabric -hosts 2000 -switches 200 -partitions 64 -out DIR
//
// DIR/fabric.yaml includes DIR/roce.yaml and DIR/ib.yaml. Hosts are spread over
// racks and leaves; every partition selects the hosts of one tenant label.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/fabricctl/fabricctl/internal/fabricgen"
)

func main() {
	hosts := flag.Int("hosts", 2000, "number of hosts")
	switches := flag.Int("switches", 200, "number of switches")
	parts := flag.Int("partitions", 64, "number of IB partitions")
	out := flag.String("out", ".", "output directory")
	flag.Parse()
	if err := fabricgen.Write(*out, *hosts, *switches, *parts); err != nil {
		fmt.Fprintln(os.Stderr, "genfabric:", err)
		os.Exit(1)
	}
}
