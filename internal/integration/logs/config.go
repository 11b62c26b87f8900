package logs

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/loglayout"
)

// Config is the [[logs]] share of the configuration: the rules of each entry
// its tags cannot state (name, paths, time zone, a custom layout) and its
// summary lines, and its globs resolved at load. The table itself is
// declared in pkg/tools/logs.
func (Source) Config() config.Part {
	return config.Part{Table: "logs", Paths: resolvePaths, Check: checkConfig, Summary: summaryLines, Example: example, Docs: keyDocs()}
}

// resolvePaths makes every entry's globs absolute.
func resolvePaths(cfg *config.Config, r config.Paths) []string {
	for i := range cfg.Logs {
		cfg.Logs[i].Paths = r.All(cfg.Logs[i].Paths)
	}
	return nil
}

// checkConfig reports, per entry in declaration order, a missing or bad
// glob, a custom layout key at fault and an unknown zone (config checks
// the names of every array of tables).
func checkConfig(cfg *config.Config, c *config.Checker) {
	for i, s := range cfg.Logs {
		key := func(k string) string { return fmt.Sprintf("logs[%d].%s", i, k) }
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
		if s.Location == nil {
			if _, err := config.LoadLocation(s.Timezone); err != nil || s.Timezone == "" {
				c.Bad(key("timezone"), config.Show(s.Timezone), `not a known time zone, write an IANA name such as "Asia/Shanghai", "UTC" or "Local"`)
			}
		}
	}
}

// layout checks an entry's custom layout keys and returns the problem of
// each key at fault (pattern, time_layout, sample).
func layout(s config.LogSource) map[string]string {
	probs := map[string]string{}
	if s.Format != config.FormatCustom {
		for key, val := range map[string]string{loglayout.KeyPattern: s.Pattern, loglayout.KeyTimeLayout: s.TimeLayout, loglayout.KeySample: s.Sample} {
			if val != "" {
				probs[key] = fmt.Sprintf("used only with format = %q (format is %q): set format = %q or remove %s", config.FormatCustom, s.Format, config.FormatCustom, key)
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
		if loc, lerr = config.LoadLocation(s.Timezone); lerr != nil {
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
	for _, s := range cfg.Logs {
		skip := []string{"name", "paths"}
		if s.Format != config.FormatCustom { // the layout keys are unused: not shown
			skip = append(skip, "pattern", "time_layout", "sample")
		}
		if s.Service == "" { // unset: the entries' own services
			skip = append(skip, "service")
		}
		lines = append(lines, fmt.Sprintf("logs %s: %s (%s)", s.Name, config.ListOrNone(s.Paths), cfg.Pairs("", s, skip...)))
	}
	if len(cfg.Logs) == 0 {
		lines = append(lines, "logs: none configured")
	}
	return lines
}

// example is the [[logs]] entry of SPEC and the registry's tests.
const example = `[[logs]]
name = "app"
paths = ["/var/log/app/*.log"]
`
