package switchcfg

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/fabric"
)

func TestPushOptionsDefaults(t *testing.T) {
	var o PushOptions
	if o.Timeout() != DefaultConfirmTimeout {
		t.Errorf("timeout %v", o.Timeout())
	}
	now := time.Date(2026, 3, 4, 5, 6, 7, 0, time.FixedZone("x", 3600))
	if got := o.Checkpoint(now); got != "fabricctl-20260304-040607" {
		t.Errorf("checkpoint %q", got)
	}
	o = PushOptions{ConfirmTimeout: time.Minute, CheckpointName: "mine"}
	if o.Timeout() != time.Minute || o.Checkpoint(now) != "mine" {
		t.Errorf("%v %q", o.Timeout(), o.Checkpoint(now))
	}
}

func TestPushErrorWrapsAndNamesTheLine(t *testing.T) {
	cause := &LineError{Line: "nv set qos bogus", Message: "Error: Invalid Command"}
	err := error(&PushError{Platform: "cumulus-nvue", Step: "loading", Line: cause.Line, RolledBack: true, Err: cause})
	if !errors.Is(err, ErrPushFailed) || FailedLine(err) != "nv set qos bogus" {
		t.Fatalf("unwrap: %v", err)
	}
	want := `cumulus-nvue: loading line "nv set qos bogus": device rejected "nv set qos bogus": Error: Invalid Command (rolled back)`
	if err.Error() != want {
		t.Fatalf("got  %q\nwant %q", err, want)
	}
	long := &PushError{Platform: "p", Step: "s", Line: strings.Repeat("x", 300), Err: errors.New("e")}
	if len(long.Error()) > 260 || !strings.HasSuffix(long.Error(), "(rollback not confirmed)") {
		t.Fatalf("long line not cut: %q", long.Error())
	}
	if FailedLine(errors.New("plain")) != "" {
		t.Fatal("no LineError, no line")
	}
}

// scripted is a Session answering read-back commands from a map.
type scripted map[string]string

func (s scripted) Send(_ context.Context, cmd string) (string, error) {
	out, ok := s[cmd]
	if !ok {
		return "", errors.New("no such command")
	}
	return out, nil
}
func (s scripted) SendConfig(context.Context, []string) (string, error) { return "", nil }
func (s scripted) Close() error                                         { return nil }

// echoDriver parses the output of "show qos" as a trust value.
type echoDriver struct{}

func (echoDriver) Info() Info                                 { return Info{Name: "echo"} }
func (echoDriver) CheckPort(string) error                     { return nil }
func (echoDriver) Render(fabric.SwitchIntent) (Config, error) { return Config{}, nil }
func (echoDriver) ReadbackCommands() []string                 { return []string{"show qos"} }
func (echoDriver) Parse(rb Readback) (fabric.SwitchIntent, error) {
	if string(rb["show qos"]) == "bad" {
		return fabric.SwitchIntent{}, errors.New("unparsable")
	}
	return fabric.SwitchIntent{Trust: string(rb["show qos"])}, nil
}
func (d echoDriver) ParsePorts(rb Readback, _ []string) (fabric.SwitchIntent, error) {
	return d.Parse(rb)
}
func (echoDriver) Push(context.Context, Session, Config, PushOptions) (PushResult, error) {
	return PushResult{}, nil
}

func TestObserve(t *testing.T) {
	got, err := Observe(context.Background(), scripted{"show qos": "dscp"}, echoDriver{}, nil)
	if err != nil || got.Trust != "dscp" || got.Platform != "echo" {
		t.Fatalf("%+v %v", got, err)
	}
	_, err = Observe(context.Background(), scripted{}, echoDriver{}, nil)
	if err == nil || !strings.Contains(err.Error(), `reading back echo with "show qos"`) {
		t.Fatalf("got %v", err)
	}
	_, err = Observe(context.Background(), scripted{"show qos": "bad"}, echoDriver{}, nil)
	if err == nil || !strings.Contains(err.Error(), "parsing echo read-back: unparsable") {
		t.Fatalf("got %v", err)
	}
}

// TestPushErrorSaysWhatTheSwitchWillDo: the message promises the device's
// own rollback only when the driver saw a confirmed commit pending.
func TestPushErrorSaysWhatTheSwitchWillDo(t *testing.T) {
	pending := &PushError{Platform: "junos", Step: "confirming", Line: "commit", ConfirmPending: true, Window: 2 * time.Minute,
		Err: errors.New("connection lost")}
	if !strings.HasSuffix(pending.Error(), "(not confirmed: the switch rolls the change back by itself when its 2m0s confirm window ends)") {
		t.Errorf("pending: %q", pending.Error())
	}
	unknown := &PushError{Platform: "junos", Step: "confirming", Line: "commit", Err: errors.New("connection lost")}
	if strings.Contains(unknown.Error(), "rolls") || !strings.HasSuffix(unknown.Error(), "(rollback not confirmed)") {
		t.Errorf("unknown outcome: %q", unknown.Error())
	}
	if !Lost(unknown.Err) || Lost(&LineError{Line: "x", Message: "% Invalid input"}) || Lost(nil) {
		t.Error("Lost must tell a dropped connection from a refused line")
	}
	if _, err := (PushOptions{}).Redial(context.Background()); !errors.Is(err, ErrNoReconnect) {
		t.Errorf("Redial without Reconnect: %v", err)
	}
}
