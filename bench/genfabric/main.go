package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/fabricctl/fabricctl/testkit/fabricgen"
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
