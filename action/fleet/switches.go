package fleet

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"
)

// EachSwitch visits every switch of f (those Only names, when set) with
// its driver, or the error finding none. What visit returns, when not nil,
// runs on a goroutine of its own with a target over the plan/apply
// session (host keys checked), and what that returns, the recording of
// the result, runs under a lock shared by all. EachSwitch returns once
// every switch is done.
func EachSwitch(f *fabric.Fabric, o Options, visit func(s fabric.SwitchIntent, d switchcfg.Driver, err error) func(*switchcfg.Target) func()) {
	specs := byName(f.Spec.Switches, func(s fabric.Switch) string { return s.Name })
	var (
		mu sync.Mutex
		wg sync.WaitGroup
	)
	for _, s := range f.Resolve().Switches {
		if len(o.Only) > 0 && !slices.Contains(o.Only, s.Name) {
			continue
		}
		d, err := o.Registry.Driver(s.Platform)
		mu.Lock()
		read := visit(s, d, err)
		mu.Unlock()
		if read == nil {
			continue
		}
		t := switchTarget(f, s, specs[s.Name], d, o).(*switchcfg.Target)
		wg.Add(1)
		go func() {
			defer wg.Done()
			record := read(t)
			mu.Lock()
			defer mu.Unlock()
			record()
		}()
	}
	wg.Wait()
}

// ReadBack runs cmds over one session to t and returns their outputs.
func ReadBack(ctx context.Context, t *switchcfg.Target, cmds []string) (switchcfg.Readback, error) {
	sess, err := t.Connect(ctx)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	rb := switchcfg.Readback{}
	for _, c := range cmds {
		out, err := sess.Send(ctx, c)
		if err != nil {
			return nil, fmt.Errorf("running %q: %w", c, err)
		}
		rb[c] = []byte(out)
	}
	return rb, nil
}
