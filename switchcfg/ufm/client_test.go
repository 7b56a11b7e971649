package ufm_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/switchcfg/ufm"
	"github.com/fabricctl/fabricctl/switchcfg/ufm/ufmtest"
	"github.com/google/go-cmp/cmp"
)

const secret = "s3cr3t-UFM-pw"

// newUFM starts the UFM test double and a client logged in to it.
func newUFM(t *testing.T) (*ufmtest.Server, *ufm.Client) {
	t.Helper()
	srv := ufmtest.New("admin", secret)
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	t.Setenv("TEST_UFM_PASSWORD", secret)
	c, err := ufm.New(ts.URL, "admin", "TEST_UFM_PASSWORD", ts.Client())
	if err != nil {
		t.Fatal(err)
	}
	return srv, c
}

func TestNewPassword(t *testing.T) {
	t.Setenv("TEST_UFM_EMPTY", "")
	for _, env := range []string{"", "TEST_UFM_EMPTY", "TEST_UFM_NEVER_SET_X"} {
		if _, err := ufm.New("https://ufm.example", "admin", env, nil); !errors.Is(err, ufm.ErrNoPassword) {
			t.Errorf("env %q: got %v", env, err)
		}
	}
	t.Setenv("TEST_UFM_PASSWORD", secret)
	if _, err := ufm.New("https://admin:pw@ufm.example", "admin", "TEST_UFM_PASSWORD", nil); err == nil {
		t.Error("credentials in the URL accepted")
	}
	if _, err := ufm.New("ufm.example", "admin", "TEST_UFM_PASSWORD", nil); err == nil {
		t.Error("URL without scheme accepted")
	}
	c, err := ufm.New("https://ufm.example/", "admin", "TEST_UFM_PASSWORD", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{c.String(), fmt.Sprintf("%v", c), fmt.Sprintf("%+v", c), fmt.Sprintf("%#v", c)} {
		if strings.Contains(s, secret) {
			t.Errorf("password printed: %s", s)
		}
	}
}

func TestClientWrongPassword(t *testing.T) {
	srv := ufmtest.New("admin", "right")
	ts := httptest.NewServer(srv)
	defer ts.Close()
	t.Setenv("TEST_UFM_PASSWORD", secret)
	c, err := ufm.New(ts.URL, "admin", "TEST_UFM_PASSWORD", ts.Client())
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.ListPKeys(context.Background())
	if !errors.Is(err, ufm.ErrUnauthorized) {
		t.Fatalf("got %v", err)
	}
	if strings.Contains(err.Error(), secret) {
		t.Errorf("password in error: %v", err)
	}
	if want := "listing pkeys: UFM GET /ufmRest/resources/pkeys: 401 Unauthorized: Unauthorized"; err.Error() != want {
		t.Errorf("got %q want %q", err, want)
	}
}

// TestClientCalls drives every call against the UFM double and checks the
// state it leaves.
func TestClientCalls(t *testing.T) {
	srv, c := newUFM(t)
	ctx := context.Background()
	mtu, sl, rate := 4, 3, 200.0
	if err := c.CreatePKey(ctx, ufm.CreateRequest{PKey: "0x5", PartitionName: "storage", IPoIB: true, MTULimit: &mtu, ServiceLevel: &sl, RateLimit: &rate}); err != nil {
		t.Fatal(err)
	}
	if err := c.CreatePKey(ctx, ufm.CreateRequest{PKey: "0x5"}); err == nil || !strings.Contains(err.Error(), "400 Bad Request: PKey 0x5 already exists") {
		t.Errorf("duplicate create: %v", err)
	}
	if err := c.SetGUIDs(ctx, ufm.GUIDsRequest{PKey: "0x5", GUIDs: []string{"0002c903000e0b72", "0002c903000e0b73"}, Memberships: []string{"full", "limited"}, IPoIB: true}); err != nil {
		t.Fatal(err)
	}
	if err := c.AddGUIDs(ctx, ufm.GUIDsRequest{PKey: "0x5", GUIDs: []string{"0002c903000e0b74"}, Memberships: []string{"full"}, Index0: true, IPoIB: true}); err != nil {
		t.Fatal(err)
	}
	got, ok, err := c.GetPKey(ctx, 5)
	if err != nil || !ok {
		t.Fatalf("get: %v %v", ok, err)
	}
	want := ufm.PKey{Partition: "storage", IPoIB: true, QoS: &ufm.QoS{MTULimit: 4, ServiceLevel: 3, RateLimit: 200}, GUIDs: []ufm.Member{
		{GUID: "0002c903000e0b72", Membership: "full"},
		{GUID: "0002c903000e0b73", Membership: "limited"},
		{GUID: "0002c903000e0b74", Membership: "full", Index0: true},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pkey mismatch (-want +got):\n%s", diff)
	}
	if err := c.UpdateQoS(ctx, ufm.QoSRequest{PKey: "0x5", QoS: ufm.QoS{MTULimit: 2, ServiceLevel: 0, RateLimit: 100}}); err != nil {
		t.Fatal(err)
	}
	if err := c.RemoveGUIDs(ctx, 5, []string{"0002c903000e0b72", "0002c903000e0b74"}); err != nil {
		t.Fatal(err)
	}
	all, err := c.ListPKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if p := all[5]; len(p.GUIDs) != 1 || p.GUIDs[0].GUID != "0002c903000e0b73" || p.QoS.RateLimit != 100 {
		t.Errorf("after remove and QoS: %+v", p)
	}
	if _, ok := all[0x7fff]; !ok {
		t.Error("management pkey missing from the list")
	}
	if err := c.DeletePKey(ctx, 5); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := c.GetPKey(ctx, 5); ok || err != nil {
		t.Errorf("deleted pkey still there: %v %v", ok, err)
	}
	if err := c.DeletePKey(ctx, 5); !errors.Is(err, ufm.ErrNotFound) {
		t.Errorf("second delete: %v", err)
	}
	if _, ok := srv.Get(5); ok {
		t.Error("server still holds 0x5")
	}
}

// TestClientErrors: UFM's 400s come back with its message.
func TestClientErrors(t *testing.T) {
	srv, c := newUFM(t)
	srv.SetPorts("0002c903000e0b72")
	ctx := context.Background()
	for _, tc := range []struct {
		req  ufm.GUIDsRequest
		want string
	}{
		{ufm.GUIDsRequest{PKey: "0x5", GUIDs: []string{"0002c903000e0b72"}, Memberships: []string{"full", "full"}},
			"adding GUIDs to pkey 0x5: UFM POST /ufmRest/resources/pkeys: 400 Bad Request: memberships must have the same length as guids"},
		{ufm.GUIDsRequest{PKey: "0x7fff", GUIDs: []string{"0002c903000e0b72"}},
			`adding GUIDs to pkey 0x7fff: UFM POST /ufmRest/resources/pkeys: 400 Bad Request: invalid pkey "0x7fff": must be a hexadecimal string between 0x0 and 0x7fff exclusive`},
		{ufm.GUIDsRequest{PKey: "0x5", GUIDs: []string{"0002c903000e0b99"}},
			"adding GUIDs to pkey 0x5: UFM POST /ufmRest/resources/pkeys: 404 Not Found: port 0002c903000e0b99 does not exist"},
		{ufm.GUIDsRequest{PKey: "0x5", GUIDs: []string{"0002c903000e0b72"}, Memberships: []string{"both"}},
			`adding GUIDs to pkey 0x5: UFM POST /ufmRest/resources/pkeys: 400 Bad Request: invalid membership "both"`},
	} {
		if err := c.AddGUIDs(ctx, tc.req); err == nil || err.Error() != tc.want {
			t.Errorf("got  %v\nwant %s", err, tc.want)
		}
	}
	srv.Inject(ufmtest.Fault{Method: "GET", PathPrefix: "/ufmRest/resources/pkeys", Status: 503, Message: "UFM is restarting"})
	if _, err := c.ListPKeys(ctx); err == nil || err.Error() != "listing pkeys: UFM GET /ufmRest/resources/pkeys: 503 Service Unavailable: UFM is restarting" {
		t.Errorf("got %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := c.ListPKeys(cctx); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
}
