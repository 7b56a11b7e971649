// Package fabricgen writes large synthetic fabrics (hosts spread over racks and
// leaves, switches of every platform, partitions selecting tenants) for
// benchmarks and scale tests. Write is safe for concurrent use on distinct dirs.
package fabricgen
