package fabric

import "testing"

// TestInferPortIDType: the subtype a summary table leaves out, from the ID
// alone: MACs in the three usual spellings, an ifIndex, a port name.
func TestInferPortIDType(t *testing.T) {
	for id, want := range map[string]string{
		"00:00:00:00:00:01": "mac", "52-54-00-63-00-0C": "mac", "5254.0063.000c": "mac",
		"512": "local", "Ethernet1/1": "ifname", "swp49": "ifname", "et-0/0/1:3": "ifname",
		"": "", "deadbeefcafe": "ifname", "aa:bb:cc:dd:ee": "ifname", "fortyGigE0/12": "ifname",
	} {
		if got := InferPortIDType(id); got != want {
			t.Errorf("InferPortIDType(%q) = %q, want %q", id, got, want)
		}
	}
}

// TestLLDPSubtype: the subtype words Junos and NX-OS print become lldpd's
// names; unknown words and NX-OS's bare numbers fall back to the ID.
func TestLLDPSubtype(t *testing.T) {
	for _, tc := range []struct{ name, id, want string }{
		{"Mac address", "00:1c:73:8f:0a:ed", "mac"}, {"Mac Address", "5087.89a1.d8d6", "mac"},
		{"Interface name", "xe-0/0/0", "ifname"}, {"Interface Name", "Ethernet1/5", "ifname"},
		{"Locally assigned", "516", "local"}, {"Locally Assigned", "spine01", "local"},
		{"Interface alias", "uplink", "ifalias"}, {"Network address", "10.0.0.1", "ip"},
		{"5", "Ethernet1/3", "ifname"}, {"", "521", "local"}, {"4149165831", "Eth2/1", "ifname"}, {"", "", ""},
	} {
		if got := LLDPSubtype(tc.name, tc.id); got != tc.want {
			t.Errorf("LLDPSubtype(%q, %q) = %q, want %q", tc.name, tc.id, got, tc.want)
		}
	}
}
