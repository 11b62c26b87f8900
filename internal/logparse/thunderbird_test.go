package logparse

import (
	"testing"
	"time"
)

// TestThunderbirdLoghub: Loghub's Thunderbird lines write the syslog day
// unpadded ("Nov 9 12:01:01"): the stamp is skipped as Thunderbird's and
// the program read as the service, never the BlueGene columns (the clock
// read as the field type, the node as the component).
func TestThunderbirdLoghub(t *testing.T) {
	tc := &TimeCtx{Loc: time.UTC}
	for _, tt := range []struct{ line, service, msg string }{
		{"- 1131566461 2005.11.09 dn228 Nov 9 12:01:01 dn228/dn228 crond(pam_unix)[2915]: session closed for user root", "crond(pam_unix)", "session closed for user root"},
		{"- 1131566461 2005.11.09 dn228 Nov  9 12:01:01 dn228/dn228 crond[2916]: (root) CMD (run-parts /etc/cron.hourly)", "crond", "(root) CMD (run-parts /etc/cron.hourly)"},
	} {
		var r Record
		if kind := parseRAS([]byte(tt.line), tc, &r); kind != LineTimed || string(r.Service) != tt.service || string(r.Msg) != tt.msg {
			t.Errorf("%s: kind %d service %q msg %q; want %q %q", tt.line, kind, r.Service, r.Msg, tt.service, tt.msg)
		}
		for _, f := range r.Fields {
			if string(f.Key) == "type" || string(f.Key) == "component" {
				t.Errorf("%s: field %s=%s read as a BlueGene column", tt.line, f.Key, f.Val)
			}
		}
	}
	var r Record // a BlueGene/L line keeps its columns
	parseRAS([]byte("- 1117838570 2005.06.03 R02-M1-N0-C:J12-U11 2005-06-03-15.42.50.675872 R02-M1-N0-C:J12-U11 RAS KERNEL INFO instruction cache parity error corrected"), tc, &r)
	if r.Level != "INFO" || string(r.Msg) != "instruction cache parity error corrected" {
		t.Errorf("BlueGene/L: level %q msg %q", r.Level, r.Msg)
	}
}
