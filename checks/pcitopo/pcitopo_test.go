package pcitopo

import (
	"errors"
	"testing"
)

// An HGX-like tree built by hand:
//
//	pci0000:15 (NUMA 0) ─ root port 15:01.0 ─ switch A up 16:00.0
//	    ├─ down 17:00.0 ─ GPU0 18:00.0
//	    ├─ down 17:01.0 ─ NIC0 19:00.0 (two functions: 19:00.0, 19:00.1)
//	    └─ down 17:02.0 ─ switch B up 1a:00.0 ─ down 1b:00.0 ─ GPU1 1c:00.0
//	                                            └─ down 1b:01.0 ─ NIC1 1d:00.0
//	pci0000:15           ─ root port 15:02.0 ─ NIC2 20:00.0
//	pci0000:37 (NUMA 0) ─ root port 37:01.0 ─ GPU2 38:00.0
//	pci0000:97 (NUMA 1) ─ root port 97:01.0 ─ NIC3 98:00.0
const root = "/sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0"

var (
	gpu0  = Device{"GPU0", root + "/0000:17:00.0/0000:18:00.0", 0}
	nic0  = Device{"NIC0", root + "/0000:17:01.0/0000:19:00.0", 0}
	nic0b = Device{"NIC0b", root + "/0000:17:01.0/0000:19:00.1", 0}
	gpu1  = Device{"GPU1", root + "/0000:17:02.0/0000:1a:00.0/0000:1b:00.0/0000:1c:00.0", 0}
	nic1  = Device{"NIC1", root + "/0000:17:02.0/0000:1a:00.0/0000:1b:01.0/0000:1d:00.0/infiniband/mlx5_1", 0}
	nic2  = Device{"NIC2", "../../../devices/pci0000:15/0000:15:02.0/0000:20:00.0", 0}
	gpu2  = Device{"GPU2", "/sys/devices/pci0000:37/0000:37:01.0/0000:38:00.0", 0}
	nic3  = Device{"NIC3", "/sys/devices/pci0000:97/0000:97:01.0/0000:98:00.0", 1}
	all   = []Device{gpu0, nic0, nic0b, gpu1, nic1, nic2, gpu2, nic3}
)

func TestClassify(t *testing.T) {
	cases := []struct {
		a, b Device
		want Path
	}{
		{gpu0, gpu0, Self},
		{gpu0, nic0, PIX},  // one switch, two downstream ports
		{nic0, nic0b, PIX}, // two functions of one NIC
		{gpu1, nic1, PIX},  // the same second-level switch
		{gpu0, gpu1, PXB},  // switch A, then switch B
		{gpu0, nic1, PXB},  // ditto
		{nic0, nic1, PXB},  // ditto
		{gpu0, nic2, PHB},  // other root port of the same host bridge
		{gpu1, nic2, PHB},  // ditto, from deeper down
		{gpu0, gpu2, NODE}, // other host bridge, same NUMA node
		{gpu0, nic3, SYS},  // other NUMA node
		{gpu2, nic3, SYS},
	}
	for _, c := range cases {
		got, err := Classify(c.a, c.b)
		if err != nil || got != c.want {
			t.Errorf("Classify(%s, %s) = %s, %v; want %s", c.a.Name, c.b.Name, got, err, c.want)
		}
	}
}

func TestClassifySymmetric(t *testing.T) {
	for _, a := range all {
		for _, b := range all {
			ab, err1 := Classify(a, b)
			ba, err2 := Classify(b, a)
			if err1 != nil || err2 != nil || ab != ba {
				t.Errorf("%s↔%s: %s/%v vs %s/%v", a.Name, b.Name, ab, err1, ba, err2)
			}
			if (ab == Self) != (a == b) {
				t.Errorf("%s↔%s: %s", a.Name, b.Name, ab)
			}
		}
	}
}

func TestUnknownNUMA(t *testing.T) {
	a := Device{"a", "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0", -1}
	b := Device{"b", "/sys/devices/pci0000:40/0000:40:01.0/0000:41:00.0", -1}
	c := Device{"c", "/sys/devices/pci0000:80/0000:80:01.0/0000:81:00.0", 1}
	if p, _ := Classify(a, b); p != NODE {
		t.Errorf("both NUMA unknown: %s, want NODE (single-socket hosts report -1)", p)
	}
	if p, _ := Classify(a, c); p != SYS {
		t.Errorf("one NUMA unknown: %s, want SYS", p)
	}
}

func TestClassifyRejects(t *testing.T) {
	rxe := Device{"rxe0", "/sys/devices/virtual/net/eth0", -1}
	bare := Device{"x", "/sys/devices/pci0000:00", 0}
	for _, d := range []Device{rxe, bare, {Name: "empty"}} {
		if _, err := Classify(gpu0, d); !errors.Is(err, ErrNotPCI) {
			t.Errorf("Classify(gpu0, %s) = %v, want ErrNotPCI", d.Name, err)
		}
		if _, _, err := Closest(gpu0, []Device{nic0, d}); !errors.Is(err, ErrNotPCI) {
			t.Errorf("Closest with %s = %v, want ErrNotPCI", d.Name, err)
		}
	}
}

func TestClosest(t *testing.T) {
	got, p, err := Closest(gpu1, []Device{nic0, nic2, nic1, nic3})
	if err != nil || p != PIX || len(got) != 1 || got[0].Name != "NIC1" {
		t.Errorf("Closest(gpu1) = %v %s %v", got, p, err)
	}
	got, p, _ = Closest(gpu2, []Device{nic0, nic2, nic3})
	if p != NODE || len(got) != 2 {
		t.Errorf("Closest(gpu2) = %v %s, want the two NODE NICs", got, p)
	}
	if got, p, err := Closest(gpu0, nil); got != nil || p != "" || err != nil {
		t.Errorf("Closest with no candidates = %v %q %v", got, p, err)
	}
}

func TestParsePathAndNVLinks(t *testing.T) {
	for _, s := range []string{"PIX", " PXB", "PHB", "NODE", "SYS", "X"} {
		if _, err := ParsePath(s); err != nil {
			t.Errorf("ParsePath(%q): %v", s, err)
		}
	}
	for _, s := range []string{"NV18", "", "pix", "PCI"} {
		if _, err := ParsePath(s); !errors.Is(err, ErrNotPath) {
			t.Errorf("ParsePath(%q) = %v", s, err)
		}
	}
	if n, ok := NVLinks("NV18"); !ok || n != 18 {
		t.Errorf("NVLinks(NV18) = %d %v", n, ok)
	}
	for _, s := range []string{"NV", "NV0", "NVx", "PIX"} {
		if _, ok := NVLinks(s); ok {
			t.Errorf("NVLinks(%q) ok", s)
		}
	}
	if !PIX.Closer(PXB) || !NODE.Closer(SYS) || SYS.Closer(PHB) {
		t.Error("Closer order")
	}
}
