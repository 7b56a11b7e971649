package hostparse

import "testing"

// TestIBDev2NetdevIPoIB: IPoIB netdevs are told by the names the IPoIB
// driver and udev give them (ib0, its P_Key child ib0.8001, ibs1, ibp26s0,
// VFs ibp75s0v7); a pod's net1 or an ens/enp/bond netdev is not one.
func TestIBDev2NetdevIPoIB(t *testing.T) {
	m, err := ParseIBDev2Netdev(open(t, "ibdev2netdev/plain_ipoib_and_pod_netdev_down.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"ibs1": true, "ib0.8001": true, "net1": false, "ens2f0np0": false}
	if len(m) != len(want) {
		t.Fatalf("%+v", m)
	}
	for _, e := range m {
		if e.IPoIB() != want[e.Netdev] {
			t.Errorf("%s: IPoIB %v", e.Netdev, e.IPoIB())
		}
	}
	for name, ipoib := range map[string]bool{"ib0": true, "ibp26s0": true, "ibp75s0v7": true, "ibP57247p0s2": true, "bond0": false, "eth0": false, "enp27s0f1np1": false, "ibmveth0": false} {
		if got := (NetdevMap{Netdev: name}).IPoIB(); got != ipoib {
			t.Errorf("%s: IPoIB %v, want %v", name, got, ipoib)
		}
	}
}
