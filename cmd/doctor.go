package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/spf13/cobra"

	"github.com/superbiz/superbiz/internal/doctor"
	"github.com/superbiz/superbiz/internal/registry"
	"github.com/superbiz/superbiz/pkg/egress"
)

// doctorOptions are what `superbiz doctor` was given: the global flags.
type doctorOptions struct {
	globalOptions
}

// newDoctorCmd is `superbiz doctor`; runF replaces runDoctor (tests), nil
// runs it.
func (a *app) newDoctorCmd(runF func(context.Context, *doctorOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "Check the configuration, run store, model server, model and every source",
		Long: `Check everything a diagnosis needs, one line per check: the configuration
file (the model, the provider and the server URL, and which flag, variable
or file set each), the run store, the model server reachable (Ollama, or an
OpenAI-compatible server with --provider openai), the model present and
able to call tools, each knowledge path, each log source, each database, each metrics
source (a trivial query) and the Alertmanager of [alerts] when one is
configured. Each failure
comes with a hint that names the fix. Exits 1 when any check fails (warnings
do not fail), 2 when the configuration does not load.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runWith(cmd.Context(), &doctorOptions{globalOptions: a.flags.options(cmd)}, runF, a.runDoctor)
		},
	}
}

// runDoctor runs every check and prints one line each.
func (a *app) runDoctor(ctx context.Context, opts *doctorOptions) error {
	results, cfgErr := a.doctor(ctx, opts.globalOptions)
	if err := a.printChecks(results, opts.Output); err != nil {
		return err
	}
	failed := 0
	for _, r := range results {
		if r.Status == doctor.Fail {
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
}

// doctor loads the configuration and runs every check over the registry,
// each integration's own, with the clients a run would use. A configuration that does not load stops it there,
// reported both as the failed config check and as the error.
func (a *app) doctor(ctx context.Context, g globalOptions) ([]doctor.Result, error) {
	cfg, err := a.loadConfigOf(ctx, g)
	if err != nil {
		return []doctor.Result{doctor.ConfigNotLoaded(err)}, err
	}
	return registry.Doctor(ctx, cfg, a.getenv), nil
}

// printChecks writes the results as lines (a mark, the check, the detail, a
// hint line under anything not fine) or, with -o json, as one array.
func (a *app) printChecks(results []doctor.Result, output outputFormat) error {
	if output == outputJSON {
		if results == nil {
			results = []doctor.Result{}
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

func (a *app) printCheck(w egress.Writer, r doctor.Result, width int) error {
	mark := a.mark(r.Status)
	indent := a.markWidth() + 1 + width + 2
	cols := a.io.OutColumns()
	// Continuation lines of a multi-line detail line up under its first line.
	detail := hangingIndent(r.Detail, indent, cols)
	if err := w.Printf("%s %-*s  %s\n", mark, width, r.Check, detail); err != nil {
		return fmt.Errorf("write doctor output: %w", err)
	}
	if r.Hint != "" {
		hint := hangingIndent("hint: "+r.Hint, indent, cols)
		if err := w.Printf("%s %-*s  %s\n", strings.Repeat(" ", a.markWidth()), width, "", hint); err != nil {
			return fmt.Errorf("write doctor output: %w", err)
		}
	}
	return nil
}

// minDoctorText is the narrowest text column doctor wraps to; a terminal
// narrower than the check names plus this is left to wrap by itself.
const minDoctorText = 20

// hangingIndent joins the lines of text with the continuation lines
// indented to column indent and, on a terminal of cols columns (0: piped,
// lines kept whole for scripts), word-wrapped to fit it, so a long detail
// or hint reads as a block under its first line instead of being cut
// mid-word at the edge (issue 40 #13).
func hangingIndent(text string, indent, cols int) string {
	pad := "\n" + strings.Repeat(" ", indent)
	room := cols - indent
	if cols == 0 || room < minDoctorText {
		return strings.ReplaceAll(text, "\n", pad)
	}
	var lines []string
	for l := range strings.SplitSeq(text, "\n") {
		lines = append(lines, wordWrap(l, room)...)
	}
	return strings.Join(lines, pad)
}

// wordWrap breaks line at spaces into lines of at most room columns; only a
// word wider than room is cut (a hyphen is no break: "--host" and
// "payment-service" stay whole).
func wordWrap(line string, room int) []string {
	var lines []string
	cur := ""
	for _, word := range strings.Fields(line) {
		switch {
		case cur == "":
			cur = word
		case ansi.StringWidth(cur)+1+ansi.StringWidth(word) <= room:
			cur += " " + word
		default:
			lines = append(lines, cur)
			cur = word
		}
		if ansi.StringWidth(cur) > room {
			parts := strings.Split(ansi.Hardwrap(cur, room, false), "\n")
			lines = append(lines, parts[:len(parts)-1]...)
			cur = parts[len(parts)-1]
		}
	}
	return append(lines, cur)
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
func (a *app) mark(s doctor.Status) string {
	if !a.io.OutTTY {
		return [...]string{doctor.Pass: "ok  ", doctor.Warn: "warn", doctor.Fail: "FAIL", doctor.Skip: "skip"}[s]
	}
	sym := [...]string{doctor.Pass: "✓", doctor.Warn: "!", doctor.Fail: "✗", doctor.Skip: "-"}[s]
	if !a.io.Color {
		return sym
	}
	color := [...]string{doctor.Pass: "32", doctor.Warn: "33", doctor.Fail: "31", doctor.Skip: "2"}[s]
	return "\x1b[" + color + "m" + sym + "\x1b[0m"
}
