package image

import (
	"bufio"
	"fmt"
	"io"
	"path"
	"strings"
)

// ModuleDeps is modules.dep parsed: module path (relative to /lib/modules/KVER) → the paths it
// depends on, as depmod wrote them.
type ModuleDeps map[string][]string

// ParseModulesDep reads a modules.dep file ("kernel/a.ko: kernel/b.ko kernel/c.ko").
func ParseModulesDep(r io.Reader) (ModuleDeps, error) {
	deps := ModuleDeps{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		mod, rest, ok := strings.Cut(line, ":")
		if !ok || mod == "" {
			return nil, fmt.Errorf("parsing modules.dep line %d: %q: missing ':'", n, line)
		}
		deps[mod] = strings.Fields(rest)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading modules.dep: %w", err)
	}
	return deps, nil
}

// ModuleName is a module path's canonical name: basename without .ko(.xz|.zst), '-' as '_'.
func ModuleName(p string) string {
	b := path.Base(p)
	for _, ext := range []string{".ko.xz", ".ko.zst", ".ko.gz", ".ko"} {
		if s, ok := strings.CutSuffix(b, ext); ok {
			b = s
			break
		}
	}
	return strings.ReplaceAll(b, "-", "_")
}

// LoadOrder returns the module paths to insmod, dependencies first, for the wanted module names
// ("rdma_rxe", "crc32-generic" and "crc32_generic" are the same). Each path appears once; the
// order of wanted is kept where dependencies allow. An unknown name is an error.
func (d ModuleDeps) LoadOrder(wanted []string) ([]string, error) {
	byName := make(map[string]string, len(d))
	for p := range d {
		byName[ModuleName(p)] = p
	}
	var order []string
	state := map[string]int{} // 1 visiting, 2 done
	var visit func(p string, chain []string) error
	visit = func(p string, chain []string) error {
		switch state[p] {
		case 2:
			return nil
		case 1:
			return fmt.Errorf("resolving module order: dependency cycle %s", strings.Join(append(chain, p), " -> "))
		}
		state[p] = 1
		deps, ok := d[p]
		if !ok {
			return fmt.Errorf("resolving module order: %s (needed by %s) not in modules.dep", p, strings.Join(chain, " -> "))
		}
		// modules.dep lists the deepest dependencies last; visiting in reverse gives a stable,
		// natural order (e.g. ib_core before ib_uverbs before rdma_rxe)
		for i := len(deps) - 1; i >= 0; i-- {
			if err := visit(deps[i], append(chain, p)); err != nil {
				return err
			}
		}
		state[p] = 2
		order = append(order, p)
		return nil
	}
	for _, w := range wanted {
		p, ok := byName[strings.ReplaceAll(w, "-", "_")]
		if !ok {
			return nil, fmt.Errorf("resolving module order: module %s not in this kernel package", w)
		}
		if err := visit(p, nil); err != nil {
			return nil, err
		}
	}
	return order, nil
}
