package fabricctl_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// mdLink finds markdown links and images: [text](target) and ![alt](target).
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// headingSlugs are the anchors GitHub gives the headings of a markdown
// file: lower case, punctuation dropped, blanks turned into hyphens,
// repeats numbered.
func headingSlugs(text string) map[string]bool {
	slugs := map[string]bool{}
	seen := map[string]int{}
	fence := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fence = !fence
			continue
		}
		if fence || !strings.HasPrefix(line, "#") {
			continue
		}
		h := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(h) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		s := b.String()
		if n := seen[s]; n > 0 {
			slugs[s+"-"+strconv.Itoa(n)] = true
		} else {
			slugs[s] = true
		}
		seen[s]++
	}
	return slugs
}

// Every link of README.md to a file of the repository resolves, and a
// link into a markdown file's heading names one that exists.
func TestReadmeLinks(t *testing.T) {
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	n := 0
	for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
		target := m[1]
		if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
			continue
		}
		n++
		file, frag, _ := strings.Cut(target, "#")
		if file == "" {
			file = "README.md"
		}
		if filepath.IsAbs(file) || strings.HasPrefix(filepath.Clean(file), "..") {
			t.Errorf("README.md links to %s, outside the repository", target)
			continue
		}
		body, err := os.ReadFile(file)
		if err != nil {
			if fi, serr := os.Stat(file); serr == nil && fi.IsDir() && frag == "" {
				continue
			}
			t.Errorf("README.md links to %s: %v", target, err)
			continue
		}
		if frag != "" && strings.HasSuffix(file, ".md") && !headingSlugs(string(body))[frag] {
			t.Errorf("README.md links to %s: %s has no heading #%s", target, file, frag)
		}
	}
	if n < 5 {
		t.Errorf("found %d local links in README.md; the pattern is broken", n)
	}
	// A document named in code rather than linked must exist too, and
	// nothing may point outside the repository.
	for _, m := range codePath.FindAllStringSubmatch(text, -1) {
		p := m[1]
		if strings.HasPrefix(p, "../") {
			t.Errorf("README.md names %s, outside the repository", p)
		} else if _, err := os.Stat(p); err != nil && strings.HasSuffix(p, ".md") {
			t.Errorf("README.md names %s: %v", p, err)
		}
	}
}

// codePath finds paths written in code spans: `docs/x.md`, `../y`.
var codePath = regexp.MustCompile("`((?:\\.\\./|[A-Za-z0-9_.-]+/)[^`\\s]*|[^`\\s/]+\\.md)`")

// The slugs are GitHub's for the headings the README links to.
func TestHeadingSlugs(t *testing.T) {
	s := headingSlugs("# The fabric YAML, field by field\n### NCCL (`spec.checks.nccl`)\n## Interrupted applies\n```\n# not a heading\n```\n## Checks\n## Checks\n")
	for _, want := range []string{"the-fabric-yaml-field-by-field", "nccl-specchecksnccl", "interrupted-applies", "checks", "checks-1"} {
		if !s[want] {
			t.Errorf("no slug %q in %v", want, s)
		}
	}
	if s["not-a-heading"] {
		t.Error("a comment in a code block was taken for a heading")
	}
}

// make install puts the binary in $(PREFIX)/bin when PREFIX is given, in
// $GOBIN otherwise when it is set, else in /usr/local/bin (README, Install).
func TestMakeInstallDestination(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("CI must have make")
		}
		t.Skip("no make")
	}
	for _, c := range []struct {
		env  []string
		args []string
		want string
	}{
		{[]string{"GOBIN="}, nil, "/usr/local/bin/fabricctl"},
		{[]string{"GOBIN="}, []string{"PREFIX=/opt/fc"}, "/opt/fc/bin/fabricctl"},
		{[]string{"GOBIN=/gobin"}, nil, "/gobin/fabricctl"},
		{[]string{"GOBIN=/gobin"}, []string{"PREFIX=/opt/fc"}, "/opt/fc/bin/fabricctl"},
		{[]string{"GOBIN="}, []string{"BINDIR=/b", "DESTDIR=/stage"}, "/stage/b/fabricctl"},
	} {
		cmd := exec.Command("make", append([]string{"-n", "install"}, c.args...)...)
		cmd.Env = append(os.Environ(), c.env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("make -n install %v: %v\n%s", c.args, err, out)
		}
		want := "install -D -m 0755 bin/fabricctl " + c.want + "\n"
		if !strings.Contains(string(out), want) {
			t.Errorf("make -n install %v with %v:\n%s\nwant the line %q", c.args, c.env, out, want)
		}
	}
}
