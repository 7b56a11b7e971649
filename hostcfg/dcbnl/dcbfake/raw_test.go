package dcbfake_test

import (
	"bytes"
	"os"
	"slices"
	"syscall"
	"testing"

	"github.com/fabricctl/fabricctl/hostcfg/dcbnl"
	"github.com/fabricctl/fabricctl/hostcfg/dcbnl/dcbfake"
	"github.com/fabricctl/fabricctl/hostcfg/dcbnl/internal/nlwire"
)

// Raw requests: what dcbnl's encoders never send (several attributes in one
// IEEE_SET, nests without NLA_F_NESTED, broken attributes), which the fake
// must still answer as the kernel does.

type rawAttr struct {
	typ  uint16
	data []byte
}

func rawIEEE(typ uint16, cmd dcbnl.Command, flags uint16, ifname string, nestFlag uint16, attrs ...rawAttr) []byte {
	b := nlwire.NewMessage(typ, flags, 99, 0)
	b.Raw([]byte{0, uint8(cmd), 0, 0})
	if ifname != "" {
		b.StringZ(dcbnl.AttrIfName, ifname)
	}
	if attrs != nil {
		b.Nest(dcbnl.AttrIEEE | nestFlag)
		for _, a := range attrs {
			b.Attr(a.typ, a.data)
		}
		b.End()
	}
	return b.Bytes()
}

func appTable(nestFlag uint16, apps ...dcbnl.App) []byte {
	b := nlwire.NewMessage(0, 0, 0, 0)
	for _, a := range apps {
		d, _ := a.MarshalBinary()
		b.Attr(dcbnl.AttrAppIEEE, d)
	}
	return b.Bytes()[nlwire.HdrLen:]
}

func marshal(v interface{ MarshalBinary() ([]byte, error) }) []byte {
	b, _ := v.MarshalBinary()
	return b
}

var (
	goodETS = dcbnl.ETS{TCTxBW: [8]uint8{100}, TCTSA: [8]dcbnl.TSA{dcbnl.TSAETS}, PrioTC: [8]uint8{0, 0, 0, 0, 0, 0, 0, 0}}
	goodPFC = dcbnl.PFC{PFCEn: 1 << 3, Delay: 9}
)

func exchange(t *testing.T, k *dcbfake.Kernel, req []byte) []byte {
	t.Helper()
	reply, err := k.Exchange(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	return reply
}

func TestKernelOrderInsideOneSet(t *testing.T) {
	for _, nestFlag := range []uint16{0, nlwire.AttrNested} {
		k, c := newKernel(t)
		// Sent APP, PFC, ETS; the kernel runs ETS, ..., PFC, ..., APP and
		// stops at PFC: ETS stays applied, the APP entry never comes.
		k.FailNext("gen0", dcbnl.AttrIEEEPFC, syscall.EIO)
		req := rawIEEE(dcbnl.RTMSetDCB, dcbnl.CmdIEEESet, nlwire.FlagRequest|nlwire.FlagAck, "gen0", nestFlag,
			rawAttr{dcbnl.AttrIEEEAppTable | nestFlag, appTable(nestFlag, dscp(26, 3))},
			rawAttr{dcbnl.AttrIEEEPFC, marshal(goodPFC)},
			rawAttr{dcbnl.AttrIEEEETS, marshal(goodETS)})
		wantErr(t, dcbnl.DecodeStatus(exchange(t, k, req)), syscall.EIO, true)
		st := mustState(t, c, "gen0")
		if !st.ETS.SameConfig(goodETS) || st.PFC.PFCEn != 0 || len(st.Apps) != 0 {
			t.Fatalf("nest flag %#x: ETS applied %v, pfc_en %#x, apps %v", nestFlag, st.ETS.SameConfig(goodETS), st.PFC.PFCEn, st.Apps)
		}
		// Without the failure everything lands, whatever the nest flags.
		if err := dcbnl.DecodeStatus(exchange(t, k, req)); err != nil {
			t.Fatal(err)
		}
		st = mustState(t, c, "gen0")
		if !goodPFC.SameConfig(*st.PFC) || !slices.Equal(st.Apps, []dcbnl.App{dscp(26, 3)}) {
			t.Fatalf("nest flag %#x: pfc %+v apps %v", nestFlag, *st.PFC, st.Apps)
		}
		if got := k.Requests()[0].Attrs; !slices.Equal(got, []uint16{dcbnl.AttrIEEEAppTable, dcbnl.AttrIEEEPFC, dcbnl.AttrIEEEETS}) {
			t.Fatalf("recorded attrs %v, want the order sent", got)
		}
	}
}

func TestInvalidFirstPartStopsEverything(t *testing.T) {
	k, c := newKernel(t)
	bad := goodETS
	bad.TCTxBW[0] = 99
	req := rawIEEE(dcbnl.RTMSetDCB, dcbnl.CmdIEEESet, nlwire.FlagRequest|nlwire.FlagAck, "mlx0", nlwire.AttrNested,
		rawAttr{dcbnl.AttrIEEEETS, marshal(bad)},
		rawAttr{dcbnl.AttrIEEEPFC, marshal(goodPFC)})
	wantErr(t, dcbnl.DecodeStatus(exchange(t, k, req)), syscall.EINVAL, true)
	if st := mustState(t, c, "mlx0"); st.PFC.PFCEn != 0 || k.LinkFlaps("mlx0") != 0 {
		t.Fatalf("PFC applied after a failed ETS: %+v", *st.PFC)
	}
}

func TestPolicyErrorsComeAsNetlinkErrors(t *testing.T) {
	k, _ := newKernel(t)
	ra := uint16(nlwire.FlagRequest | nlwire.FlagAck)
	cases := map[string]struct {
		req  []byte
		want syscall.Errno
	}{
		"short ETS":      {rawIEEE(dcbnl.RTMSetDCB, dcbnl.CmdIEEESet, ra, "gen0", 0, rawAttr{dcbnl.AttrIEEEETS, make([]byte, 58)}), syscall.ERANGE},
		"short PFC":      {rawIEEE(dcbnl.RTMSetDCB, dcbnl.CmdIEEESet, ra, "gen0", 0, rawAttr{dcbnl.AttrIEEEPFC, make([]byte, 8)}), syscall.ERANGE},
		"no IEEE nest":   {rawIEEE(dcbnl.RTMSetDCB, dcbnl.CmdIEEESet, ra, "gen0", 0), syscall.EINVAL},
		"no ifname":      {rawIEEE(dcbnl.RTMGetDCB, dcbnl.CmdIEEEGet, ra, "", 0), syscall.EINVAL},
		"long ifname":    {rawIEEE(dcbnl.RTMGetDCB, dcbnl.CmdIEEEGet, ra, "abcdefghijklmnopq", 0), syscall.EINVAL},
		"CEE command":    {rawIEEE(dcbnl.RTMGetDCB, 1 /* DCB_CMD_GSTATE */, ra, "gen0", 0), syscall.EOPNOTSUPP},
		"command > max":  {rawIEEE(dcbnl.RTMGetDCB, 28, ra, "gen0", 0), syscall.EINVAL},
		"sdcbx no value": {rawIEEE(dcbnl.RTMSetDCB, dcbnl.CmdSetDCBX, ra, "gen0", 0), syscall.EINVAL},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := dcbnl.DecodeIEEE(exchange(t, k, tc.req))
			wantErr(t, err, tc.want, false)
		})
	}
	if w := k.Writes(); len(w) != 4 || w[0].Errno == 0 {
		t.Fatalf("failed writes must be recorded with their errno: %+v", w)
	}
}

func TestTrailingJunkAndShortAppEntries(t *testing.T) {
	k, c := newKernel(t)
	ra := uint16(nlwire.FlagRequest | nlwire.FlagAck)
	// Liberal parsing: bytes that frame no attribute are ignored.
	req := rawIEEE(dcbnl.RTMGetDCB, dcbnl.CmdIEEEGet, ra, "gen0", 0)
	req = append(req, 0xff, 0xff, 0xff, 0xff)
	nlwire.Order.PutUint32(req, uint32(len(req)))
	if _, err := dcbnl.DecodeIEEE(exchange(t, k, req)); err != nil {
		t.Fatalf("GET with trailing junk: %v", err)
	}
	// A 3-byte app entry is ERANGE, in-band; entries of unknown type are skipped.
	short := nlwire.NewMessage(0, 0, 0, 0)
	short.Attr(9, []byte{5, 3, 26, 0})
	short.Attr(dcbnl.AttrAppIEEE, []byte{5, 3, 26})
	req = rawIEEE(dcbnl.RTMSetDCB, dcbnl.CmdIEEESet, ra, "gen0", nlwire.AttrNested,
		rawAttr{dcbnl.AttrIEEEAppTable, short.Bytes()[nlwire.HdrLen:]})
	wantErr(t, dcbnl.DecodeStatus(exchange(t, k, req)), syscall.ERANGE, true)
	// A DSCP entry sent as DCB_ATTR_DCB_APP (PCP's type) is EINVAL.
	wrong := nlwire.NewMessage(0, 0, 0, 0)
	wrong.Attr(dcbnl.AttrAppDCB, marshal(dscp(26, 3)))
	req = rawIEEE(dcbnl.RTMSetDCB, dcbnl.CmdIEEESet, ra, "gen0", nlwire.AttrNested,
		rawAttr{dcbnl.AttrIEEEAppTable, wrong.Bytes()[nlwire.HdrLen:]})
	wantErr(t, dcbnl.DecodeStatus(exchange(t, k, req)), syscall.EINVAL, true)
	if st := mustState(t, c, "gen0"); len(st.Apps) != 0 {
		t.Fatalf("apps = %v", st.Apps)
	}
}

func TestInjectedFailuresAndPrivilege(t *testing.T) {
	k, c := newKernel(t)
	k.FailNextRequest("gen0", dcbnl.CmdIEEEGet, syscall.ENOMEM)
	_, err := c.GetIEEE(ctx, "gen0")
	wantErr(t, err, syscall.ENOMEM, false)
	if _, err := c.GetIEEE(ctx, "gen0"); err != nil {
		t.Fatalf("a failure fires once: %v", err)
	}
	k.FailNext("", dcbnl.AttrIEEEAppTable, syscall.EBUSY)
	wantErr(t, c.AddApps(ctx, "mlx0", []dcbnl.App{dscp(26, 3)}), syscall.EBUSY, true)
	k.FailNext("mlx0", dcbnl.AttrDCBX, syscall.EIO)
	if err := c.SetDCBX(ctx, "mlx0", dcbnl.DCBXHostIEEE); err == nil {
		t.Fatal("injected SDCBX refusal ignored")
	}
	k.SetUnprivileged(true)
	wantErr(t, c.SetPFC(ctx, "gen0", goodPFC), syscall.EPERM, false)
	if _, err := c.GetIEEE(ctx, "gen0"); err != nil {
		t.Fatalf("GET needs no privilege: %v", err)
	}
}

func TestBatchAndNoAck(t *testing.T) {
	k, _ := newKernel(t)
	get, _ := dcbnl.EncodeIEEEGet("gen0")
	set, _ := dcbnl.EncodeIEEESetPFC("gen0", goodPFC)
	reply := exchange(t, k, append(bytes.Clone(set), get...))
	msgs, err := nlwire.ParseMessages(reply)
	if err != nil || len(msgs) != 4 {
		t.Fatalf("batch of 2 with ACK: %d messages, %v", len(msgs), err)
	}
	noAck := bytes.Clone(get)
	nlwire.Order.PutUint16(noAck[6:], nlwire.FlagRequest)
	msgs, _ = nlwire.ParseMessages(exchange(t, k, noAck))
	if len(msgs) != 1 || msgs[0].Type != dcbnl.RTMGetDCB {
		t.Fatalf("without NLM_F_ACK: %+v", msgs)
	}
	st, err := dcbnl.DecodeIEEE(exchange(t, k, noAck))
	if err != nil || st.PFC.PFCEn != goodPFC.PFCEn {
		t.Fatalf("batched SET not applied: %v", err)
	}
}

// The fake's answers for a missing device and for a device without DCB ops
// must be byte for byte what the running kernel sends (seq and port id
// masked).
func TestErrorRepliesMatchRealKernel(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("SKIPPING FAKE-VS-REAL DCB COMPARISON: needs root to send RTM_SETDCB to the real kernel")
	}
	conn, err := dcbnl.OpenConn()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	k := dcbfake.New()
	k.AddDeviceWithoutDCB("lo")
	mask := func(b []byte) []byte {
		b = bytes.Clone(b)
		msgs, err := nlwire.SplitMessages(b)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			clear(m[8:16])
			if nlwire.Order.Uint16(m[4:]) == nlwire.TypeError && len(m) >= 36 {
				clear(m[28:36]) // the echoed request's seq and pid
			}
		}
		return b
	}
	for _, name := range []string{"lo", "nosuchdev0"} {
		for what, enc := range map[string]func(string) ([]byte, error){
			"get":    dcbnl.EncodeIEEEGet,
			"setpfc": func(n string) ([]byte, error) { return dcbnl.EncodeIEEESetPFC(n, goodPFC) },
			"addapp": func(n string) ([]byte, error) { return dcbnl.EncodeIEEESetApp(n, []dcbnl.App{dscp(26, 3)}) },
			"sdcbx":  func(n string) ([]byte, error) { return dcbnl.EncodeSetDCBX(n, dcbnl.DCBXHostIEEE) },
		} {
			req, err := enc(name)
			if err != nil {
				t.Fatal(err)
			}
			real, err := conn.Exchange(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			fake := exchange(t, k, req)
			if !bytes.Equal(mask(real), mask(fake)) {
				t.Errorf("%s %s:\nreal %x\nfake %x", what, name, mask(real), mask(fake))
			}
		}
	}
}
