package output

import (
	"fmt"
	"sync"
	"testing"
)

type memoSample struct {
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

func TestYAMLMemoMatchesWholeEncoding(t *testing.T) {
	m, err := NewYAMLMemo(memoSample{})
	if err != nil {
		t.Fatal(err)
	}
	var values []memoSample
	for i := 0; i < 60; i++ {
		v := memoSample{Name: fmt.Sprintf("leaf-%d", i), Ports: []string{"swp1", fmt.Sprintf("swp%d", i%4)}, MTU: 9216 - i%3, DSCP: []int{26, i % 2}}
		if i%5 == 0 {
			v.Tags = map[string]string{"rack": "r1", "on": "yes"}
			v.Inner = &struct {
				A string `yaml:"a"`
			}{A: "yes"} // a string yaml.v3 must quote
			v.Note = "multi\nline"
		}
		values = append(values, v)
	}
	values = append(values, memoSample{}) // nil ports: null, omitted fields
	var wg sync.WaitGroup
	for _, v := range values {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := m.Marshal(v)
			want, werr := encodeYAML(v)
			if err != nil || werr != nil || got != want {
				t.Errorf("%s: got\n%s\nwant\n%s (%v %v)", v.Name, got, want, err, werr)
			}
		}()
	}
	wg.Wait()
	if n := len(m.fields[1].seen); n != 5 {
		t.Errorf("%d port lists remembered, want the 4 distinct lists and nil", n)
	}
	if n := len(m.fields[0].seen); n != maxMemo {
		t.Errorf("%d names remembered, want the cap %d", n, maxMemo)
	}
}

func TestYAMLMemoAllFieldsOmitted(t *testing.T) {
	type opt struct {
		A string `yaml:"a,omitempty"`
	}
	m, err := NewYAMLMemo(opt{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := m.Marshal(opt{})
	want, _ := encodeYAML(opt{})
	if err != nil || got != want {
		t.Errorf("got %q (%v), want %q", got, err, want)
	}
}

func TestYAMLMemoRefusesWhatItCannotSplit(t *testing.T) {
	type embedded struct{ A int }
	for name, sample := range map[string]any{
		"not a struct": 1,
		"embedded field": struct {
			embedded
			B int
		}{},
		"inline field": struct {
			M map[string]int `yaml:",inline"`
		}{},
	} {
		if _, err := NewYAMLMemo(sample); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	m, _ := NewYAMLMemo(memoSample{})
	if _, err := m.Marshal(struct{}{}); err == nil {
		t.Error("a value of another type: no error")
	}
}
