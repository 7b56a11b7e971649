// Package fabricctl holds no code of its own: the command is cmd/fabricctl,
// and docs/architecture.md draws the tree. Its tests guard the repository's
// layout for every package at once:
//
//   - layers_test.go computes every package's imports with `go list` and fails
//     on an arrow that runs up a floor of DESIGN.md §1 (internal < fabric <
//     hostcfg, switchcfg < agent < checks < action < cmd, lab, bench; testkit
//     beside them, for tests, lab and bench only), on a package under internal/
//     that imports the module, on a third-party module outside the floor that
//     owns it, and on a package without a doc.go;
//   - files_test.go holds package fabric's files to one order: it fails on
//     every pair of files that refer to each other both ways.
//
// Run them with `go test .` at the repository root.
package fabricctl
