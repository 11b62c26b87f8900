package cmd

import (
	"runtime"
	"runtime/debug"
	"testing"
)

func TestResolveVersion(t *testing.T) {
	vcs := func(rev, at, modified string) *debug.BuildInfo {
		return &debug.BuildInfo{
			GoVersion: "go1.26.8",
			Main:      debug.Module{Path: "github.com/superbiz/superbiz", Version: "(devel)"},
			Settings: []debug.BuildSetting{
				{Key: "vcs.revision", Value: rev},
				{Key: "vcs.time", Value: at},
				{Key: "vcs.modified", Value: modified},
			},
		}
	}
	tests := []struct {
		name                  string
		ldV, ldC, ldD         string
		bi                    *debug.BuildInfo
		version, commit, date string
	}{
		{"ldflags win", "1.2.3", "abc1234", "2026-01-02T03:04:05Z", vcs("ffffffffffffffffffff", "2025-01-01T00:00:00Z", "true"), "1.2.3", "abc1234", "2026-01-02T03:04:05Z"},
		{"vcs fallback", "", "", "", vcs("0123456789abcdef0123", "2025-05-06T07:08:09Z", "false"), "dev", "0123456789ab", "2025-05-06T07:08:09Z"},
		{"dirty tree", "", "", "", vcs("0123456789abcdef0123", "2025-05-06T07:08:09Z", "true"), "dev", "0123456789ab-dirty", "2025-05-06T07:08:09Z"},
		{"module version", "", "", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.3.0"}}, "v0.3.0", "unknown", "unknown"},
		{"no build info", "", "", "", nil, "dev", "unknown", "unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := resolveVersion(tt.ldV, tt.ldC, tt.ldD, tt.bi)
			if v.Version != tt.version || v.Commit != tt.commit || v.Date != tt.date {
				t.Errorf("got %q %q %q, want %q %q %q", v.Version, v.Commit, v.Date, tt.version, tt.commit, tt.date)
			}
			if v.OS != runtime.GOOS || v.Arch != runtime.GOARCH || v.GoVersion == "" {
				t.Errorf("platform fields %+v", v)
			}
		})
	}
	v := resolveVersion("1.2.3", "abc1234", "2026-01-02", nil)
	want := "superbiz 1.2.3 (commit abc1234, built 2026-01-02, " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + ")"
	if v.String() != want {
		t.Errorf("String() = %q, want %q", v.String(), want)
	}
}
