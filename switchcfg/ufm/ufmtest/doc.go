// Package ufmtest is a test double of NVIDIA UFM Enterprise's pkey REST API:
// an http.Handler that keeps a partition table in memory and answers like
// UFM does, for tests of switchcfg/ufm and for lab scenarios. It is not UFM.
//
// What it models, from UFM's REST API guide and the behaviour of UFM seen by
// its clients: basic auth (401 otherwise); GET /ufmRest/resources/pkeys with
// guids_data / qos_conf (an object keyed by "0x…" pkey); GET of one pkey (an
// empty object when absent); POST .../pkeys/add (400 when the pkey exists);
// POST .../pkeys adding GUIDs with "membership" or index-aligned
// "memberships" (both at once, or lengths that differ, are 400), creating the
// pkey as "api_pkey_0x…" when needed; PUT .../pkeys setting the exact list;
// DELETE .../pkeys/P/guids/G1,G2 (a non-default pkey left empty disappears);
// DELETE .../pkeys/P; PUT .../pkeys/qos_conf. The management pkey 0x7fff is
// always there and read-only; pkeys must be in (0x0, 0x7fff); GUIDs are 16 to
// 20 hex digits, and with Ports set, GUIDs UFM has not discovered are 404.
// Errors are {"error": "..."}. Faults can be injected per request.
//
// A Server is safe for concurrent use.
package ufmtest
