// Package checktest holds test helpers shared by the checks packages.
//
// CorpusFiles feeds the real-world corpus in ../shared/corpus/validation to
// the parser tests. Every corpus file starts with a "# SOURCE: …" line written
// by the corpus' curators; CorpusFiles strips it so the parsers see the
// captured output byte for byte as its source printed it. The corpus is never
// copied into the repository: CorpusFiles skips the test when the corpus is
// absent (testutil.CorpusDir) and fails it when a pattern that should match
// matches nothing, so a renamed corpus cannot make a test pass vacuously.
//
// JSON renders a value the way the golden files store it: indented, without
// HTML escaping.
//
// Safe for concurrent use.
package checktest
