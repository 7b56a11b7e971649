package fabric

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"reflect"
	"runtime"

	"github.com/fabricctl/fabricctl/internal/infile"
	"gopkg.in/yaml.v3"
)

// Options tune Load.
type Options struct {
	// Platforms validates switch platforms, port names and subnet-manager
	// facts. Nil checks none of them (a platform must still be named).
	Platforms Platforms
	// ReadFile reads a file (nil: the file system, refusing anything but
	// regular files and reading no more than the input budget allows);
	// tests inject fakes. What it returns counts against the budget too.
	ReadFile func(path string) ([]byte, error)

	// read reads at most limit bytes of a file (LoadBytes serves its
	// document from memory through it).
	read func(path string, limit int) ([]byte, error)
}

// reader returns how o reads files, bounded.
func (o Options) reader() func(string, int) ([]byte, error) {
	if o.read != nil {
		return o.read
	}
	if o.ReadFile != nil {
		return func(p string, limit int) ([]byte, error) {
			data, err := o.ReadFile(p)
			if err == nil && len(data) > limit {
				return nil, errOverBudget
			}
			return data, err
		}
	}
	return readRegular
}

// Load reads a fabric (or profile) file, its includes, and validates them all.
// A file holding only Profile documents yields a Fabric with no targets and
// those profiles. The error, when not nil, is Errors: every problem found,
// sorted by position. The warnings of a valid file are f.Warnings(); Check
// returns them for an invalid one too.
func Load(path string, opts ...Options) (*Fabric, error) {
	f, _, err := Check(path, opts...)
	return f, err
}

// Check loads and validates like Load, and returns the warnings found as
// well, whether the file is valid or not (those of parts that did not
// validate are left out: they would be guesses). A valid file's Fabric
// holds the same warnings (f.Warnings()).
func Check(path string, opts ...Options) (*Fabric, Warnings, error) {
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	l := &loader{opts: o, read: o.reader(), errs: &Errors{}, pos: newPositions(), refs: map[string]profileRef{},
		input: maxInput, estimated: maxNodes}
	f := l.loadRoot(path)
	if f != nil {
		f.platforms = o.Platforms
	}
	var ws Warnings
	// Validation runs on whatever decoded (partial.go), unless the error
	// cap is reached: then nothing more would be reported.
	if f != nil && !l.errs.full() {
		v := &validator{f: f, pos: l.pos, refs: l.refs, errs: l.errs, platforms: o.Platforms,
			labelKeys: matchMemo{}, ifnames: matchMemo{}, lossy: &l.lossy, lost: l.lost, warns: &ws}
		v.validate()
	}
	ws.sort()
	if len(*l.errs) > 0 {
		l.errs.sort()
		return nil, ws, *l.errs
	}
	f.warnings = ws
	return f, ws, nil
}

// LoadBytes loads a document held in memory, named name in messages; includes
// are resolved relative to name's directory.
func LoadBytes(name string, data []byte, opts ...Options) (*Fabric, error) {
	f, _, err := CheckBytes(name, data, opts...)
	return f, err
}

// CheckBytes is Check of a document held in memory (LoadBytes).
func CheckBytes(name string, data []byte, opts ...Options) (*Fabric, Warnings, error) {
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	read := o.reader()
	o.read = func(p string, limit int) ([]byte, error) {
		if p == name {
			if len(data) > limit {
				return nil, errOverBudget
			}
			return data, nil
		}
		return read(p, limit)
	}
	return Check(name, o)
}

type loader struct {
	opts Options
	read func(path string, limit int) ([]byte, error)
	errs *Errors
	// What is left of the budgets: input bytes, estimated YAML nodes, and
	// nodes and alias uses that decoding may visit.
	input, estimated int
	visits           visits
	pos              *positions
	// stack of files being included, for cycle detection.
	stack []string
	seen  map[string]Pos
	// refs locates each profile's positions for the validator.
	refs map[string]profileRef
	// lossy holds the paths whose values did not decode; lost says a
	// document or a profile did not load at all, so a reference to a
	// profile that is not there may be one that failed.
	lossy lossyPaths
	lost  bool
}

func (l *loader) fail(p Pos, path, format string, args ...any) {
	l.errs.add(newError(p, path, format, args...))
}

// readDocs reads and parses every document of file; from and fromPath locate
// the include that named it (empty for the root file), shown is the path as
// the user wrote it.
func (l *loader) readDocs(file string, from Pos, fromPath, shown string) ([]*yaml.Node, bool) {
	also := ""
	if shown != file {
		also = " (" + file + ")"
	}
	// Problems with an included file as a whole are located at its
	// include, and name it.
	failFile := func(format string, args ...any) {
		if fromPath == "" {
			l.fail(Pos{File: file}, "", format, args...)
			return
		}
		l.fail(from, fromPath, "reading %s%s: "+format, append([]any{shown, also}, args...)...)
	}
	data, err := l.read(file, l.input)
	if err != nil {
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if fromPath == "" {
				l.fail(Pos{File: file}, "", "file does not exist")
			} else {
				l.fail(from, fromPath, "included file %s does not exist%s", shown, also)
			}
		case errors.Is(err, infile.ErrIsDir):
			if fromPath == "" {
				l.fail(Pos{File: file}, "", "is a directory; give a fabric or profile file")
			} else {
				l.fail(from, fromPath, "included path %s is a directory%s; include files", shown, also)
			}
		case errors.Is(err, infile.ErrNotRegular):
			failFile("%v", err)
		case errors.Is(err, errOverBudget) && fromPath == "":
			failFile("file is larger than the %d MiB input limit", maxInput>>20)
		case errors.Is(err, errOverBudget):
			failFile("the fabric's files together exceed the %d MiB input limit", maxInput>>20)
		case errors.Is(err, fs.ErrPermission):
			failFile("cannot read file: permission denied")
		default:
			failFile("%v", err)
		}
		return nil, false
	}
	l.input -= len(data)
	if len(bytes.TrimSpace(data)) == 0 {
		failFile("file is empty")
		return nil, false
	}
	// Refuse a file of too many nodes before the parser builds them.
	est, line, col, over := estimateNodes(data, l.estimated)
	if over {
		l.fail(Pos{File: file, Line: line, Col: col}, "",
			"the fabric's documents hold more than %d YAML nodes; refusing to parse them", maxNodes)
		return nil, false
	}
	l.estimated -= est
	if doc, ok := parseSplit(data, runtime.GOMAXPROCS(0)); ok {
		return []*yaml.Node{doc}, true // a large fabric, parsed on every CPU
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var docs []*yaml.Node
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if err == io.EOF {
			break
		}
		if err != nil {
			e := yamlError(file, data, err)
			l.errs.add(e)
			// The documents before the broken one are whole: they are
			// decoded and validated; what follows it is lost.
			l.lost = true
			return docs, len(docs) > 0
		}
		if len(n.Content) == 0 {
			continue
		}
		docs = append(docs, &n)
		if len(docs) > maxDocs {
			at := Pos{File: file, Line: n.Content[0].Line, Col: n.Content[0].Column}
			l.fail(at, "", "more than %d documents in one file; refusing them", maxDocs)
			return nil, false
		}
	}
	if len(docs) == 0 {
		failFile("file holds no YAML document")
	}
	return docs, len(docs) > 0
}

type header struct {
	APIVersion string
	Kind       string
}

// docHeader reads apiVersion and kind; it reports problems with them.
func (l *loader) docHeader(d *decoder, root *yaml.Node) (header, bool) {
	n := root.Content[0]
	if n.Kind != yaml.MappingNode {
		d.errAt(n, "", "expected a document (a mapping with apiVersion, kind, metadata, spec), got %s", kindName(n))
		return header{}, false
	}
	var h header
	var kindNode, apiNode *yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		switch n.Content[i].Value {
		case "apiVersion":
			apiNode = n.Content[i+1]
			h.APIVersion = apiNode.Value
		case "kind":
			kindNode = n.Content[i+1]
			h.Kind = kindNode.Value
		}
	}
	ok := true
	switch {
	case apiNode == nil:
		d.errAt(n, "apiVersion", "required (apiVersion: %s)", APIVersion)
		ok = false
	case h.APIVersion != APIVersion:
		d.errAt(apiNode, "apiVersion", "%q is not supported; use %s", h.APIVersion, APIVersion)
		ok = false
	}
	switch {
	case kindNode == nil:
		d.errAt(n, "kind", "required (Fabric or Profile)")
		ok = false
	case h.Kind != KindFabric && h.Kind != KindProfile:
		d.errAt(kindNode, "kind", "%q is not a document kind; use Fabric or Profile%s", h.Kind, suggest(h.Kind, []string{KindFabric, KindProfile}))
		ok = false
	}
	return h, ok
}

func (l *loader) newDecoder(file string) *decoder {
	return &decoder{file: file, errs: l.errs, visits: &l.visits, lossy: &l.lossy}
}

func (l *loader) loadRoot(file string) *Fabric {
	l.seen = map[string]Pos{}
	abs, _ := filepath.Abs(file)
	l.stack = []string{abs}
	l.seen[abs] = Pos{File: file}
	docs, ok := l.readDocs(file, Pos{}, "", file)
	if !ok {
		return nil
	}
	f := &Fabric{Profiles: map[string]*Profile{}, Source: Pos{File: file}}
	var fabricSeen bool
	for i, doc := range docs {
		d := l.newDecoder(file)
		h, ok := l.docHeader(d, doc)
		if !ok {
			l.lost = true
			continue
		}
		switch h.Kind {
		case KindFabric:
			if fabricSeen {
				d.errAt(doc.Content[0], "kind", "a second Fabric document in one file; keep one fabric per file")
				continue
			}
			fabricSeen = true
			var fd Fabric
			l.pos.add("fabric", file, doc.Content[0])
			d.doc = "fabric"
			d.decode(doc.Content[0], reflect.ValueOf(&fd).Elem(), "", 0)
			fd.Profiles = f.Profiles
			fd.Source = Pos{File: file, Line: doc.Content[0].Line, Col: doc.Content[0].Column}
			if d.aborted {
				l.lost = true
				continue
			}
			l.includes(&fd, file)
			for j := range fd.Spec.Profiles {
				p := &fd.Spec.Profiles[j]
				p.Source = Pos{File: file}
				if pp, ok := l.pos.find("fabric", fmt.Sprintf("spec.profiles[%d]", j)); ok {
					p.Source = pp
				}
				l.addProfile(f, p, "fabric", fmt.Sprintf("spec.profiles[%d].", j))
			}
			*f = fd
		case KindProfile:
			l.decodeProfile(f, d, doc, file, i)
		}
	}
	return f
}

// decodeProfile decodes one Profile document and adds it to f.
func (l *loader) decodeProfile(f *Fabric, d *decoder, doc *yaml.Node, file string, i int) {
	var p Profile
	key := fmt.Sprintf("profile:%s#%d", file, i)
	l.pos.add(key, file, doc.Content[0])
	d.doc = key
	d.decode(doc.Content[0], reflect.ValueOf(&p).Elem(), "", 0)
	p.Source = Pos{File: file, Line: doc.Content[0].Line, Col: doc.Content[0].Column}
	if d.aborted {
		l.lost = true
		return
	}
	l.addProfile(f, &p, key, "")
}

func (l *loader) addProfile(f *Fabric, p *Profile, doc, prefix string) {
	name := p.Metadata.Name
	if name == "" {
		at, ok := l.pos.find(doc, prefix+"metadata")
		if !ok {
			at = p.Source
		}
		if !l.lossy.related(doc, prefix+"metadata.name") {
			l.fail(at, prefix+"metadata.name", "required: every profile needs a name")
		}
		l.lost = true
		return
	}
	if prev, dup := f.Profiles[name]; dup {
		at, _ := l.pos.find(doc, prefix+"metadata.name")
		l.fail(at, prefix+"metadata.name",
			"profile %q is defined twice (also at %s)", name, prev.Source)
		return
	}
	f.Profiles[name] = p
	l.refs[name] = profileRef{doc: doc, prefix: prefix}
}

func (l *loader) includes(fd *Fabric, file string) {
	dir := filepath.Dir(file)
	for i, inc := range fd.Spec.Include {
		path := fmt.Sprintf("spec.include[%d]", i)
		at, _ := l.pos.find("fabric", path)
		if inc == "" {
			l.fail(at, path, "empty include path")
			continue
		}
		target := inc
		if !filepath.IsAbs(target) {
			target = filepath.Join(dir, inc)
		}
		abs, _ := filepath.Abs(target)
		if prev, dup := l.seen[abs]; dup {
			if abs == l.stack[0] {
				l.fail(at, path, "include cycle: %s includes itself", inc)
			} else {
				l.fail(at, path, "%s is included twice (first at %s)", inc, prev)
			}
			continue
		}
		l.seen[abs] = at
		docs, ok := l.readDocs(target, at, path, inc)
		if !ok {
			l.lost = true
			continue
		}
		for j, doc := range docs {
			d := l.newDecoder(target)
			h, ok := l.docHeader(d, doc)
			if !ok {
				l.lost = true
				continue
			}
			if h.Kind != KindProfile {
				d.errAt(doc.Content[0], "kind", "included files hold Profile documents; this is a %s (include cycle or wrong file?)", h.Kind)
				l.lost = true
				continue
			}
			l.decodeProfile(fd, d, doc, target, j)
		}
	}
}

// FilesIn returns an Options.ReadFile that serves the named documents from
// memory (path → content) and says a path it does not hold does not exist:
// fabrics generated by programs and tests load without touching the disk.
func FilesIn(files map[string]string) func(path string) ([]byte, error) {
	return func(path string) ([]byte, error) {
		s, ok := files[path]
		if !ok {
			return nil, fmt.Errorf("%s: %w", path, fs.ErrNotExist)
		}
		return []byte(s), nil
	}
}
