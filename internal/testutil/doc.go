// Package testutil holds helpers shared by the tests of every package:
// golden-file comparison with the -update flag (Golden, JSON), repository
// paths (RepoRoot), random values for encoder property tests (Fill), and the
// one reader of the real-world corpus in ../shared/corpus:
//
//	f := testutil.CorpusFile(t, "switches", "cumulus-nvue-roce.txt")
//	cmds := f.Block(t, "enable RoCE lossless") // a titled block of the capture
//	for _, f := range testutil.CorpusFiles(t, "validation/perftest", "*.txt") { … f.Body … }
//
// A corpus File keeps the curators' header apart from the capture (Body:
// after the "# ----- BEGIN VERBATIM -----" line, or after a single
// "# SOURCE:" line). The corpus is never copied into the repository: an
// absent corpus skips a test on a developer's machine and fails it under
// CI=true; a pattern that matches nothing fails, so that a renamed corpus
// cannot make a test pass vacuously.
//
// testutil imports nothing of fabricctl. Everything here is safe for
// concurrent use by parallel tests.
package testutil
