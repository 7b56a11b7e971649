package ibdiag

import (
	"errors"
	"testing"
)

// A capture quoted in a mail reply ("> " before every line) reads as the
// capture itself; a line of only the marker is a blank line.
func TestQuotedCapture(t *testing.T) {
	text := "> Errors for \"h1 mlx5_0\"\n>    GUID 0x10 port 1: [SymbolErrorCounter == 65535]\n>\n> ## Summary: 1 nodes checked, 1 bad nodes found\n"
	qe, err := ParseIBQueryErrors(text)
	if err != nil {
		t.Fatal(err)
	}
	if len(qe.Ports) != 1 || qe.Ports[0].Node != "h1 mlx5_0" || !qe.Ports[0].Counters["SymbolErrorCounter"].Saturated || *qe.Summary.BadNodes != 1 ||
		len(qe.Unparsed) != 0 || qe.Lines() != 3 || nonBlank(text) != 3 {
		t.Errorf("%+v", qe)
	}
	// one unquoted line: nothing is taken for a quote marker
	if _, err := ParseIBQueryErrors("> Errors for \"h1 mlx5_0\"\nErrors for \"h2 mlx5_0\"\n"); err != nil {
		t.Fatal(err)
	}
	qe, _ = ParseIBQueryErrors("> Errors for \"h1 mlx5_0\"\nErrors for \"h2 mlx5_0\"\n")
	if len(qe.Unparsed) != 1 || qe.Unparsed[0].Line != 1 {
		t.Errorf("unparsed %v", qe.Unparsed)
	}
}

// Port lines under no "CA:"/"Switch:" header (iblinkinfo | grep Up) belong
// to nodes not printed: they are returned, not given to a made-up CA.
func TestIBLinkInfoHeaderless(t *testing.T) {
	const up = "           2   17[  ] ==( 4X      25.78125 Gbps Active/  LinkUp)==>       4    1[  ] \"h2 HCA-1\" ( )\n"
	const ca = "      0x0000000000000011      1    1[  ] ==( 4X      25.78125 Gbps Active/  LinkUp)==>       2   18[  ] \"sw1\" ( )\n"
	li, err := ParseIBLinkInfo(up + ca)
	if li != nil || !errors.Is(err, ErrNoData) {
		t.Errorf("%+v %v", li, err)
	}
	// before the first header: Unparsed; after it: read
	li, err = ParseIBLinkInfo(ca + "CA: h1 HCA-1:\n" + ca)
	if err != nil {
		t.Fatal(err)
	}
	if len(li.Nodes) != 1 || li.Nodes[0].Name != "h1 HCA-1" || len(li.Nodes[0].Ports) != 1 || li.Nodes[0].Ports[0].Line != 3 ||
		len(li.Unparsed) != 1 || li.Unparsed[0].Line != 1 {
		t.Errorf("%+v", li)
	}
}

// The LIDs of an LMC range above the base are printed by ibroute.c as
// "(path #2 out of 4: portguid 0x…)", with no type or description.
func TestIBRouteLMCPaths(t *testing.T) {
	text := "Unicast lids [0x0-0x8] of switch Lid 1 guid 0x0000000000000001 (sw1):\n" +
		"  Lid  Out   Destination\n       Port     Info \n" +
		"0x0004 001 : (Channel Adapter portguid 0x0000000000000011: 'h1 HCA-1')\n" +
		"0x0005 002 : (path #2 out of 4: portguid 0x0000000000000011)\n" +
		"0x0006 003 : (path #3 out of 4)\n" +
		"0x0007 000 : (path #4 - illegal port)\n" +
		"0x0008 004 : (unknown node and type)\n" +
		"0x0009 004 : (path #2 out of 4: portguid 0x0000000000000011: 'h1 HCA-1')\n" +
		"5 valid lids dumped\n"
	r, err := ParseIBRoute(text)
	if err != nil {
		t.Fatal(err)
	}
	want := []Route{
		{LID: 4, OutPort: 1, DestType: CA, DestGUID: 0x11, DestDesc: "h1 HCA-1", Line: 4},
		{LID: 5, OutPort: 2, DestGUID: 0x11, Path: "2 out of 4", Line: 5},
		{LID: 6, OutPort: 3, Path: "3 out of 4", Line: 6},
		{LID: 7, OutPort: 0, Note: "path #4 - illegal port", Line: 7},
		{LID: 8, OutPort: 4, Note: "unknown node and type", Line: 8},
	}
	tb := r.Tables[0]
	if len(tb.Entries) != len(want) {
		t.Fatalf("%+v", tb.Entries)
	}
	for i, e := range tb.Entries {
		if e != want[i] {
			t.Errorf("entry %d: %+v, want %+v", i, e, want[i])
		}
	}
	// a description after a path's GUID is not a form ibroute prints
	if len(r.Unparsed) != 1 || r.Unparsed[0].Line != 9 {
		t.Errorf("unparsed %v", r.Unparsed)
	}
}
