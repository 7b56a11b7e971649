package lab

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"
)

// Recabling: in a two-leaf lab a host's cable is its tap, a port of its
// leaf's bridge named like the port. Recable moves it to another port of
// either leaf while the VM runs — the tap leaves one namespace and bridge
// for the other under the new port name — so LLDP on both ends (the VM's
// lldpd and the leaf's) sees the host where the fabric file does not declare
// it: a miscabling for `fabricctl check` to report. The VM notices nothing
// but the new neighbour; SSH keeps working across the inter-leaf link.

// ErrRecable: the recabling asked for cannot be done in this lab.
var ErrRecable = errors.New("cannot recable")

// ParseLeafPort reads LEAF:PORT.
func ParseLeafPort(s string) (leaf, port string, err error) {
	leaf, port, ok := strings.Cut(s, ":")
	if !ok || leaf == "" || port == "" {
		return "", "", fmt.Errorf("%q: want LEAF:PORT, e.g. leaf-02:swp3: %w", s, ErrRecable)
	}
	return leaf, port, nil
}

// planRecable checks that host can move to leaf:port and returns the VM's
// index and the target leaf. No I/O: the port must be a host port name
// (not the trunk, the controller's port or br0) that no other VM uses.
func (s *State) planRecable(host, leaf, port string) (int, LeafSwitch, error) {
	vi := -1
	for i, v := range s.VMs {
		if v.Name == host {
			vi = i
		}
	}
	if vi < 0 {
		return 0, LeafSwitch{}, fmt.Errorf("no lab host %q: %w", host, ErrRecable)
	}
	v := s.VMs[vi]
	if v.Leaf == "" || len(s.Leaves) == 0 {
		return 0, LeafSwitch{}, fmt.Errorf("%s: this lab has one bridge, no leaves (lab up -f profiles/lab/two-leaf.yaml): %w", host, ErrRecable)
	}
	to, err := s.Leaf(leaf)
	if err != nil {
		return 0, LeafSwitch{}, fmt.Errorf("%s: %w: %w", host, err, ErrRecable)
	}
	reserved := port == TrunkPort || port == "br0" || (leaf == s.Leaves[0].Name && port == ControllerPort)
	if !portNameRE.MatchString(port) || reserved {
		return 0, LeafSwitch{}, fmt.Errorf("%s: port %q of %s: want a free interface name of up to 15 letters and digits (not %s, %s, br0): %w",
			host, port, leaf, TrunkPort, ControllerPort, ErrRecable)
	}
	for _, o := range s.VMs {
		if o.Leaf == leaf && o.Tap == port {
			if o.Name == host {
				return 0, LeafSwitch{}, fmt.Errorf("%s is already on %s:%s: %w", host, leaf, port, ErrRecable)
			}
			return 0, LeafSwitch{}, fmt.Errorf("%s: %s:%s is %s's port: %w", host, leaf, port, o.Name, ErrRecable)
		}
	}
	return vi, to, nil
}

// Recable moves host's cable (its tap) to port of leaf and records it in
// the state; it returns where the cable was, as LEAF:PORT. Faults in place
// are refused (their netem sits on the tap being moved: lab fault clear
// first). A move that fails half-way is undone.
func (s *State) Recable(ctx context.Context, host, leaf, port string) (string, error) {
	vi, to, err := s.planRecable(host, leaf, port)
	if err != nil {
		return "", err
	}
	faults, err := s.Faults()
	if err != nil {
		return "", fmt.Errorf("recabling %s: %w", host, err)
	}
	if len(faults) > 0 {
		return "", fmt.Errorf("recabling %s: %d fault(s) in place (lab fault clear first): %w", host, len(faults), ErrRecable)
	}
	v := s.VMs[vi]
	from := v.Leaf + ":" + v.Tap
	if tapIn(ctx, to.Netns, port) {
		return "", fmt.Errorf("recabling %s: %s already has an interface %s: %w", host, leaf, port, ErrRecable)
	}
	tmp := "recable" + strconv.Itoa(vi) // a name free in both namespaces while the tap moves
	if err := moveTap(ctx, v.Netns, v.Tap, tmp, to.Netns, port); err != nil {
		if uerr := undoMove(context.WithoutCancel(ctx), v.Netns, v.Tap, tmp, to.Netns, port); uerr != nil {
			err = errors.Join(err, fmt.Errorf("undoing: %w", uerr))
		}
		return "", fmt.Errorf("recabling %s from %s to %s:%s: %w", host, from, leaf, port, err)
	}
	s.VMs[vi].Netns, s.VMs[vi].Tap, s.VMs[vi].Leaf = to.Netns, port, to.Name
	if err := s.Save(); err != nil {
		return from, fmt.Errorf("recabling %s: %w", host, err)
	}
	return from, nil
}

// tapIn reports whether namespace ns has an interface called name.
func tapIn(ctx context.Context, ns, name string) bool {
	return exec.CommandContext(ctx, "ip", "-n", ns, "link", "show", "dev", name).Run() == nil
}

// moveTap takes a tap off its bridge in namespace fromNs, renames it tmp
// (free in both namespaces: the target name may be another port's in the
// source, and the source name another port's in the target), moves it to
// toNs, names it toName there and makes it a port of that bridge.
func moveTap(ctx context.Context, fromNs, fromName, tmp, toNs, toName string) error {
	steps := [][]string{
		{"-n", fromNs, "link", "set", "dev", fromName, "nomaster"},
		{"-n", fromNs, "link", "set", "dev", fromName, "down"},
		{"-n", fromNs, "link", "set", "dev", fromName, "name", tmp},
		{"-n", fromNs, "link", "set", "dev", tmp, "netns", toNs},
		{"-n", toNs, "link", "set", "dev", tmp, "name", toName},
		{"-n", toNs, "link", "set", "dev", toName, "mtu", strconv.Itoa(BridgeMTU)},
		{"-n", toNs, "link", "set", "dev", toName, "master", "br0"},
		{"-n", toNs, "link", "set", "dev", toName, "up"},
	}
	if fromNs == toNs {
		steps = slices.Delete(steps, 3, 4)
	}
	for _, st := range steps {
		if err := command(ctx, "ip", st...); err != nil {
			return err
		}
	}
	return nil
}

// undoMove puts a tap that moveTap left half-way back where it was, on its
// bridge and up, wherever the move stopped.
func undoMove(ctx context.Context, fromNs, fromName, tmp, toNs, toName string) error {
	switch {
	case tapIn(ctx, toNs, toName) && !(toNs == fromNs && toName == fromName):
		return moveTap(ctx, toNs, toName, tmp, fromNs, fromName)
	case tapIn(ctx, toNs, tmp):
		return moveTap(ctx, toNs, tmp, tmp+"b", fromNs, fromName)
	case tapIn(ctx, fromNs, tmp):
		return moveTap(ctx, fromNs, tmp, tmp+"b", fromNs, fromName)
	}
	for _, st := range [][]string{
		{"-n", fromNs, "link", "set", "dev", fromName, "master", "br0"},
		{"-n", fromNs, "link", "set", "dev", fromName, "up"},
	} {
		if err := command(ctx, "ip", st...); err != nil {
			return err
		}
	}
	return nil
}
