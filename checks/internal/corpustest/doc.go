// Package corpustest feeds the real-world corpus in ../shared/corpus/validation
// to the parser tests of the checks packages. Every corpus file starts with a
// "# SOURCE: …" line written by the corpus' curators; Files strips it so the
// parsers see the captured output byte for byte as its source printed it.
//
// The corpus is never copied into the repository: Files skips the test when the
// corpus is absent (testutil.CorpusDir) and fails it when a pattern that should
// match matches nothing, so a renamed corpus cannot make a test pass vacuously.
// Safe for concurrent use.
package corpustest
