// Package testutil holds helpers shared by the tests of every package:
// locating the real-world corpus in ../shared/corpus (skipping when it is
// absent), golden-file comparison with the -update flag, and repository paths.
//
// Everything here is safe for concurrent use by parallel tests.
package testutil
