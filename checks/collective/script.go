package collective

import (
	"bufio"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// ScriptPrefix starts every line the PyTorch script prints for fabricctl.
const ScriptPrefix = "FABRICCTL-NCCL "

// Event is one line of the script: "init" and "done" per rank, "size" per
// message size (from rank 0: the slowest rank's time, every rank's wrong
// elements), "error" when something raised.
type Event struct {
	Event     string  `json:"event"`
	Rank      int     `json:"rank"`
	World     int     `json:"world,omitempty"`
	LocalRank int     `json:"local_rank,omitempty"`
	Host      string  `json:"host,omitempty"`
	Device    string  `json:"device,omitempty"`
	Torch     string  `json:"torch,omitempty"`
	NCCL      string  `json:"nccl,omitempty"`
	Bytes     int64   `json:"bytes,omitempty"`
	Count     int64   `json:"count,omitempty"`
	TimeUs    float64 `json:"time_us,omitempty"`
	AlgBW     float64 `json:"algbw,omitempty"`
	BusBW     float64 `json:"busbw,omitempty"`
	Wrong     int64   `json:"wrong,omitempty"`
	Expected  float64 `json:"expected,omitempty"`
	Got       float64 `json:"got,omitempty"`
	Stage     string  `json:"stage,omitempty"`
	Message   string  `json:"message,omitempty"`
	Where     string  `json:"-"` // "log:line"
}

// ScriptRun is what the script printed across every host's output.
type ScriptRun struct {
	Inits  []Event `json:"inits,omitempty"`
	Sizes  []Event `json:"sizes,omitempty"`
	Errors []Event `json:"errors,omitempty"`
	Done   []int   `json:"done,omitempty"` // ranks that finished
}

// maxScriptLine bounds a script line; its longest is an error message of
// at most 2000 characters.
const maxScriptLine = 64 << 10

// ParseScript reads the script's lines out of a log (anything else in it is
// skipped, and so is a line that is not the script's JSON); name locates them.
func ParseScript(name, text string, into *ScriptRun) {
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 0, 4096), maxScriptLine)
	n := 0
	for sc.Scan() {
		n++
		_, rest, ok := strings.Cut(sc.Text(), ScriptPrefix)
		if !ok {
			continue
		}
		var e Event
		if json.Unmarshal([]byte(rest), &e) != nil {
			continue
		}
		e.Where = name + ":" + strconv.Itoa(n)
		switch e.Event {
		case "init":
			into.Inits = append(into.Inits, e)
		case "size":
			into.Sizes = append(into.Sizes, e)
		case "error":
			into.Errors = append(into.Errors, e)
		case "done":
			if !slices.Contains(into.Done, e.Rank) {
				into.Done = append(into.Done, e.Rank)
			}
		}
	}
	slices.Sort(into.Done)
}

// World is the number of ranks the script's ranks reported (0 when none did).
func (s ScriptRun) World() int {
	w := 0
	for _, e := range s.Inits {
		w = max(w, e.World)
	}
	return w
}

// MaxBusBW returns the best bus bandwidth of the timed sizes, GB/s, and the
// size it was reached at.
func (s ScriptRun) MaxBusBW() (float64, int64) {
	best, at := 0.0, int64(0)
	for _, e := range s.Sizes {
		if e.BusBW > best {
			best, at = e.BusBW, e.Bytes
		}
	}
	return best, at
}
