package logparse

import (
	"path/filepath"
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
