package agentsim_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/internal/remote"
	"github.com/fabricctl/fabricctl/internal/testutil"
	"github.com/fabricctl/fabricctl/testkit/agentsim"
)

// lines are command lines the controller sends, and ones a shell would
// interpret (which the double must refuse).
var lines = []string{
	`.cache/fabricctl/bin/fabricctl version -o json`,
	`'/opt/my tools/fabricctl' agent`,
	`sh -c 'set -e; d=$(dirname "$1"); mkdir -p "$d"' fabricctl-upload .cache/fabricctl/bin/fabricctl 755`,
	`echo 'it'\''s' ''`,
	`a\ b	c`,
	`fabricctl agent; rm -rf ~`,
	`fabricctl $HOME`,
	`fabricctl 'unterminated`,
	`fabricctl \`,
	`   `,
	"fabricctl agent\nid",
}

func TestSplitWordsGolden(t *testing.T) {
	type result struct {
		Line  string   `json:"line"`
		Argv  []string `json:"argv,omitempty"`
		Error string   `json:"error,omitempty"`
	}
	var got []result
	for _, l := range lines {
		argv, err := agentsim.SplitWords(l)
		r := result{Line: l, Argv: argv}
		if err != nil {
			r.Error = err.Error()
			if !errors.Is(err, agentsim.ErrShellSyntax) {
				t.Errorf("%q: error %v is not ErrShellSyntax", l, err)
			}
		}
		got = append(got, r)
	}
	b, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, "splitwords.golden", append(b, '\n'))
}

// FuzzSplitWords: any argv remote.Command quotes splits back to itself, and
// no input panics. The fuzz input is argv joined with NUL.
func FuzzSplitWords(f *testing.F) {
	for _, l := range lines {
		f.Add(l)
	}
	f.Add("fabricctl\x00agent")
	f.Add("sh\x00-c\x00set -e; cat > \"$1\"\x00fabricctl-upload\x00p\x00755")
	f.Fuzz(func(t *testing.T, s string) {
		agentsim.SplitWords(s) // must not panic
		argv := strings.Split(s, "\x00")
		got, err := agentsim.SplitWords(remote.Command(argv))
		if err != nil || !slices.Equal(got, argv) {
			t.Fatalf("round trip of %q through %q: %q, %v", argv, remote.Command(argv), got, err)
		}
	})
}
