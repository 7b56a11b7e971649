package check

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/fabricctl/fabricctl/action/ibcheck"
	"github.com/fabricctl/fabricctl/agent"
	"github.com/fabricctl/fabricctl/agent/agentclient"
	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/preflight"
	"github.com/fabricctl/fabricctl/checks/report"
	"github.com/fabricctl/fabricctl/fabric"
)

// order records what ran, in order.
type order struct {
	mu  sync.Mutex
	log []string
}

func (o *order) add(s string) { o.mu.Lock(); o.log = append(o.log, s); o.mu.Unlock() }

func (o *order) RunDiag(_ context.Context, argv []string) (ibcheck.Output, error) {
	o.add(strings.Join(argv, " "))
	return ibcheck.Output{}, errors.New("no subnet here")
}

// TestIBSuiteBesideOthers: beside another suite the ib suite reads the
// error counters first (before the preflight op) and runs after it; a
// vantage that is not among the hosts is one ib/vantage error.
func TestIBSuiteBesideOthers(t *testing.T) {
	f, err := fabric.Load("../../checks/ibfabric/testdata/demo.yaml", fabric.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rec := &order{}
	h := &agent.Handler{}
	h.Register(preflight.Op, func(context.Context, json.RawMessage) (any, error) {
		rec.add("preflight")
		return nil, errors.New("no host here")
	})
	h.Register("cleanup", func(context.Context, json.RawMessage) (any, error) { return nil, nil })
	hosts := []Host{{Intent: fabric.HostIntent{Host: "ib-h1"}, Agent: agentclient.Local{Handler: h}}}
	o := Options{Suites: []report.Suite{report.SuitePreflight, report.SuiteIB}}
	o.IBSuite.Fabric, o.IBSuite.Options.Runner = f, rec
	rep, err := Run(context.Background(), "demo", hosts, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.log) < 3 || rec.log[0] != "ibqueryerrors --skip-sl" || rec.log[1] != "preflight" || !slices.Contains(rec.log[2:], "ibqueryerrors --skip-sl") {
		t.Errorf("order %v: want the counters, preflight, then the ib suite", rec.log)
	}
	var ib int
	for _, r := range rep.Results {
		if report.SuiteOf(r.ID) == report.SuiteIB {
			ib++
		}
	}
	if ib == 0 {
		t.Errorf("no ib results: %+v", rep.Results)
	}

	o = Options{Suites: []report.Suite{report.SuiteIB}}
	o.IBSuite.Fabric, o.IBSuite.Vantage = f, "ib-h9"
	rep, err = Run(context.Background(), "demo", hosts, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 1 || rep.Results[0].ID != IDIBVantage || rep.Results[0].Status != checks.StatusError ||
		!strings.Contains(rep.Results[0].Summary, "vantage ib-h9 is not among the hosts checked") {
		t.Errorf("unknown vantage: %+v", rep.Results)
	}
}
