package vendorcheck

import (
	"strings"
	"testing"
)

// The readers of vendorcheck take our renders, libyang's output and
// captured configurations: whatever they are given, they return an error
// or a reading, never panic, and a reading accounts for its input.

func FuzzParseYANG(f *testing.F) {
	f.Add(`module m { namespace "urn:m"; container m { list L { key "a b"; leaf a { type string; } leaf b { type "uint" + "8"; } } } }`)
	f.Add(`module m { /* c */ leaf x { type string; } // d` + "\n}")
	f.Add(`module m { leaf x { type string { pattern '[a-z]{1}'; } } }`)
	f.Add(`}`)
	f.Fuzz(func(t *testing.T, text string) {
		root, err := parseYANG(text)
		if err != nil {
			return
		}
		if root == nil || root.kw == "" {
			t.Fatalf("no error and no statement for %q", text)
		}
		for _, s := range root.subs {
			if contains(dataKinds, s.kw) {
				_, _ = node(s, "urn:x")
			}
		}
	})
}

func FuzzJunosStatements(f *testing.F) {
	f.Add("set class-of-service drop-profiles dp interpolate fill-level [ 1 2 ]\ndelete interfaces et-0/0/0 mtu\n")
	f.Add("class-of-service {\n  /* x */\n  inactive: schedulers { s { priority strict-high; } }\n}\n")
	f.Add("set a \"b c\" [ d\n")
	f.Add("}")
	f.Fuzz(func(t *testing.T, text string) {
		st, err := junosStatements(text)
		if err != nil {
			return
		}
		for _, s := range st {
			if s.line < 1 || s.line > strings.Count(text, "\n")+1 {
				t.Fatalf("statement %q at line %d of a %d-line text", s, s.line, strings.Count(text, "\n")+1)
			}
			_ = s.String()
		}
	})
}

func FuzzParseNVUE(f *testing.F) {
	f.Add("nv set interface swp1-4,swp49 qos pfc-watchdog state enable\nnv unset qos pfc default-global\n")
	f.Add("nv set qos mapping default-global dscp 0-25,27-47 switch-priority 0\n")
	f.Add("nv set interface swp9-1 link mtu 9216\n")
	f.Fuzz(func(t *testing.T, text string) {
		cmds, err := ParseNVUE(text)
		if err != nil {
			return
		}
		for _, c := range cmds {
			for _, w := range c.Words {
				_, _ = ExpandNVUEList(w)
			}
		}
	})
}

func FuzzDecodeSONiCConfigDB(f *testing.F) {
	f.Add(`{"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3,4"}}, "QUEUE": {"Ethernet0|3": {"scheduler": "s"}}}`)
	f.Add(`{"PORT": {"Ethernet0": {"lanes": 1}}}`)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, text string) {
		db, err := DecodeSONiCConfigDB([]byte(text))
		if err != nil {
			return
		}
		for table, entries := range db {
			if entries == nil {
				t.Fatalf("table %q decoded as nil", table)
			}
		}
	})
}

func FuzzCompareEOS(f *testing.F) {
	f.Add("qos map dscp 26 to traffic-class 3\ninterface Ethernet1\n   mtu 9214\n   uc-tx-queue 3\n      bandwidth percent 50\n", "interface Ethernet1\n   mtu 9214\n")
	f.Add("!\ninterface Ethernet1\n  no priority-flow-control on\n", "")
	f.Fuzz(func(t *testing.T, ours, avd string) {
		d := CompareEOS(ours, ours, AVDInterfaces)
		if len(d.Failures()) != 0 {
			t.Fatalf("a render differs from itself: %v", d.Failures())
		}
		_ = CompareEOS(ours, avd, AVDProfile).Failures()
	})
}
