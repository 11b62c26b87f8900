package cmd

import (
	"os"
	"testing"

	"github.com/superbiz/superbiz/internal/doctor"
	"github.com/superbiz/superbiz/internal/goldenfile"
)

func TestHelpGolden(t *testing.T) {
	for _, tt := range []struct {
		file string
		args []string
	}{
		{"help.golden", []string{"--help"}},
		{"doctor-help.golden", []string{"doctor", "--help"}},
		{"timeline-help.golden", []string{"timeline", "--help"}},
	} {
		code, out, errOut := cli(t, nil, tt.args...)
		if code != ExitOK || errOut != "" {
			t.Fatalf("%q: exit %d, stderr %q", tt.args, code, errOut)
		}
		goldenfile.Check(t, tt.file, []byte(out))
	}
}

func TestMarks(t *testing.T) {
	tests := []struct {
		tty, color bool
		status     doctor.Status
		want       string
	}{
		{false, false, doctor.Pass, "ok  "},
		{false, false, doctor.Fail, "FAIL"},
		{false, false, doctor.Warn, "warn"},
		{false, false, doctor.Skip, "skip"},
		{true, false, doctor.Pass, "✓"},
		{true, false, doctor.Fail, "✗"},
		{true, false, doctor.Warn, "!"},
		{true, true, doctor.Fail, "\x1b[31m✗\x1b[0m"},
	}
	for _, tt := range tests {
		a := &app{io: &IOStreams{OutTTY: tt.tty, Color: tt.color}}
		if got := a.mark(tt.status); got != tt.want {
			t.Errorf("mark(tty=%v, color=%v, %d) = %q, want %q", tt.tty, tt.color, tt.status, got, tt.want)
		}
	}
}

func TestIOStreamsOnBuffers(t *testing.T) {
	env := map[string]string{"TERM": "xterm-256color"}
	s := newIOStreams(nil, os.Stderr, nil, func(k string) string { return env[k] })
	if s.InTTY || s.ErrTTY {
		t.Errorf("non-file streams reported as terminals: %+v", s)
	}
	env["NO_COLOR"] = "1"
	s = newIOStreams(os.Stdin, os.Stdout, os.Stderr, func(k string) string { return env[k] })
	if s.Color {
		t.Error("NO_COLOR is set but colour is enabled")
	}
}
