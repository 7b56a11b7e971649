// Command genfabric writes a large synthetic fabric for benchmarks:
//
//	go run ./bench/genfabric -hosts 2000 -switches 200 -partitions 64 -out DIR
//
// DIR/fabric.yaml includes DIR/roce.yaml and DIR/ib.yaml. Hosts are spread over
// racks and leaves; every partition selects the hosts of one tenant label.
package main
