package sonic

import (
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/switchcfg"
)

// numbersDoc is a CONFIG_DB whose one lossless port sets every number the
// reader takes; each %NAME% is replaced by a case.
const numbersDoc = `{
 "PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "M", "pfc_enable": "3", "pfcwd_sw_enable": "3"}},
 "DSCP_TO_TC_MAP": {"M": {"26": "3"}},
 "QUEUE": {"Ethernet0|3": {"scheduler": "S", "wred_profile": "W"}},
 "SCHEDULER": {"S": {"type": "DWRR", "weight": "%WEIGHT%"}},
 "WRED_PROFILE": {"W": {"ecn": "ecn_all", "green_min_threshold": "%MIN%", "green_max_threshold": "1000000", "green_drop_probability": "%PROB%"}},
 "CABLE_LENGTH": {"AZURE": {"Ethernet0": "%CABLE%"}},
 "PFC_WD": {"Ethernet0": {"action": "drop", "detection_time": "%DET%", "restoration_time": "400"}, "GLOBAL": {"POLL_INTERVAL": "%POLL%"}},
 "PORT": {"Ethernet0": {"mtu": "%MTU%"}},
 "DEVICE_METADATA": {"localhost": {"hwsku": "x"}}
}`

func numbersReadback(field, value string) switchcfg.Readback {
	good := map[string]string{"WEIGHT": "50", "MIN": "100000", "PROB": "10", "CABLE": "5m", "DET": "200", "POLL": "200", "MTU": "9100"}
	good[field] = value
	doc := numbersDoc
	for k, v := range good {
		doc = strings.ReplaceAll(doc, "%"+k+"%", v)
	}
	return switchcfg.Readback{CmdRunningConfig: []byte(doc)}
}

// TestParseRefusesBadNumbers (issue 28): POLL_INTERVAL "-5" was read as a
// watchdog polling every -5 ms. A number that is negative, zero where
// that means nothing, not a number or past its type is refused, naming the
// table, key and field, never read.
func TestParseRefusesBadNumbers(t *testing.T) {
	if _, err := New().Parse(numbersReadback("", "")); err != nil {
		t.Fatalf("the good document: %v", err)
	}
	for _, tc := range []struct{ field, value, want string }{
		{"POLL", "-5", `POLL_INTERVAL "-5"`},
		{"POLL", "0", `POLL_INTERVAL "0"`},
		{"POLL", "NaN", `POLL_INTERVAL "NaN"`},
		{"POLL", "1e23", `POLL_INTERVAL "1e23"`},
		{"POLL", "99999999999999999999", `POLL_INTERVAL "99999999999999999999"`},
		{"DET", "-200", `detection_time "-200"`},
		{"MTU", "-9100", `mtu "-9100"`},
		{"MTU", "99999999999", `mtu "99999999999"`},
		{"CABLE", "-5m", `"-5m"`},
		{"CABLE", "0m", `"0m"`},
		{"WEIGHT", "-1", `weight "-1"`},
		{"WEIGHT", "101", `weight "101"`},
		{"MIN", "-1", `green_min_threshold "-1"`},
		{"MIN", "99999999999999999999", `green_min_threshold "99999999999999999999"`},
		{"PROB", "101", `green_drop_probability "101"`},
		{"PROB", "-3", `green_drop_probability "-3"`},
	} {
		_, err := New().Parse(numbersReadback(tc.field, tc.value))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %s: %v", tc.field, tc.value, err)
		}
	}
	// show pfcwd config: times are positive.
	_, err := New().Parse(switchcfg.Readback{CmdRunningConfig: []byte(`{"DEVICE_METADATA": {}}`),
		CmdShowPFCWD: []byte("PORT ACTION DETECTION RESTORATION\n---\nEthernet0 drop -200 200\n")})
	if err == nil || !strings.Contains(err.Error(), `line 3: time "-200"`) {
		t.Errorf("show pfcwd config with a negative time: %v", err)
	}
}
