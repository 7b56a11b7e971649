package fabricgen

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"

	"github.com/fabricctl/fabricctl/switchcfg/all"
)

// Write writes fabric.yaml, roce.yaml and ib.yaml into dir.
func Write(dir string, hosts, switches, parts int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	files := map[string]func(w *bufio.Writer){
		"roce.yaml": func(w *bufio.Writer) {
			fmt.Fprint(w, `apiVersion: fabricctl.io/v1alpha1
kind: Profile
metadata: {name: roce}
spec:
  ethernet:
    mtu: 9000
    switchMtu: 9214   # the lowest maximum of the platforms (EOS)
    classes:
      - {name: roce, priority: 3, dscp: [26], lossless: true, ets: {bandwidthPercent: 50}, ecn: {minThreshold: 150KB, maxThreshold: 1500KB}}
      - {name: cnp, priority: 6, dscp: [48], ets: {strict: true}}
      - {name: default, priority: 0, dscp: rest, ets: {bandwidthPercent: 50}}
    pfc: {cableLength: 5m, watchdog: {enabled: true, pollInterval: 100ms, detectionTime: 200ms, restorationTime: 400ms}}
    roce: {class: roce, cnpClass: cnp}
`)
		},
		"ib.yaml": func(w *bufio.Writer) {
			fmt.Fprint(w, "apiVersion: fabricctl.io/v1alpha1\nkind: Profile\nmetadata: {name: ib}\nspec:\n  infiniband:\n    partitions:\n")
			for p := 0; p < parts; p++ {
				fmt.Fprintf(w, "      - {name: tenant%d, pkey: %d, ipoib: true, mtu: 4096, rate: 400, members: [{hosts: {labels: {tenant: t%d}}, membership: full}]}\n", p, p+1, p)
			}
		},
		"fabric.yaml": func(w *bufio.Writer) {
			fmt.Fprint(w, "apiVersion: fabricctl.io/v1alpha1\nkind: Fabric\nmetadata: {name: big}\nspec:\n  include: [roce.yaml, ib.yaml]\n  hosts:\n")
			for h := 0; h < hosts; h++ {
				fmt.Fprintf(w, "    - {name: gpu-%05d, address: 10.%d.%d.%d, profile: roce, interfaces: [ens1f0np0, ens2f0np0], labels: {rack: r%d, leaf: leaf-%03d, role: gpu, tenant: t%d}, portGuids: [\"0x%016x\"]}\n",
					h, 1+h/65536, (h/256)%256, h%256, h/32, h/32, h%max(parts, 1), 0x0002c90300000000+h)
			}
			fmt.Fprint(w, "  switches:\n")
			// Switches take the registered platforms in turn, each on its
			// Info.PortRange.
			reg := all.Registry()
			plats := reg.Names()
			for s := 0; s < switches; s++ {
				d, _ := reg.Driver(plats[s%len(plats)])
				fmt.Fprintf(w, "    - {name: leaf-%03d, platform: %s, address: 10.200.%d.%d, profile: roce, ports: [\"%s\"]}\n",
					s, d.Info().Name, s/256, s%256, d.Info().PortRange)
			}
			fmt.Fprint(w, "  subnetManagers:\n    - {name: sm-01, kind: opensm, address: 10.250.0.1, profile: ib}\n")
		},
	}
	for name, gen := range files {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		w := bufio.NewWriter(f)
		gen(w)
		if err := w.Flush(); err != nil {
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	return nil
}
