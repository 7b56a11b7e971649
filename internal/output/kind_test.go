package output

import (
	"bytes"
	"strings"
	"testing"
)

type kindedDoc struct {
	APIVersion string `json:"apiVersion"`
	Name       string `json:"name"`
}

func (kindedDoc) DocumentKind() string { return "Thing" }

type noVersion struct {
	Name string `json:"name"`
}

func (*noVersion) DocumentKind() string { return "Bare" }

func TestWriteAddsKind(t *testing.T) {
	for _, c := range []struct {
		name   string
		v      any
		format string
		want   string
	}{
		{"json", kindedDoc{"v1", "<a>"}, JSON, "{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"Thing\",\n  \"name\": \"\\u003ca\\u003e\"\n}\n"},
		{"pointer", &kindedDoc{"v1", "a"}, JSON, "{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"Thing\",\n  \"name\": \"a\"\n}\n"},
		{"yaml", kindedDoc{"v1", "a"}, YAML, "apiVersion: v1\nkind: Thing\nname: a\n"},
		{"first without apiVersion", &noVersion{"a"}, JSON, "{\n  \"kind\": \"Bare\",\n  \"name\": \"a\"\n}\n"},
		{"nil pointer", (*noVersion)(nil), JSON, "null\n"},
		{"not kinded", noVersion{"a"}, JSON, "{\n  \"name\": \"a\"\n}\n"},
	} {
		var b bytes.Buffer
		if err := Write(&b, c.format, c.v, nil); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if b.String() != c.want {
			t.Errorf("%s: got\n%s\nwant\n%s", c.name, b.String(), c.want)
		}
	}
}

func TestInsertKind(t *testing.T) {
	got, err := InsertKind([]byte(`{"apiVersion":"v1","kind":"Mine","a":1}`), "Other")
	if err != nil || string(got) != `{"apiVersion":"v1","kind":"Mine","a":1}` {
		t.Errorf("a document with its own kind: %s, %v", got, err)
	}
	got, err = InsertKind([]byte(`{"a":{"apiVersion":"x"},"apiVersion":"v1"}`), "K")
	if err != nil || string(got) != `{"a":{"apiVersion":"x"},"apiVersion":"v1","kind":"K"}` {
		t.Errorf("apiVersion last: %s, %v", got, err)
	}
	if _, err := InsertKind([]byte(`[1]`), "K"); err == nil || !strings.Contains(err.Error(), "not a JSON object") {
		t.Errorf("an array: %v", err)
	}
}
