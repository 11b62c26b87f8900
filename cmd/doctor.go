package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/runstore"
	"github.com/superbiz/superbiz/internal/tools/knowledge"
	"github.com/superbiz/superbiz/internal/tools/logs"
	"github.com/superbiz/superbiz/pkg/redact"
)

// checkStatus is how one doctor check ended; only checkFail fails doctor.
type checkStatus int

const (
	checkPass checkStatus = iota
	checkWarn
	checkFail
	checkSkip
)

// checkResult is one line of `superbiz doctor`: what was checked, what was
// found, and for anything not fine, the fix. JSON output is an array of these.
type checkResult struct {
	Check  string `json:"check"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
	Hint   string `json:"hint"`
	status checkStatus
}

func pass(check, detail string) checkResult {
	return checkResult{Check: check, OK: true, Detail: detail, status: checkPass}
}

func warn(check, detail, hint string) checkResult {
	return checkResult{Check: check, OK: true, Detail: detail, Hint: hint, status: checkWarn}
}

func fail(check, detail, hint string) checkResult {
	return checkResult{Check: check, OK: false, Detail: detail, Hint: hint, status: checkFail}
}

func skip(check, detail string) checkResult {
	return checkResult{Check: check, OK: false, Detail: detail, status: checkSkip}
}

// doctorTimeout bounds each network check, so a black-holed host cannot hang
// doctor.
const doctorTimeout = 10 * time.Second

func (a *app) newDoctorCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "Check the configuration, run store, Ollama, model and every source",
		Long: `Check everything a diagnosis needs, one line per check: the configuration
file, the run store, Ollama reachable, the model present and able to call
tools, each knowledge path, each log source, each database, each metrics
source (a trivial query) and the Alertmanager of [alerts] when one is
configured. Each failure
comes with a hint that names the fix. Exits 1 when any check fails (warnings
do not fail), 2 when the configuration does not load.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			results, cfgErr := a.doctor(cmd.Context(), cmd)
			if err := a.printChecks(results); err != nil {
				return err
			}
			failed := 0
			for _, r := range results {
				if r.status == checkFail {
					failed++
				}
			}
			switch {
			case cfgErr != nil:
				// A configuration that does not load is a configuration error.
				return &ExitError{Code: ExitUsage, Err: errors.New("doctor: the configuration does not load")}
			case failed > 0:
				return &ExitError{Code: ExitFailed, Err: fmt.Errorf("doctor: %d of %d checks failed", failed, len(results))}
			}
			return nil
		},
	}
}

// doctor runs every check in order. A configuration that does not load stops
// it there, reported both as the failed config check and as the error: every
// other check depends on what the file says.
func (a *app) doctor(ctx context.Context, cmd *cobra.Command) ([]checkResult, error) {
	cfg, err := a.loadConfig(cmd)
	if err != nil {
		return []checkResult{fail("config", err.Error(), "fix the configuration (see `superbiz --help` and the README), then run `superbiz doctor` again")}, err
	}
	results := []checkResult{configCheck(cfg)}
	results = append(results, runStoreCheck(ctx, cfg.DBPath))
	results = append(results, a.modelChecks(ctx, cfg)...)
	results = append(results, knowledgeChecks(ctx, cfg)...)
	results = append(results, embedCheck(ctx, cfg))
	results = append(results, logChecks(ctx, cfg)...)
	results = append(results, a.databaseChecks(ctx, cfg)...)
	results = append(results, metricsChecks(ctx, cfg)...)
	results = append(results, a.alertsChecks(ctx, cfg)...)
	return results, nil
}

func configCheck(cfg *config.Config) checkResult {
	where := "defaults (no config file)"
	if cfg.File != "" {
		where = cfg.File
	}
	return pass("config", fmt.Sprintf("%s; model %s%s at %s%s", where,
		cfg.Model.Name, from(cfg, "model.name"), cfg.Model.Host.Redacted(), from(cfg, "model.host")))
}

// from names the flag or variable that set key, so a surprising value can be
// traced ("" when it came from the file or the defaults).
func from(cfg *config.Config, key string) string {
	if o := cfg.Origin(key); o != "" {
		return " (from " + o + ")"
	}
	return ""
}

func runStoreCheck(ctx context.Context, path string) checkResult {
	st, err := runstore.Open(ctx, path)
	if err != nil {
		return fail("run store", err.Error(), "make the directory writable, or choose another file with --db or SUPERBIZ_DB")
	}
	if err := st.Close(); err != nil {
		return fail("run store", fmt.Sprintf("%s: close: %v", path, err), "make the directory writable, or choose another file with --db or SUPERBIZ_DB")
	}
	return pass("run store", path+" opens and is migrated")
}

// knowledgeChecks checks each knowledge path as `kb index` reads it: it
// exists, is a directory (or file) of Markdown, and nothing under it is left
// out (links leading outside, special files, oversized runbooks). A missing
// default ./runbooks is only a warning: superbiz runs without runbooks, and
// the user never asked for that path.
func knowledgeChecks(ctx context.Context, cfg *config.Config) []checkResult {
	var out []checkResult
	for _, p := range cfg.Knowledge.Paths {
		const name = "knowledge"
		_, err := os.Stat(p)
		if err != nil {
			detail := fmt.Sprintf("%s: %v", p, errors.Unwrap(err))
			if errors.Is(err, fs.ErrNotExist) {
				detail = p + " does not exist"
			}
			hint := "create it or fix knowledge.paths in " + cfg.File
			if cfg.File == "" {
				out = append(out, warn(name, detail, "put the team's Markdown runbooks there, or list their directories in knowledge.paths of a config file"))
				continue
			}
			out = append(out, fail(name, detail, hint))
			continue
		}
		inv, err := knowledge.Inspect(ctx, []string{p})
		if err != nil {
			out = append(out, fail(name, err.Error(), "list directories of Markdown runbooks in knowledge.paths"))
			continue
		}
		if inv.ExcludedTotal > 0 {
			out = append(out, warn(name, fmt.Sprintf("%s: %d Markdown file(s); %s", p, inv.Files, excludedDetail(inv)),
				"run `superbiz kb index` for the full list; fix or remove those files"))
			continue
		}
		if inv.Files == 0 {
			out = append(out, warn(name, p+" holds no Markdown (*.md) files", "add the team's runbooks as .md files"))
			continue
		}
		out = append(out, pass(name, fmt.Sprintf("%s: %d Markdown file(s)", p, inv.Files)))
	}
	return out
}

// excludedDetail names the first few files a knowledge path leaves out.
func excludedDetail(inv knowledge.Inventory) string {
	const shown = 3
	parts := make([]string, 0, shown)
	for i, e := range inv.Excluded {
		if i == shown {
			break
		}
		parts = append(parts, redact.StripControl(e.String()))
	}
	s := fmt.Sprintf("%d not indexed: %s", inv.ExcludedTotal, strings.Join(parts, "; "))
	if more := inv.ExcludedTotal - len(parts); more > 0 {
		s += fmt.Sprintf("; and %d more", more)
	}
	return s
}

// logChecks checks that each log source's globs match files query_logs can
// read and says how they read (layouts, share of sampled lines placed in
// time, time range), naming the files a call would skip and why (a
// truncated or corrupt gzip, binary data, no recognisable timestamps).
func logChecks(ctx context.Context, cfg *config.Config) []checkResult {
	var out []checkResult
	for _, src := range cfg.Logs {
		name := "logs " + src.Name
		in, err := logs.Inspect(ctx, src, logs.InspectOptions{})
		fixHint := "fix or remove the files listed, or narrow the paths (globs) of log source " + src.Name + " in " + cfg.File
		switch {
		case err != nil:
			out = append(out, fail(name, err.Error(), "fix the paths of log source "+src.Name+" in "+cfg.File))
		case in.Files == 0:
			out = append(out, fail(name, "no file matches "+strings.Join(src.Paths, ", "), "check the paths (globs) of log source "+src.Name+" in "+cfg.File+" and that the files are readable by this user"))
		case len(in.Reports) == 0 && len(in.Skipped) > 0:
			out = append(out, fail(name, fmt.Sprintf("%d file(s) match, all would be skipped:%s", in.Files, skippedLines(in)), fixHint))
		case len(in.Skipped) > 0:
			out = append(out, warn(name, fmt.Sprintf("%d file(s) match, %d would be skipped%s:%s", in.Files, len(in.Skipped), inspectionSummary(in), skippedLines(in)), fixHint))
		default:
			out = append(out, pass(name, fmt.Sprintf("%d file(s) match%s%s", in.Files, inspectionSummary(in), limitNote(in))))
		}
	}
	return out
}

// maxDoctorSkipped bounds the skipped files doctor lists per source.
const maxDoctorSkipped = 10

// skippedLines lists skipped files one per line: path, reason, the error.
func skippedLines(in logs.Inspection) string {
	var b strings.Builder
	for i, s := range in.Skipped {
		if i == maxDoctorSkipped {
			fmt.Fprintf(&b, "\n  ... and %d more", len(in.Skipped)-i)
			break
		}
		fmt.Fprintf(&b, "\n  %s: %s (%v)", s.File, s.Reason, s.Err)
	}
	return b.String() + limitNote(in)
}

// limitNote says when the check stopped at the per-call limits, so files
// past that point were not checked.
func limitNote(in logs.Inspection) string {
	if len(in.TruncatedBy) == 0 {
		return ""
	}
	return "\n  (checked within the per-call limits; stopped by " + strings.Join(in.TruncatedBy, ", ") + ": later files not checked)"
}

// printChecks writes the results as lines (a mark, the check, the detail, a
// hint line under anything not fine) or, with -o json, as one array.
func (a *app) printChecks(results []checkResult) error {
	if a.flags.output == outputJSON {
		if results == nil {
			results = []checkResult{}
		}
		return writeJSON(a.io.Out, results)
	}
	width := 0
	for _, r := range results {
		width = max(width, len(r.Check))
	}
	for _, r := range results {
		if err := a.printCheck(a.io.Out, r, width); err != nil {
			return err
		}
	}
	return nil
}

func (a *app) printCheck(w io.Writer, r checkResult, width int) error {
	mark := a.mark(r.status)
	// Continuation lines of a multi-line detail line up under its first line.
	detail := strings.ReplaceAll(r.Detail, "\n", "\n"+strings.Repeat(" ", a.markWidth()+1+width+2))
	if _, err := fmt.Fprintf(w, "%s %-*s  %s\n", mark, width, r.Check, detail); err != nil {
		return fmt.Errorf("write doctor output: %w", err)
	}
	if r.Hint != "" {
		if _, err := fmt.Fprintf(w, "%s %-*s  hint: %s\n", strings.Repeat(" ", a.markWidth()), width, "", r.Hint); err != nil {
			return fmt.Errorf("write doctor output: %w", err)
		}
	}
	return nil
}

// markWidth is the visible width of a mark, for aligning hint lines.
func (a *app) markWidth() int {
	if !a.io.OutTTY {
		return 4
	}
	return 1
}

// mark is the status symbol: ✓ ✗ ! - on a terminal (coloured unless
// NO_COLOR), plain ASCII words when piped so scripts and logs stay readable.
func (a *app) mark(s checkStatus) string {
	if !a.io.OutTTY {
		return [...]string{checkPass: "ok  ", checkWarn: "warn", checkFail: "FAIL", checkSkip: "skip"}[s]
	}
	sym := [...]string{checkPass: "✓", checkWarn: "!", checkFail: "✗", checkSkip: "-"}[s]
	if !a.io.Color {
		return sym
	}
	color := [...]string{checkPass: "32", checkWarn: "33", checkFail: "31", checkSkip: "2"}[s]
	return "\x1b[" + color + "m" + sym + "\x1b[0m"
}
