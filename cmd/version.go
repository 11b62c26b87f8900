package cmd

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Set at release time with
// -ldflags "-X github.com/superbiz/superbiz/cmd.version=… -X …cmd.commit=… -X …cmd.date=…";
// empty means "ask the Go build info".
var (
	version string
	commit  string
	date    string
)

// versionInfo is what `superbiz version` reports, so a bug report names the
// exact build.
type versionInfo struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	Date      string `json:"date"`
	GoVersion string `json:"go_version"`
	OS        string `json:"os"`
	Arch      string `json:"arch"`
}

// resolveVersion prefers the ldflags values and falls back, field by field,
// to what the Go toolchain stamped into the binary (module version, VCS
// revision and time, "-dirty" for modified trees), then to "dev"/"unknown".
func resolveVersion(ldVersion, ldCommit, ldDate string, bi *debug.BuildInfo) versionInfo {
	v := versionInfo{
		Version:   ldVersion,
		Commit:    ldCommit,
		Date:      ldDate,
		GoVersion: runtime.Version(),
		OS:        runtime.GOOS,
		Arch:      runtime.GOARCH,
	}
	var revision, vcsTime string
	var modified bool
	if bi != nil {
		if bi.GoVersion != "" {
			v.GoVersion = bi.GoVersion
		}
		if v.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.time":
				vcsTime = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	if v.Commit == "" && revision != "" {
		v.Commit = revision
		if len(v.Commit) > 12 {
			v.Commit = v.Commit[:12]
		}
		if modified {
			v.Commit += "-dirty"
		}
	}
	if v.Date == "" {
		v.Date = vcsTime
	}
	if v.Version == "" {
		v.Version = "dev"
	}
	if v.Commit == "" {
		v.Commit = "unknown"
	}
	if v.Date == "" {
		v.Date = "unknown"
	}
	return v
}

func (v versionInfo) String() string {
	return fmt.Sprintf("superbiz %s (commit %s, built %s, %s %s/%s)", v.Version, v.Commit, v.Date, v.GoVersion, v.OS, v.Arch)
}

// versionOptions are what `superbiz version` (or `--version`) was given:
// the global flags (-o).
type versionOptions struct {
	globalOptions
}

// newVersionCmd is `superbiz version`; runF replaces runVersion (tests),
// nil runs it.
func (a *app) newVersionCmd(runF func(context.Context, *versionOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit and build date",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts := &versionOptions{globalOptions: a.flags.options(cmd)}
			return runWith(cmd.Context(), opts, runF, a.runVersion)
		},
	}
}

// runVersion is `superbiz version` and `superbiz --version`: one line, or
// an object with -o json.
func (a *app) runVersion(_ context.Context, opts *versionOptions) error {
	bi, _ := debug.ReadBuildInfo() // nil when absent: resolveVersion falls back
	v := resolveVersion(version, commit, date, bi)
	if opts.Output == outputJSON {
		return writeJSON(a.io.Out, v)
	}
	return a.io.Out.Printf("%s\n", v.String())
}
