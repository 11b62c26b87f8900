package testenv

import (
	"errors"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A missing prerequisite skips with the reason on a developer machine and
// fails under CI=true naming what CI must provide; any other CI value is a
// developer machine.
func TestMissing(t *testing.T) {
	for _, tc := range []struct {
		ci       string
		wantFail bool
	}{{"", false}, {"1", false}, {"true", true}} {
		t.Setenv(EnvCI, tc.ci)
		r := &Recorder{TB: t}
		Missing(r, "no widget server", "start it in .ci/run")
		if tc.wantFail && (!strings.Contains(r.FatalMsg, "no widget server") || !strings.Contains(r.FatalMsg, "start it in .ci/run") || r.SkipMsg != "") {
			t.Errorf("CI=%q: fatal %q, skip %q; want a failure with the reason and the fix", tc.ci, r.FatalMsg, r.SkipMsg)
		}
		if !tc.wantFail && (r.FatalMsg != "" || r.SkipMsg != "no widget server") {
			t.Errorf("CI=%q: fatal %q, skip %q; want a skip with the reason", tc.ci, r.FatalMsg, r.SkipMsg)
		}
	}
}

// The CapEff line decides the capability: set, cleared, unreadable.
func TestEffective(t *testing.T) {
	const other = "Name:\tgo\nCapInh:\t0000000000000000\nCapPrm:\t000001ffffffffff\n"
	for _, tc := range []struct {
		status  string
		want    bool
		wantErr bool
	}{
		{other + "CapEff:\t000001ffffffffff\n", true, false},
		{other + "CapEff:\t00000000a80425fb\n", false, false}, // Docker's default set: no CAP_SYS_ADMIN
		{other + "CapEff:\t0000000000200000\n", true, false},  // CAP_SYS_ADMIN alone
		{other + "CapEff:\tzz\n", false, true},
		{other, false, true},
	} {
		got, err := effective(strings.NewReader(tc.status), capSysAdmin)
		if got != tc.want || (err != nil) != tc.wantErr {
			t.Errorf("effective(%q) = %v, %v; want %v, error %v", tc.status, got, err, tc.want, tc.wantErr)
		}
	}
}

// A failed mount without CAP_SYS_ADMIN skips even under CI, naming the
// documented reason; with the capability, or when it cannot be read, the
// failure is Missing's: a skip on a developer machine, a failure under CI.
func TestMountFailed(t *testing.T) {
	denied := errors.New("mount tmpfs: operation not permitted")
	for _, tc := range []struct {
		ci, has  bool
		capErr   error
		wantFail bool
		wantSkip string
	}{
		{ci: true, has: false, wantSkip: NoMountReason},
		{ci: false, has: false, wantSkip: NoMountReason},
		{ci: true, has: true, wantFail: true},
		{ci: false, has: true, wantSkip: "CAP_SYS_ADMIN in the effective set: true"},
		{ci: true, capErr: errors.New("no /proc"), wantFail: true},
	} {
		ci := ""
		if tc.ci {
			ci = "true"
		}
		t.Setenv(EnvCI, ci)
		r := &Recorder{TB: t}
		mountFailed(r, denied, "another test covers it", tc.has, tc.capErr)
		if tc.wantFail != (r.FatalMsg != "") || (tc.wantFail && !strings.Contains(r.FatalMsg, "operation not permitted")) {
			t.Errorf("CI %v, capability %v (%v): fatal %q, want failing %v", tc.ci, tc.has, tc.capErr, r.FatalMsg, tc.wantFail)
		}
		if !tc.wantFail && (!strings.Contains(r.SkipMsg, tc.wantSkip) || !strings.Contains(r.SkipMsg, "another test covers it")) {
			t.Errorf("CI %v, capability %v: skip %q, want one naming %q and the covering test", tc.ci, tc.has, r.SkipMsg, tc.wantSkip)
		}
	}
}

// TestClosedURL: the URL is loopback http on a port that refuses, never a
// default server port.
func TestClosedURL(t *testing.T) {
	u := ClosedURL(t)
	host, ok := strings.CutPrefix(u, "http://127.0.0.1:")
	if !ok {
		t.Fatalf("ClosedURL = %q, want http://127.0.0.1:PORT", u)
	}
	for _, def := range []string{"11434", "9090", "9093", "3306", "5432"} {
		if host == def {
			t.Fatalf("ClosedURL = %q, a default server port", u)
		}
	}
	c, err := net.DialTimeout("tcp", strings.TrimPrefix(u, "http://"), 2*time.Second)
	if err == nil {
		c.Close()
		t.Fatalf("dialing %s succeeded, want it refused", u)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("dialing %s: %v, want connection refused", u, err)
	}
}

// BuildEnv drops -race from GOFLAGS and keeps every other flag and variable.
func TestBuildEnv(t *testing.T) {
	t.Setenv("GOFLAGS", "-mod=mod -race -trimpath")
	t.Setenv("SUPERBIZ_BUILDENV_PROBE", "kept")
	var goflags, probe string
	n := 0
	for _, kv := range BuildEnv() {
		if v, ok := strings.CutPrefix(kv, "GOFLAGS="); ok {
			goflags, n = v, n+1
		}
		if v, ok := strings.CutPrefix(kv, "SUPERBIZ_BUILDENV_PROBE="); ok {
			probe = v
		}
	}
	if goflags != "-mod=mod -trimpath" || n != 1 || probe != "kept" {
		t.Errorf("GOFLAGS %q (%d times), probe %q; want -mod=mod -trimpath once and the probe kept", goflags, n, probe)
	}
}
