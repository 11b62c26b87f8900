// Package testenv decides what a test does when something it needs from the
// machine is missing (a server, a binary, a privilege): on a developer
// machine it skips and says why; under CI (CI=true) it fails, because CI
// promises everything the tests use. The one exception is a property CI
// documents (CONTRIBUTING.md): the skip then names it and is counted.
package testenv

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/reliability"
)

// EnvCI is the variable CI sets to "true"; .ci/run exports it.
const EnvCI = "CI"

// CI reports whether the tests run under CI, where a missing prerequisite is
// a broken environment rather than a developer machine without it.
func CI() bool { return os.Getenv(EnvCI) == "true" }

// Missing stops a test whose prerequisite is absent: a skip saying why on a
// developer machine, a failure naming what CI must provide (ciFix) under CI.
func Missing(t testing.TB, why, ciFix string) {
	t.Helper()
	if CI() {
		t.Fatalf("%s under %s=true: %s", why, EnvCI, ciFix)
		return
	}
	t.Skipf("%s", why)
}

// SkipShort skips a slow test under go test -short, the fast loop
// CONTRIBUTING.md describes; what says what makes the test slow.
func SkipShort(t testing.TB, what string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("-short: %s", what)
	}
}

// ClosedURL is an http URL on a loopback port nothing listens on (taken
// and released), for a test that needs a server which cannot answer: no
// test may reach a default port such as Ollama's 11434, whatever runs there.
func ClosedURL(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen for a closed port: %v", err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatalf("close the listener of a closed port: %v", err)
	}
	return "http://" + addr
}

// capSysAdmin is the capability mount(2) needs (linux/capability.h).
const capSysAdmin = 21

// NoMountReason is the documented property of a CI container that lets a
// mount test skip even there: the process lacks CAP_SYS_ADMIN.
const NoMountReason = "this process has no CAP_SYS_ADMIN (an unprivileged container or user), so it cannot mount; CONTRIBUTING.md documents this skip"

// MountFailed decides a test whose mount failed with err. Without
// CAP_SYS_ADMIN no mount can work, a documented property of some CI
// containers: the test skips everywhere, saying so, and the skip is recorded
// as a reliability figure so a run counts it. With the capability the mount
// should have worked: Missing decides (a failure under CI). covered names
// what still tests the behaviour when this test cannot run.
func MountFailed(t testing.TB, err error, covered string) {
	t.Helper()
	has, capErr := hasCapability(capSysAdmin)
	mountFailed(t, err, covered, has, capErr)
}

// mountFailed is MountFailed once the capability is known (capErr when it
// could not be read).
func mountFailed(t testing.TB, err error, covered string, has bool, capErr error) {
	t.Helper()
	if capErr == nil && !has {
		reliability.Record(t, reliability.SectionMutation, "skipped: cannot mount", map[string]any{"test": t.Name(), "outcome": "skipped: no CAP_SYS_ADMIN"})
		t.Skipf("%v: %s; %s", err, NoMountReason, covered)
		return
	}
	why := fmt.Sprintf("%v (CAP_SYS_ADMIN in the effective set: %v, error reading it: %v); %s", err, has, capErr, covered)
	Missing(t, why, "CI runs as root with CAP_SYS_ADMIN, so mounting a tmpfs must work; find what denied it")
}

// hasCapability reads the effective capability set of this process from
// /proc/self/status (Linux only; elsewhere it returns an error).
func hasCapability(bit uint) (bool, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return false, fmt.Errorf("read capabilities: %w", err)
	}
	defer f.Close()
	return effective(f, bit)
}

// effective reports whether the CapEff line of a /proc/PID/status text
// holds capability bit.
func effective(status io.Reader, bit uint) (bool, error) {
	sc := bufio.NewScanner(status)
	for sc.Scan() {
		hex, ok := strings.CutPrefix(sc.Text(), "CapEff:")
		if !ok {
			continue
		}
		set, err := strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
		if err != nil {
			return false, fmt.Errorf("parse CapEff %q: %w", strings.TrimSpace(hex), err)
		}
		return set&(1<<bit) != 0, nil
	}
	if err := sc.Err(); err != nil {
		return false, fmt.Errorf("read capabilities: %w", err)
	}
	return false, errors.New("no CapEff line in the process status")
}

// Recorder is a testing.TB that notes Fatalf and Skipf instead of stopping,
// so a test can check what a helper built on Missing decided.
type Recorder struct {
	testing.TB
	// FatalMsg and SkipMsg are the last failure and skip messages.
	FatalMsg, SkipMsg string
}

// Fatalf notes the failure message and lets the caller go on.
func (r *Recorder) Fatalf(format string, args ...any) { r.FatalMsg = fmt.Sprintf(format, args...) }

// Skipf notes the skip message and lets the caller go on.
func (r *Recorder) Skipf(format string, args ...any) { r.SkipMsg = fmt.Sprintf(format, args...) }

// Helper does nothing: the recorder is not the test that reports lines.
func (r *Recorder) Helper() {}

// BuildEnv is the environment for a test's `go build` of the superbiz
// binary: this process's, with -race taken out of GOFLAGS. CI runs the
// README's `go test ./...` with GOFLAGS=-race for the test processes; the
// binary the end-to-end tests drive is built as a user builds it, so its
// times and memory (docs/RELIABILITY.md) are a user's.
func BuildEnv() []string {
	env := os.Environ()
	for i, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GOFLAGS="); ok {
			var kept []string
			for _, f := range strings.Fields(v) {
				if f != "-race" && f != "-race=true" {
					kept = append(kept, f)
				}
			}
			env[i] = "GOFLAGS=" + strings.Join(kept, " ")
		}
	}
	return env
}
