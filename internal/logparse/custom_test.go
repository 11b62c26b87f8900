package logparse

import (
	"strings"
	"testing"
	"time"
)

// TestCustomParse reads lines with a custom layout: roles, extra groups as
// fields, an unknown level word kept as a field, a line the pattern does
// not match continuing the entry, a ts that does not parse making the
// entry unparsed.
func TestCustomParse(t *testing.T) {
	c, err := newCustomLayout(`(?P<ts>\S+ \S+) (?P<level>\w+) (?:\[(?P<service>[^\]]+)\] )?(?:(?P<req>req-\d+) )?(?P<msg>.*)`, "2006-01-02 15:04:05.000")
	if err != nil {
		t.Fatal(err)
	}
	k, err := newCustomLayout(klogPattern, "0102 15:04:05.000000")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		c                       *Layout
		line                    string
		kind                    LineKind
		ts, level, service, msg string
		fields                  string
	}{
		{c, "2026-03-14 14:01:00.250 ERROR [order] req-7 payment timeout ", LineTimed, "2026-03-14T14:01:00.25Z", "ERROR", "order", "payment timeout", "req=req-7"},
		{c, "2026-03-14 14:01:00.250 warning plain message", LineTimed, "2026-03-14T14:01:00.25Z", "WARN", "", "plain message", ""},
		{c, "2026-03-14 14:01:00.250 AUDIT kept as a field", LineTimed, "2026-03-14T14:01:00.25Z", "", "", "kept as a field", "level=AUDIT"},
		{c, "\tat com.shop.Pay.charge(Pay.java:42)", LineCont, "", "", "", "", ""},
		{c, "2026-03-14 25:01:00.250 ERROR bad hour", LineUntimed, "", "ERROR", "", "bad hour", ""},
		{k, "E0314 14:01:00.123456    1234 server.go:12] connection refused", LineTimed, "2026-03-14T14:01:00.123456Z", "ERROR", "", "connection refused", "pid=1234 source=server.go:12"},
		{k, "x E0314 14:01:00.123456 1 a.go:1] not at the start", LineCont, "", "", "", "", ""},
	}
	for _, tt := range tests {
		tc := TimeCtx{Loc: time.UTC, Year: 2026, EndNS: base.UnixNano()}
		var r Record
		kind := tt.c.ParseLine([]byte(tt.line), &tc, &r)
		if kind != tt.kind {
			t.Errorf("%q: kind %d, want %d", tt.line, kind, tt.kind)
			continue
		}
		if kind == LineCont {
			continue
		}
		var ts string
		if kind == LineTimed {
			ts = time.Unix(0, r.TS).UTC().Format(time.RFC3339Nano)
		}
		var fields []string
		for _, f := range r.Fields {
			fields = append(fields, string(f.Key)+"="+string(f.Val))
		}
		if ts != tt.ts || r.Level != tt.level || string(r.Service) != tt.service || string(r.Msg) != tt.msg || strings.Join(fields, " ") != tt.fields {
			t.Errorf("%q: got ts %q level %q service %q msg %q fields %q; want %q %q %q %q %q", tt.line,
				ts, r.Level, r.Service, r.Msg, strings.Join(fields, " "), tt.ts, tt.level, tt.service, tt.msg, tt.fields)
		}
	}
}

// FuzzParseCustom: any line read with a custom layout yields clean text.
func FuzzParseCustom(f *testing.F) {
	c, err := newCustomLayout(klogPattern, "0102 15:04:05.000000")
	if err != nil {
		f.Fatal(err)
	}
	fuzzLayout(f, c, "E0314 14:01:00.123456    1234 server.go:12] connection refused",
		"W1231 23:59:59.999999 1 a.go:1] \x1b[31mred\x00", "I0230 10:00:00.000000 1 a.go:1] no such day")
}
