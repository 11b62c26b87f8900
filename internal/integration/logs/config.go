package logs

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/loglayout"
	"github.com/superbiz/superbiz/pkg/defaults"
	"github.com/superbiz/superbiz/pkg/egress"
	logtool "github.com/superbiz/superbiz/pkg/tools/logs"
)

// Config is the [[logs]] share of the configuration: the rules of each entry
// its tags cannot state (name, paths, time zone, a custom layout) and its
// summary lines, each entry's time zone loaded once the file is decoded,
// and its globs resolved at load. The table is declared in pkg/tools/logs
// (logtool.Source's tags) and handed to config by Schema: config has no
// field for it.
func (Source) Config() config.Part {
	return config.Part{Table: table, Schema: []logtool.Source(nil), Decoded: loadZones, Paths: resolvePaths, Resolve: resolveCredentials, Check: checkConfig, Summary: summaryLines, Example: example, Docs: keyDocs()}
}

// table is the key of the [[logs]] table.
const table = "logs"

// Entries are the configuration's [[logs]] entries, as loaded.
func Entries(cfg *config.Config) []logtool.Source {
	return config.TableOf[[]logtool.Source](cfg, table)
}

// NewEntry is a [[logs]] entry holding its declared defaults.
func NewEntry() logtool.Source { return defaults.Of[logtool.Source]() }

// SetEntries replaces the configuration's [[logs]] entries (the demo's,
// eval's recorded ones); other copies of cfg keep theirs.
func SetEntries(cfg *config.Config, es ...logtool.Source) { config.SetTable(cfg, table, es) }

// loadZones loads each decoded entry's time zone by name (Location); an
// unknown one is an error naming its key. An empty name is left for
// checkConfig to report.
func loadZones(cfg *config.Config) error {
	es := slices.Clone(Entries(cfg))
	var errs []error
	for i, s := range es {
		if s.Timezone == "" {
			continue
		}
		loc, err := loadLocation(s.Timezone)
		if err != nil {
			errs = append(errs, &config.KeyError{Key: fmt.Sprintf("logs[%d].timezone", i), Shown: config.Show(s.Timezone), Problem: unknownZone})
			continue
		}
		es[i].Location = loc
	}
	SetEntries(cfg, es...)
	return errors.Join(errs...)
}

// unknownZone is the problem of a timezone no zone database knows.
const unknownZone = `not a known time zone, write an IANA name such as "Asia/Shanghai", "UTC" or "Local"`

// loadLocation loads a zone name; "Local" and "UTC" never touch the zone
// database, and a path is refused.
func loadLocation(name string) (*time.Location, error) {
	if strings.ContainsAny(name, "\x00") || strings.HasPrefix(name, "/") || strings.Contains(name, "..") {
		return nil, errors.New("invalid zone name")
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("time zone %q: %w", name, err)
	}
	return loc, nil
}

// resolveCredentials reads each victorialogs entry's secret from the
// variable its bearer_token_env (or else password_env) names; an unset
// variable leaves it empty, for Build and doctor to report.
func resolveCredentials(cfg *config.Config, getenv func(string) string) {
	es := slices.Clone(Entries(cfg))
	for i, s := range es {
		switch {
		case s.BearerTokenEnv != "":
			es[i].Secret = config.NewSecret(getenv(s.BearerTokenEnv))
		case s.PasswordEnv != "":
			es[i].Secret = config.NewSecret(getenv(s.PasswordEnv))
		}
	}
	SetEntries(cfg, es...)
}

// vlOnly are the keys of a victorialogs source, with their values in s
// ("" when unset).
func vlOnly(s logtool.Source) []struct{ key, val string } {
	return []struct{ key, val string }{
		{"url", s.URL}, {"tenant", s.Tenant}, {"username", s.Username}, {"password_env", s.PasswordEnv},
		{"bearer_token_env", s.BearerTokenEnv}, {"filter", s.Filter}, {"level_field", s.LevelField}, {"service_field", s.ServiceField},
	}
}

// checkVictoriaLogs reports the problems of a backend = "victorialogs"
// entry: its url, tenant, credentials and field names, and any key of a
// files source.
func checkVictoriaLogs(i int, s logtool.Source, c *config.Checker) {
	key := func(k string) string { return fmt.Sprintf("logs[%d].%s", i, k) }
	if msg := config.BaseURLProblem(s.URL, "http://127.0.0.1:9428"); msg != "" {
		c.Bad(key("url"), config.Show(egress.Mask(s.URL).String()), msg)
	}
	if s.Tenant != "" && !validTenant(s.Tenant) {
		c.Bad(key("tenant"), config.Show(s.Tenant), `must be "AccountID:ProjectID", two numbers, e.g. "12:0"`)
	}
	c.Auth(fmt.Sprintf("logs[%d]", i), s.HTTPAuth)
	for _, f := range []struct{ key, val string }{{"level_field", s.LevelField}, {"service_field", s.ServiceField}} {
		if f.val != "" && strings.TrimSpace(f.val) != f.val {
			c.Bad(key(f.key), config.Show(f.val), "a field name without surrounding spaces, e.g. \"severity\"")
		}
	}
	if strings.TrimSpace(s.Filter) == "" && s.Filter != "" {
		c.Bad(key("filter"), config.Show(s.Filter), `blank: write a LogsQL stream filter such as '{namespace="shop"}' or remove filter`)
	}
	filesOnly := "used only with backend = \"files\": a victorialogs source reads the store at url"
	if len(s.Paths) > 0 {
		c.Bad(key("paths"), config.ListOrNone(s.Paths), filesOnly+"; remove paths")
	}
	if s.Format != logtool.FormatAuto {
		c.Bad(key("format"), config.Show(s.Format), filesOnly+"; remove format")
	}
	for _, k := range []struct{ key, val string }{
		{loglayout.KeyPattern, s.Pattern}, {loglayout.KeyTimeLayout, s.TimeLayout}, {loglayout.KeySample, s.Sample},
		{"service", s.Service},
	} {
		if k.val != "" {
			c.Bad(key(k.key), config.Show(k.val), filesOnly+"; remove "+k.key+" (service_field names the field holding the service)")
		}
	}
}

// validTenant reports whether t is "AccountID:ProjectID" of two uint32.
func validTenant(t string) bool {
	a, p, ok := strings.Cut(t, ":")
	_, errA := strconv.ParseUint(a, 10, 32)
	_, errP := strconv.ParseUint(p, 10, 32)
	return ok && errA == nil && errP == nil
}

// resolvePaths makes every entry's globs absolute.
func resolvePaths(cfg *config.Config, r config.Paths) []string {
	es := slices.Clone(Entries(cfg))
	for i := range es {
		es[i].Paths = r.All(es[i].Paths)
	}
	SetEntries(cfg, es...)
	return nil
}

// checkConfig reports, per entry in declaration order, a missing or bad
// glob, a custom layout key at fault and an unknown zone (config checks
// the names of every array of tables).
func checkConfig(cfg *config.Config, c *config.Checker) {
	for i, s := range Entries(cfg) {
		key := func(k string) string { return fmt.Sprintf("logs[%d].%s", i, k) }
		if s.Location == nil {
			if _, err := loadLocation(s.Timezone); err != nil || s.Timezone == "" {
				c.Bad(key("timezone"), config.Show(s.Timezone), unknownZone)
			}
		}
		if s.Backend == logtool.BackendVictoriaLogs {
			checkVictoriaLogs(i, s, c)
			continue
		}
		for _, k := range vlOnly(s) {
			if k.val != "" {
				c.Bad(key(k.key), config.Show(k.val), "used only with backend = \"victorialogs\": set backend = \"victorialogs\" or remove "+k.key)
			}
		}
		if len(s.Paths) == 0 {
			c.Bad(key("paths"), "[]", `must list at least one file or glob, e.g. ["/var/log/app/*.log"]`)
		}
		for j, p := range s.Paths {
			pk := fmt.Sprintf("%s[%d]", key("paths"), j)
			if strings.TrimSpace(p) == "" {
				c.Bad(pk, `""`, "empty: write a file path or glob")
				continue
			}
			if _, err := filepath.Match(p, ""); err != nil {
				c.Bad(pk, config.Show(p), "not a valid glob pattern (check the [ ] brackets)")
			}
		}
		layoutProblems := layout(s)
		for _, k := range []struct{ key, val string }{
			{loglayout.KeyPattern, s.Pattern}, {loglayout.KeyTimeLayout, s.TimeLayout}, {loglayout.KeySample, s.Sample},
		} {
			if problem := layoutProblems[k.key]; problem != "" {
				c.Bad(key(k.key), config.Show(k.val), problem)
			}
		}
	}
}

// layout checks an entry's custom layout keys and returns the problem of
// each key at fault (pattern, time_layout, sample).
func layout(s logtool.Source) map[string]string {
	probs := map[string]string{}
	if s.Format != logtool.FormatCustom {
		for key, val := range map[string]string{loglayout.KeyPattern: s.Pattern, loglayout.KeyTimeLayout: s.TimeLayout, loglayout.KeySample: s.Sample} {
			if val != "" {
				probs[key] = fmt.Sprintf("used only with format = %q (format is %q): set format = %q or remove %s", logtool.FormatCustom, s.Format, logtool.FormatCustom, key)
			}
		}
		return probs
	}
	l, err := loglayout.Compile(s.Pattern, s.TimeLayout)
	var le *loglayout.Error
	switch {
	case errors.As(err, &le):
		probs[le.Key] = le.Problem
		return probs
	case err != nil:
		probs[loglayout.KeyPattern] = err.Error()
		return probs
	}
	if s.Sample == "" {
		return probs
	}
	loc := s.Location
	if loc == nil {
		var lerr error
		if loc, lerr = loadLocation(s.Timezone); lerr != nil {
			loc = time.UTC // the timezone key reports its own problem
		}
	}
	if err := l.CheckSample(s.Sample, loc); errors.As(err, &le) {
		probs[le.Key] = le.Problem
	}
	return probs
}

// summaryLines is one line per source: its paths and the keys that apply to it
// (the layout keys only with format = "custom", service only when set).
func summaryLines(cfg *config.Config) []string {
	var lines []string
	for _, s := range Entries(cfg) {
		if s.Backend == logtool.BackendVictoriaLogs {
			lines = append(lines, fmt.Sprintf("logs %s: victorialogs %s (%s, auth %s)", s.Name, egress.Mask(s.URL).String(),
				cfg.Pairs("", s, "name", "url", "paths", "format", "pattern", "time_layout", "sample", "service", "backend", "bearer_token_env", "username", "password_env"), s.Auth()))
			continue
		}
		skip := []string{"name", "paths", "backend", "url", "tenant", "username", "password_env", "bearer_token_env", "filter", "level_field", "service_field"}
		if s.Format != logtool.FormatCustom { // the layout keys are unused: not shown
			skip = append(skip, "pattern", "time_layout", "sample")
		}
		if s.Service == "" { // unset: the entries' own services
			skip = append(skip, "service")
		}
		lines = append(lines, fmt.Sprintf("logs %s: %s (%s)", s.Name, config.ListOrNone(s.Paths), cfg.Pairs("", s, skip...)))
	}
	if len(Entries(cfg)) == 0 {
		lines = append(lines, "logs: none configured")
	}
	return lines
}

// example is the [[logs]] entry of SPEC and the registry's tests.
const example = `[[logs]]
name = "app"
paths = ["/var/log/app/*.log"]
`
