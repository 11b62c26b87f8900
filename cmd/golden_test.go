package cmd

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/superbiz/superbiz/internal/doctor"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd -run %s -update to create it)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("output differs from %s (run with -update after checking the change):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

func TestHelpGolden(t *testing.T) {
	for _, tt := range []struct {
		file string
		args []string
	}{
		{"help.golden", []string{"--help"}},
		{"doctor-help.golden", []string{"doctor", "--help"}},
	} {
		code, out, errOut := cli(t, nil, tt.args...)
		if code != ExitOK || errOut != "" {
			t.Fatalf("%q: exit %d, stderr %q", tt.args, code, errOut)
		}
		golden(t, tt.file, out)
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
