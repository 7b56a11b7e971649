package output

import (
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
)

type tailSample struct {
	Name  string            `yaml:"name"`
	Ports []string          `yaml:"ports"`
	Tags  map[string]string `yaml:"tags,omitempty"`
	MTU   int               `yaml:"mtu"`
	DSCP  []int             `yaml:"dscp,flow"`
	Inner *struct {
		A string `yaml:"a"`
	} `yaml:"inner,omitempty"`
	Note string `yaml:"note,omitempty"`
}

func TestYAMLTailMatchesWholeEncoding(t *testing.T) {
	y, err := NewYAMLTail(tailSample{}, "MTU")
	if err != nil {
		t.Fatal(err)
	}
	var values []tailSample
	for i := 0; i < 40; i++ {
		v := tailSample{Name: fmt.Sprintf("leaf-%d", i), Ports: []string{"swp1", fmt.Sprintf("swp%d", i)}, MTU: 9216 - i%3, DSCP: []int{26, i % 2}}
		if i%5 == 0 {
			v.Tags = map[string]string{"rack": "r1"}
			v.Inner = &struct {
				A string `yaml:"a"`
			}{A: "yes"} // a string yaml.v3 must quote
			v.Note = "multi\nline"
		}
		values = append(values, v)
	}
	values = append(values, tailSample{}) // empty ports: null
	var wg sync.WaitGroup
	for _, v := range values {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := y.Marshal(v)
			want, werr := encodeYAML(v)
			if err != nil || werr != nil || got != want {
				t.Errorf("%s: got\n%s\nwant\n%s (%v %v)", v.Name, got, want, err, werr)
			}
		}()
	}
	wg.Wait()
	var distinct []tailSample
	for _, v := range values {
		v.Name, v.Ports, v.Tags = "", nil, nil
		if !slices.ContainsFunc(distinct, func(d tailSample) bool { return reflect.DeepEqual(d, v) }) {
			distinct = append(distinct, v)
		}
	}
	if len(y.cache) != len(distinct) {
		t.Errorf("%d tails cached, want one per distinct tail (%d)", len(y.cache), len(distinct))
	}
}

func TestYAMLTailRefusesWhatItCannotSplit(t *testing.T) {
	type embedded struct{ A int }
	for name, tc := range map[string]struct {
		sample any
		field  string
	}{
		"not a struct":  {1, "A"},
		"no such field": {tailSample{}, "Nope"},
		"first field":   {tailSample{}, "Name"},
		"embedded field": {struct {
			embedded
			B int
		}{}, "B"},
	} {
		if _, err := NewYAMLTail(tc.sample, tc.field); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	y, _ := NewYAMLTail(tailSample{}, "MTU")
	if _, err := y.Marshal(struct{}{}); err == nil {
		t.Error("a value of another type: no error")
	}
}
