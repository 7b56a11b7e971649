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
