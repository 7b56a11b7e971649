package main

import (
	"context"
	"fmt"

	"github.com/fabricctl/fabricctl/lab/iblab"
)

const defaultIBLabDir = "/run/fabricctl-iblab"

// labUpIB starts the InfiniBand lab: the fabric file's InfiniBand hosts and
// subnet managers (iblab.FromFabric), or the demo topology without -f.
func labUpIB(ctx context.Context, g *globals, f *labFlags, fabricFile string) error {
	topo := iblab.Demo()
	if fabricFile != "" {
		fab, err := g.loadFabric(ctx, fabricFile)
		if err != nil {
			return err
		}
		if topo, _, err = iblab.FromFabric(fab); err != nil {
			return err
		}
	}
	l, err := iblab.Up(ctx, iblab.Options{Dir: f.ibDir, Topology: topo}, g.stderr)
	if err != nil {
		return err
	}
	if err := labStatusIB(g, f); err != nil {
		return err
	}
	if fabricFile != "" {
		fmt.Fprintf(g.stderr, "next: fabricctl apply -f %s --target %s --ib-lab %s --yes\n", fabricFile, l.SMNode, l.Dir)
	}
	return nil
}

func labDownIB(ctx context.Context, f *labFlags) error {
	l, err := iblab.Load(f.ibDir)
	if err != nil {
		return err
	}
	return l.Down(ctx)
}

func labStatusIB(g *globals, f *labFlags) error {
	l, err := iblab.Load(f.ibDir)
	if err != nil {
		return err
	}
	st := map[string]any{"dir": l.Dir, "socket": l.Sock, "subnetManager": l.SMNode, "running": l.Running(),
		"partitionsFile": l.PartitionsFile(), "logFile": l.LogFile()}
	if g.output == "json" {
		if err := writeJSON(g.stdout, st); err != nil {
			return err
		}
	} else {
		for _, k := range []string{"dir", "subnetManager", "running", "partitionsFile", "logFile", "socket"} {
			fmt.Fprintf(g.stdout, "%-15s %v\n", k, st[k])
		}
	}
	if !l.Running() {
		return exitCodeError{exitError}
	}
	return nil
}

// runningIBLab loads the InfiniBand lab in dir for --ib-lab.
func runningIBLab(dir string) (*iblab.Lab, error) {
	l, err := iblab.Load(dir)
	if err != nil {
		return nil, err
	}
	if !l.Running() {
		return nil, fmt.Errorf("--ib-lab %s: the lab is not running (fabricctl lab up --ib)", dir)
	}
	return l, nil
}
