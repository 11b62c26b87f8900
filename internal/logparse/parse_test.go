package logparse

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLevelSpellings: every spelling maps to one of the four levels.
func TestLevelSpellings(t *testing.T) {
	cases := map[string]string{
		"E": "ERROR", "Error": "ERROR", "error": "ERROR", "SEVERE": "ERROR", "FATAL": "ERROR", "CRITICAL": "ERROR",
		"crit": "ERROR", "emerg": "ERROR", "alert": "ERROR", "panic": "ERROR", "failure": "ERROR", "F": "ERROR",
		"WARNING": "WARN", "warn": "WARN", "W": "WARN", "notice": "INFO", "Information": "INFO",
		"informational": "INFO", "I": "INFO", "DEBUG2": "DEBUG", "debug5": "DEBUG", "trace": "DEBUG", "V": "DEBUG",
		"FINEST": "DEBUG", "50": "ERROR", "30": "INFO", "banana": "", "debugger": "",
	}
	for in, want := range cases {
		if got := normLevel([]byte(in)); got != want {
			t.Errorf("normLevel(%q) = %q, want %q", in, got, want)
		}
	}
	for p, want := range []string{"ERROR", "ERROR", "ERROR", "ERROR", "WARN", "INFO", "INFO", "DEBUG"} {
		if got := syslogLevel([]byte{byte('0' + p)}); got != want {
			t.Errorf("syslogLevel(%d) = %q, want %q", p, got, want)
		}
	}
	for n, want := range map[string]string{"1": "DEBUG", "8": "DEBUG", "9": "INFO", "13": "WARN", "17": "ERROR", "21": "ERROR", "25": ""} {
		if got := otelLevel([]byte(n)); got != want {
			t.Errorf("otelLevel(%s) = %q, want %q", n, got, want)
		}
	}
	for s, want := range map[string]string{"200": "INFO", "304": "INFO", "404": "WARN", "499": "WARN", "500": "ERROR", "503": "ERROR", "abc": "", "2000": ""} {
		if got := statusLevel([]byte(s)); got != want {
			t.Errorf("statusLevel(%s) = %q, want %q", s, got, want)
		}
	}
}

// base is the instant the test lines are written around.
var base = time.Date(2026, 3, 14, 14, 0, 0, 0, time.UTC)

// formatsDir holds one sample file per layout; query_logs' tests read the
// same files through the tool.
var formatsDir = filepath.Join("..", "..", "testdata", "logs", "formats")

// klogPattern reads klog lines with format custom.
const klogPattern = `(?P<level>[IWEF])(?P<ts>\d{4} \d\d:\d\d:\d\d\.\d{6})\s+(?P<pid>\d+) (?P<source>[^\]]+)\] (?P<msg>.*)`

// TestJSONCutHead: a JSON line the head cuts (or its writer tore) is a
// record of the members read before the cut, never a continuation, when
// its head read a time or is MaxLineBytes long; malformed JSON and a short
// torn line without a time stay continuations; numbers are kept as numbers.
func TestJSONCutHead(t *testing.T) {
	tc := &TimeCtx{Loc: time.UTC}
	pad := func(n int) string { return strings.Repeat("x", n) }
	head := func(s string) []byte { return []byte(s)[:min(len(s), MaxLineBytes)] }
	for _, tt := range []struct {
		name, line   string
		kind         LineKind
		level, msg   string
		numberFields []string
	}{
		{"whole", `{"time":"2026-11-20T09:00:00Z","level":"error","msg":"m","n":12.5,"s":"7"}`, LineTimed, "ERROR", "m", []string{"n"}},
		{"time and level before the cut", `{"time":"2026-11-20T09:00:00Z","level":"error","msg":"m","p":"` + pad(MaxLineBytes) + `"}`, LineTimed, "ERROR", "m", nil},
		{"level past the cut", `{"time":"2026-11-20T09:00:00Z","p":"` + pad(MaxLineBytes) + `","level":"error"}`, LineTimed, "", "", nil},
		{"cut inside a number", `{"time":"2026-11-20T09:00:00Z","p":"` + pad(MaxLineBytes-50) + `","n":` + strings.Repeat("1", 100) + `}`, LineTimed, "", "", nil},
		{"cut inside a nested object", `{"time":"2026-11-20T09:00:00Z","o":{"a":"` + pad(MaxLineBytes) + `"}}`, LineTimed, "", "", nil},
		{"time past the cut", `{"p":"` + pad(MaxLineBytes) + `","time":"2026-11-20T09:00:00Z","level":"error"}`, LineUntimed, "", "", nil},
		{"torn short line with a time", `{"time":"2026-11-20T09:00:00Z","level":"warn","msg":"to`, LineTimed, "WARN", "", nil},
		{"torn short line without a time", `{"msg":"a pretty-printed body",`, LineCont, "", "", nil},
		{"malformed", `{"time":"2026-11-20T09:00:00Z" "level":"error"}`, LineCont, "", "", nil},
	} {
		var r Record
		kind := parseJSON(head(tt.line), tc, &r)
		if kind != tt.kind || kind != LineCont && (r.Level != tt.level || string(r.Msg) != tt.msg) {
			t.Errorf("%s: kind %d level %q msg %q; want %d %q %q", tt.name, kind, r.Level, r.Msg, tt.kind, tt.level, tt.msg)
		}
		if kind == LineTimed && r.TS != time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC).UnixNano() {
			t.Errorf("%s: time %d", tt.name, r.TS)
		}
		nums := map[string]bool{}
		for _, f := range r.Fields {
			if f.Num {
				nums[string(f.Key)] = true
			}
		}
		if len(nums) != len(tt.numberFields) {
			t.Errorf("%s: number fields %v; want %v", tt.name, nums, tt.numberFields)
		}
		for _, k := range tt.numberFields {
			if !nums[k] {
				t.Errorf("%s: field %s not a number", tt.name, k)
			}
		}
	}
}
