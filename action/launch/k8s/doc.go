// Package k8s renders what runs fabricctl's checks on Kubernetes, from k8s.io/api types:
//
//   - the node health check: a DaemonSet running node-problem-detector with one custom plugin
//     rule, `fabricctl check --local -o nhc`, that sets the node condition RDMAFabricUnhealthy
//     (NPD conditions name a problem: True when the plugin exits 1), with its namespace, RBAC
//     and a ConfigMap holding NPD's monitor configuration and the fabric file;
//
//   - one Indexed Job per round of the fabric's pairwise schedule: a pod on each node of the
//     round (node affinity to the round's nodes, pod anti-affinity one per node), host network,
//     the RDMA device plugin's resource, running `fabricctl task SPEC…`; each pod finds its pair
//     from NODE_NAME (the downward API) and its own RDMA device from its netdev.
//
//     m, err := k8s.Render(f, k8s.Options{Image: "registry.example/fabricctl:v1"})
//     y, err := k8s.Write(m.All()) // one YAML stream
//     files, err := m.Files()        // or health.yaml and round-NNN.yaml
//
// ParseNodeSelector reads --node-selector's KEY=VALUE pairs into Options.NodeSelector.
// Options.Validate holds every option to Kubernetes' rule for the field it fills (namespace,
// images, resource, condition, node selector) and the durations to what node-problem-detector
// can run; Render validates after filling in the zero options' defaults, and refuses a fabric
// name or node name Kubernetes would not take.
//
// Nothing here talks to a cluster (no client-go); Render, Files and
// ParseNodeSelector are pure and safe for concurrent use.
// NPD's configuration types are mirrored in npd.go from NPD's source.
package k8s
