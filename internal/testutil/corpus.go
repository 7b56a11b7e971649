package testutil

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// CorpusDir returns ../shared/corpus/<sub> beside the repository root. The
// corpus is third-party material and is never copied into the repository:
// where it is absent the test is skipped, except under CI (CI=true), where
// a missing corpus would let every corpus test pass vacuously, so it fails.
func CorpusDir(t testing.TB, sub string) string {
	t.Helper()
	dir := filepath.Join(RepoRoot(t), "..", "shared", "corpus", sub)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		if os.Getenv("CI") == "true" {
			t.Fatalf("corpus %s absent under CI=true: CI runs with ../shared beside the repository", dir)
		}
		t.Skipf("corpus %s absent; skipping", dir)
	}
	return dir
}

// verbatimMarker ends the curators' header of a corpus file that has one.
const verbatimMarker = "# ----- BEGIN VERBATIM -----\n"

// File is one file of the corpus as its curators wrote it: a header of "#"
// lines saying where it comes from, then the capture byte for byte as its
// source printed it.
type File struct {
	Name string // base name, e.g. "p07_err_couldnt_connect_unable_init_socket.txt"
	Raw  []byte // the whole file, header included
	// Body is the capture: what follows the "# ----- BEGIN VERBATIM -----"
	// line where the file has one, else everything after a first "# SOURCE:"
	// line, else Raw.
	Body []byte
}

// Text is Body without the curators' "## block: <title>" lines (a sample
// published as several blocks, read as one text).
func (f File) Text() string {
	var keep []string
	for _, l := range strings.Split(string(f.Body), "\n") {
		if !strings.HasPrefix(l, "## block:") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// Blocks splits Body at its "## block: <title>" lines: each title's text,
// and what comes before the first title under "".
func (f File) Blocks() map[string]string {
	blocks := map[string]string{}
	title := ""
	for _, line := range strings.SplitAfter(string(f.Body), "\n") {
		if rest, ok := strings.CutPrefix(line, "## block: "); ok {
			title = strings.TrimSpace(rest)
			continue
		}
		blocks[title] += line
	}
	return blocks
}

// Block is the block of Body titled title; it fails t when there is none.
func (f File) Block(t testing.TB, title string) string {
	t.Helper()
	b, ok := f.Blocks()[title]
	if !ok {
		t.Fatalf("%s: corpus block %q missing", f.Name, title)
	}
	return b
}

func readCorpusFile(t testing.TB, path string) File {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading corpus: %v", err)
	}
	f := File{Name: filepath.Base(path), Raw: raw, Body: raw}
	if _, after, ok := bytes.Cut(raw, []byte(verbatimMarker)); ok {
		f.Body = after
	} else if bytes.HasPrefix(raw, []byte("# SOURCE:")) {
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			f.Body = raw[i+1:]
		} else {
			f.Body = nil
		}
	}
	return f
}

// CorpusFile reads ../shared/corpus/<sub>/<name> (see CorpusDir for an absent
// corpus); a missing file fails t.
func CorpusFile(t testing.TB, sub, name string) File {
	t.Helper()
	return readCorpusFile(t, filepath.Join(CorpusDir(t, sub), name))
}

// CorpusFiles reads the files of ../shared/corpus/<sub> whose base names
// match glob, in name order. It fails t when nothing matches, so that a
// renamed corpus cannot make a test pass vacuously.
func CorpusFiles(t testing.TB, sub, glob string) []File {
	t.Helper()
	dir := CorpusDir(t, sub)
	paths, err := filepath.Glob(filepath.Join(dir, glob))
	if err != nil {
		t.Fatalf("globbing corpus: %v", err)
	}
	if len(paths) == 0 {
		t.Fatalf("no corpus file in %s matches %q", dir, glob)
	}
	files := make([]File, 0, len(paths))
	for _, p := range paths {
		files = append(files, readCorpusFile(t, p))
	}
	return files
}

// ReadPinned reads a published-corpus file and checks it against the
// sha256 its manifest pins. ok is false when the file is absent (the
// corpus lives outside the repository); a file whose content differs is
// an error, never read.
func ReadPinned(path, sha string) (data []byte, ok bool, err error) {
	data, err = os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != sha {
		return nil, false, fmt.Errorf("%s has sha256 %s, the manifest says %s", path, got, sha)
	}
	return data, true, nil
}

// OutputCorpus is the directory of published tool outputs that tests read
// but the repository never holds: $FABRICCTL_OUTPUT_CORPUS, else
// ../output-corpus beside the repository. Each test's manifest
// (testdata/published/*.yaml) pins every file in it by sha256.
func OutputCorpus(t testing.TB) string {
	if dir := os.Getenv("FABRICCTL_OUTPUT_CORPUS"); dir != "" {
		return dir
	}
	return filepath.Join(RepoRoot(t), "..", "output-corpus")
}

// PublishedManifests lists testdata/published/*.yaml of the package under
// test, failing t when there is none.
func PublishedManifests(t testing.TB) []string {
	t.Helper()
	ms, err := filepath.Glob(filepath.Join("testdata", "published", "*.yaml"))
	if err != nil || len(ms) == 0 {
		t.Fatalf("no manifest in testdata/published (%v)", err)
	}
	return ms
}
