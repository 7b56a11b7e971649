// Package ufm is fabricctl's second subnet-manager backend: NVIDIA UFM
// Enterprise, driven through its REST API under /ufmRest/resources/pkeys
// instead of a partitions.conf pushed over SSH.
//
// Client is a thin, context-aware HTTP client of that API (basic auth; the
// password comes from an environment variable the caller names and is never
// printed):
//
//	c, err := ufm.New("https://ufm.example", "admin", "UFM_PASSWORD", httpClient)
//	pkeys, err := c.ListPKeys(ctx)                    // GET  …/pkeys?guids_data=true&qos_conf=true
//	err = c.CreatePKey(ctx, ufm.CreateRequest{…})     // POST …/pkeys/add
//	err = c.AddGUIDs(ctx, ufm.GUIDsRequest{…})        // POST …/pkeys (membership per GUID)
//	err = c.SetGUIDs(ctx, ufm.GUIDsRequest{…})        // PUT  …/pkeys (exact member list)
//	err = c.RemoveGUIDs(ctx, 0x2, guids)              // DELETE …/pkeys/0x2/guids/G1,G2
//	err = c.UpdateQoS(ctx, ufm.QoSRequest{…})         // PUT  …/pkeys/qos_conf
//	err = c.DeletePKey(ctx, 0x2)                      // DELETE …/pkeys/0x2
//
// Non-2xx answers are *APIError (errors.Is matches ErrNotFound and
// ErrUnauthorized) carrying UFM's own message.
//
// Backend reconciles a fabric.SubnetManagerIntent against UFM: Desired is
// opensm.Desired minus the default partition, refusing with
// switchcfg.ErrNotSupported what the REST API cannot express (ALL/SELF
// keywords, "both", 0x7fff, MTUs other than 2048/4096). Plan compares with
// opensm.CompareWith under UFM's defaults (2048 MTU, 2.5 Gb/s, SL 0, full)
// and ignores partition names, which UFM assigns itself. Apply changes only
// the pkeys that differ, reads everything back, and on any failure restores
// the pkeys it touched. pkeys the intent does not list belong to someone else
// (UFM is often shared with Kubernetes plugins) unless Prune is set.
//
// Units: rate_limit is in Gb/s; mtu_limit is taken to be the MTU in KiB
// (2 = 2048, 4 = 4096), which matches UFM's defaults (2 with a 2.5 Gb/s rate)
// but is not spelled out in UFM's REST guide; check it against a live UFM.
//
// ufmtest holds an in-memory UFM double (an http.Handler) used by the tests.
//
// Client and Backend hold no mutable state and are safe for concurrent use;
// two Applies to one UFM at once race like two operators.
package ufm
