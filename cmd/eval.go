package cmd

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/charmbracelet/x/ansi"
	"github.com/spf13/cobra"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/eval"
	"github.com/superbiz/superbiz/internal/filekind"
	"github.com/superbiz/superbiz/internal/usecase"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/harness"
)

// evalOptions are what `superbiz eval` was given, the global flags
// included.
type evalOptions struct {
	globalOptions
	Suites   []string
	Filter   string
	Repeat   int
	Parallel int
	JUnit    string
	Record   bool
	MinPass  float64
	// MinPassGiven says --min-pass was given: only then does it gate.
	MinPassGiven bool
	Regrade      string
}

// newEvalCmd is `superbiz eval`; runF replaces runEval (tests), nil runs it.
func (a *app) newEvalCmd(runF func(context.Context, *evalOptions) error) *cobra.Command {
	f := &evalOptions{}
	c := &cobra.Command{
		Use:   "eval",
		Short: "Measure how well a model diagnoses, on incident packs graded without a judge model",
		Long: `eval runs every incident pack of the suites through the diagnosis path of
` + "`superbiz diagnose`" + ` (same guards, budgets and redaction), each in its own
temporary workspace and run store with the clock frozen at the pack's now, and
grades the stored runs: outcome, root cause, forbidden claims, cited evidence.
The model comes from the configuration, the environment and the flags
(--provider, --model, --host), exactly as for diagnose: Ollama, or an
OpenAI-compatible server with --provider openai; never from a pack.
Exit codes: 0 the eval ran (whatever the score), 1 pass@1 below --min-pass,
2 a pack could not be loaded or run (it is listed with its error) or a usage
error, 4 the model server failed, 130 cancelled.`,
		Example: `  superbiz eval --suite builtin --model qwen3:8b
  superbiz eval --suite ./packs --filter tls --repeat 3 -o json > results.json
  superbiz eval --suite builtin --min-pass 0.8 --junit eval.xml
  superbiz eval --suite builtin --record --db eval.db -o json > results.json
  superbiz eval --suite builtin --regrade results.json --db eval.db
  superbiz eval compare before.json after.json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f.globalOptions, f.MinPassGiven = a.flags.options(cmd), cmd.Flags().Changed("min-pass")
			return runWith(cmd.Context(), f, runF, a.runEval)
		},
	}
	fl := c.Flags()
	fl.StringArrayVar(&f.Suites, "suite", nil, "a suite: builtin, or a directory of packs (repeatable; default builtin)")
	fl.StringVar(&f.Filter, "filter", "", "only the packs with this tag or id")
	fl.IntVar(&f.Repeat, "repeat", 1, "runs per pack (K of pass^k)")
	fl.IntVar(&f.Parallel, "parallel", 1, "packs run at once")
	fl.StringVar(&f.JUnit, "junit", "", "also write the results as JUnit XML to FILE")
	fl.BoolVar(&f.Record, "record", false, "keep every run in the run store (--db) for runs show and --regrade")
	fl.Float64Var(&f.MinPass, "min-pass", 0, "exit 1 when pass@1 (a fraction, 0 to 1) is below this")
	fl.StringVar(&f.Regrade, "regrade", "", "grade the runs of RESULTS.json (recorded with --record) again, with no model")
	c.AddCommand(a.newEvalCompareCmd(nil), a.newEvalPackCmd(nil))
	return c
}

// evalCompareOptions are what `superbiz eval compare` was given: the
// results files, and the global flags (-o).
type evalCompareOptions struct {
	globalOptions
	Files []string
}

// newEvalCompareCmd is `superbiz eval compare`; runF replaces
// runEvalCompare (tests), nil runs it.
func (a *app) newEvalCompareCmd(runF func(context.Context, *evalCompareOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:   "compare A.json B.json [C.json]...",
		Short: "Compare eval results (-o json files) side by side: one column per file, headed by its model",
		Args:  compareArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runWith(cmd.Context(), &evalCompareOptions{globalOptions: a.flags.options(cmd), Files: args}, runF, a.runEvalCompare)
		},
	}
}

// runEvalCompare prints the results files side by side.
func (a *app) runEvalCompare(_ context.Context, opts *evalCompareOptions) error {
	rs := make([]*eval.Results, len(opts.Files))
	for i, name := range opts.Files {
		r, err := eval.ReadResults(name)
		if err != nil {
			return &ExitError{Code: ExitUsage, Err: err}
		}
		rs[i] = r
	}
	return a.printCompare(eval.Compare(opts.Files, rs), opts.Output)
}

// superbizVersion is this binary's version and commit in one string, as
// eval results record it ("dev (commit 1bead08c0ffe)").
func superbizVersion() string {
	bi, _ := debug.ReadBuildInfo() // nil when absent: resolveVersion falls back
	v := resolveVersion(version, commit, date, bi)
	return v.Version + " (commit " + v.Commit + ")"
}

// maxCompareFiles bounds the columns of `eval compare` (each file up to
// eval.MaxResultsBytes).
const maxCompareFiles = 16

// compareArgs takes 2 to maxCompareFiles results files, else a usage error.
func compareArgs(cmd *cobra.Command, args []string) error {
	if len(args) < 2 || len(args) > maxCompareFiles {
		return usageErrorf("%s takes 2 to %d results files, got %d argument(s)", commandName(cmd), maxCompareFiles, len(args))
	}
	return nil
}

// runEval runs (or regrades) the selected packs and prints the results.
func (a *app) runEval(ctx context.Context, f *evalOptions) error {
	switch {
	case f.Repeat < 1 || f.Repeat > 100:
		return usageErrorf("--repeat %d: give 1 to 100", f.Repeat)
	case f.Parallel < 1 || f.Parallel > 64:
		return usageErrorf("--parallel %d: give 1 to 64", f.Parallel)
	case !(f.MinPass >= 0 && f.MinPass <= 1): // NaN is neither
		return usageErrorf("--min-pass %g: give a fraction from 0 to 1", f.MinPass)
	}
	if f.JUnit != "" {
		if st, err := os.Stat(f.JUnit); err == nil && !st.Mode().IsRegular() {
			return usageErrorf("--junit %s is %s, not a regular file: name the XML file to write", f.JUnit, filekind.Describe(st.Mode()))
		}
	}
	cfg, err := a.loadConfigOf(ctx, f.globalOptions)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "superbiz-eval-")
	if err != nil {
		return fmt.Errorf("create the eval directory: %w", err)
	}
	defer os.RemoveAll(tmp)
	packs, err := loadSuites(f.Suites, tmp)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	var sel []*eval.Pack
	for _, p := range packs {
		if p.Match(f.Filter) || (p.Err != nil && f.Filter == "") {
			sel = append(sel, p)
		}
	}
	if len(sel) == 0 {
		return usageErrorf("--filter %q selects no pack", f.Filter)
	}
	var res *eval.Results
	if f.Regrade != "" {
		prev, err := eval.ReadResults(f.Regrade)
		if err != nil {
			return &ExitError{Code: ExitUsage, Err: err}
		}
		if res, err = eval.Regrade(ctx, prev, sel, cfg.DBPath); err != nil {
			if ctx.Err() != nil {
				return cancelled("")
			}
			return &ExitError{Code: ExitUsage, Err: fmt.Errorf("--regrade: %w", err)}
		}
	} else if res, err = a.evalRun(ctx, sel, f, cfg); err != nil {
		return err
	}
	if err := a.printEval(res, f.Output); err != nil {
		return err
	}
	if f.JUnit != "" {
		if err := writeJUnit(f.JUnit, res); err != nil {
			return err
		}
	}
	switch {
	case res.Errors() > 0:
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%d pack(s) could not be loaded or run; see their error", res.Errors())}
	case f.MinPassGiven:
		return minPass(res.Summary.PassAt1, f.MinPass)
	}
	return nil
}

// minPass is the --min-pass gate: exit 1 when pass@1 is below min, and
// when there is no pass@1 at all (no pack was graded), which no gate may
// take for a pass; equality passes.
func minPass(passAt1 eval.Rate, min float64) error {
	v, ok := passAt1.Value()
	switch {
	case !ok:
		return &ExitError{Code: ExitFailed, Err: fmt.Errorf("pass@1 is n/a (no pack was graded), so it cannot reach --min-pass %g", min)}
	case v < min:
		return &ExitError{Code: ExitFailed, Err: egress.Errorf("pass@1 %.4g is below --min-pass %g", v, min)}
	}
	return nil
}

// loadSuites reads the packs of every --suite (builtin when none is given).
func loadSuites(suites []string, tmp string) ([]*eval.Pack, error) {
	if len(suites) == 0 {
		suites = []string{eval.BuiltinSuite}
	}
	var packs []*eval.Pack
	for _, s := range suites {
		dir := s
		if s == eval.BuiltinSuite {
			var err error
			if dir, err = eval.WriteBuiltin(tmp); err != nil {
				return nil, err
			}
		}
		ps, err := eval.LoadSuite(dir)
		if err != nil {
			return nil, err
		}
		packs = append(packs, ps...)
	}
	return packs, nil
}

// evalRun runs the packs through the diagnose wiring, with a progress line
// per attempt on stderr.
func (a *app) evalRun(ctx context.Context, packs []*eval.Pack, f *evalOptions, cfg *config.Config) (*eval.Results, error) {
	runnable := 0
	for _, p := range packs {
		if p.Err == nil {
			runnable++
		}
	}
	opts := eval.Options{
		Repeat: f.Repeat, Parallel: f.Parallel, Getenv: a.getenv, Model: cfg, Version: superbizVersion(),
		Progress: func(p eval.Progress) {
			word := "fail"
			if p.Pass {
				word = "pass"
			}
			_ = a.io.ErrOut.Printf("eval: [%d/%d] %s repeat %d/%d %s · %d/%d passed\n", p.Graded, runnable*f.Repeat, p.Pack, p.Repeat, p.Of, word, p.Passed, p.Graded)
		},
	}
	if f.Record {
		opts.RecordDB = cfg.DBPath
		if f.Parallel > 1 {
			_ = a.io.ErrOut.Print(egress.Const("superbiz: eval --record runs one pack at a time: the run store holds one knowledge index\n"))
		}
	}
	res, err := eval.Run(ctx, packs, opts, func(ctx context.Context, job eval.Job) (string, error) {
		return a.evalRunner(ctx, job, f.Demo)
	})
	if ctx.Err() != nil {
		return nil, cancelled("")
	}
	if errors.Is(err, eval.ErrModelUnavailable) {
		return nil, &ExitError{Code: ExitUnavailable, Err: fmt.Errorf("%w\n%s", err, serverHint(cfg))}
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

// evalRunner is one pack's diagnosis through exactly the wiring and use
// case of `superbiz diagnose` (or `diagnose --alert` for a pack's alert),
// on the demo workspace with --demo.
func (a *app) evalRunner(ctx context.Context, job eval.Job, isDemo bool) (string, error) {
	w, err := a.buildWorkspace(ctx, job.Config, isDemo)
	if err != nil {
		return "", err
	}
	defer w.Close()
	if job.Wrap != nil {
		// A frozen pack's MySQL and PostgreSQL answers come from its recording.
		w.Adapters = job.Wrap(w.Adapters)
		if w.Tools, err = harness.NewToolset(w.Adapters, w.Playbooks); err != nil {
			return "", err
		}
	}
	d := w.Deps()
	req := usecase.DiagnoseRequest{Query: job.Pack.Question}
	var out usecase.Output
	if job.Pack.Alert != nil {
		al, err := job.Pack.Alert.Firing()
		if err != nil {
			return "", err
		}
		ar := usecase.NewAlertRun(al, "", job.Config.Now, job.Config.Limits.Query)
		if job.Pack.Question != "" {
			ar.Query += "\nQuestion: " + job.Pack.Question
		}
		out, err = d.DiagnoseAlert(ctx, ar, req)
		if err != nil {
			return "", err
		}
	} else if out, err = d.Diagnose(ctx, req); err != nil {
		return "", err
	}
	return out.RunID, nil
}

// printEval writes the results as text, Markdown tables or JSON.
func (a *app) printEval(r *eval.Results, output outputFormat) error {
	switch output {
	case outputJSON:
		return writeJSON(a.io.Out, r)
	case outputMarkdown:
		err := printPage(a.io.Out, evalMarkdown(r))
		return err
	}
	err := printPage(a.io.Out, evalText(r, a.io.OutColumns()))
	return err
}

// evalText is the results as text: a table of the packs, one row each with
// why a failed pack failed at its end, the full reasons (or the error)
// under it, then the summary line. On a terminal (width > 0) the rows are
// cut and the reasons wrapped to fit; piped, every cell is whole.
func evalText(r *eval.Results, width int) string {
	var b strings.Builder
	s := r.Summary
	b.WriteString(fitParts([]string{"model " + cell(s.Model.String()), "superbiz " + cell(orDash(s.SuperbizVersion)), "started " + cell(orDash(s.StartedAt))}, width) + "\n\n")
	t := table{fit: width, header: []string{"GRADE", "PACK", "CALLS", "TOKENS", "TIME", "OUTCOME"}}
	indent := len("GRADE")
	for _, p := range r.Packs {
		grade := strings.ToUpper(p.State())
		indent = max(indent, len(grade))
		t.rows = append(t.rows, []string{grade, cell(p.ID), fmt.Sprintf("%d/%d", p.ModelCalls, p.ToolCalls), strconv.Itoa(p.Tokens), durationMS(p.WallMS), evalOutcome(p)})
	}
	indent += columnGap
	var rows strings.Builder
	_ = writeTextTable(&rows, t) // a strings.Builder never fails
	lines := strings.Split(strings.TrimSuffix(rows.String(), "\n"), "\n")
	b.WriteString(lines[0] + "\n")
	for i, p := range r.Packs {
		b.WriteString(lines[i+1] + "\n")
		if p.Skipped {
			continue // the reason is the row's outcome
		}
		for _, n := range p.Notes() {
			fmt.Fprintf(&b, "%s%s\n", strings.Repeat(" ", indent), hangingIndent(cell(n), indent, width))
		}
	}
	b.WriteString("\n" + fitParts([]string{
		fmt.Sprintf("%d packs, %d graded, %d skipped", s.Packs, s.Graded, s.Skipped),
		"pass@1 " + s.PassAt1.Text(), "pass^k " + s.PassHatK.Text(), "false success " + s.FalseSuccessRate.Text(),
		"abstention " + s.AbstentionRate.Text(), "evidence recall " + s.EvidenceRecall.Text(),
		fmt.Sprintf("guard blocks %d", s.GuardBlocks), fmt.Sprintf("median %d tokens, %d ms", s.MedianTokens, s.MedianMS),
	}, width) + "\n")
	return b.String()
}

// fitParts joins parts with " · " on one line, or on a terminal of width
// columns (0: piped, one line) on as many lines as they need, each break
// between two parts.
func fitParts(parts []string, width int) string {
	var lines []string
	cur := ""
	for _, p := range parts {
		switch {
		case cur == "":
			cur = p
		case width == 0 || ansi.StringWidth(cur+" · "+p) <= width:
			cur += " · " + p
		default:
			lines = append(lines, cur)
			cur = p
		}
	}
	return strings.Join(append(lines, cur), "\n")
}

// evalOutcome is a pack row's last cell: the outcome it got and, for a
// failed pack, why in a few words; a skipped pack's reason; "-" for a pack
// that did not run.
func evalOutcome(p eval.PackResult) string {
	switch {
	case p.Skipped:
		return cell(p.SkipReason)
	case p.Error != "":
		return "-"
	}
	out := cell(orDash(p.Outcome))
	if why := p.Why(); why != "" {
		out += " · " + why
	}
	return out
}

// mdCell makes text safe inside a Markdown table cell: cleaned as `runs`
// shows stored text (no control characters, secrets masked), on one line.
func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`).Replace(cell(s))
}

func evalMarkdown(r *eval.Results) string {
	var b strings.Builder
	s := r.Summary
	fmt.Fprintf(&b, "Model %s · superbiz %s · started %s\n\n", mdCell(s.Model.String()), mdCell(orDash(s.SuperbizVersion)), mdCell(orDash(s.StartedAt)))
	b.WriteString("| packs | graded | skipped | pass@1 | pass^k | false success | abstention | evidence recall | guard blocks | median tokens | median ms |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	fmt.Fprintf(&b, "| %d | %d | %d | %s | %s | %s | %s | %s | %d | %d | %d |\n\n",
		s.Packs, s.Graded, s.Skipped, s.PassAt1.Text(), s.PassHatK.Text(), s.FalseSuccessRate.Text(), s.AbstentionRate.Text(), s.EvidenceRecall.Text(), s.GuardBlocks, s.MedianTokens, s.MedianMS)
	b.WriteString("| pack | expected | outcome | grade | tools | model calls | tokens | ms | notes |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, p := range r.Packs {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %d | %d | %d | %d | %s |\n", mdCell(p.ID), mdCell(p.ExpectedOutcome), mdCell(p.Outcome), strings.ToUpper(p.State()), p.ToolCalls, p.ModelCalls, p.Tokens, p.WallMS, mdCell(p.Note()))
	}
	return b.String()
}

// compareLabels are the row names of the rates a comparison lists, as the
// text and Markdown views print them.
var compareLabels = map[string]string{
	"pass_at_1": "pass@1", "pass_hat_k": "pass^k", "false_success_rate": "false success",
	"abstention_rate": "abstention", "evidence_recall": "evidence recall",
}

// printCompare writes the comparison: -o json as it is, else a table with
// one column per file (Markdown with -o markdown, aligned text otherwise).
func (a *app) printCompare(c eval.Comparison, output outputFormat) error {
	if output == outputJSON {
		return writeMaskedJSON(a.io.Out, c)
	}
	rows := [][]string{{""}, {"provider"}, {"url"}, {"superbiz"}, {"started"}, {"file"}}
	for _, f := range c.Files {
		name := f.Model.Name
		if name == "" {
			name = "unknown model"
		}
		for i, v := range []string{name, f.Model.Provider, f.Model.URL, f.SuperbizVersion, f.StartedAt, f.File} {
			rows[i] = append(rows[i], cell(orDash(v)))
		}
	}
	for _, r := range c.Rates {
		row := []string{compareLabels[r.Name]}
		for _, v := range r.Values {
			row = append(row, v.Text())
		}
		rows = append(rows, row)
	}
	for _, p := range c.Packs {
		row := []string{cell(p.ID)}
		for _, g := range p.Grades {
			row = append(row, cell(g))
		}
		rows = append(rows, row)
	}
	var b strings.Builder
	if output == outputMarkdown {
		for i, row := range rows {
			b.WriteString("|")
			for _, v := range row {
				b.WriteString(" " + mdCell(v) + " |")
			}
			b.WriteString("\n")
			if i == 0 {
				b.WriteString("|" + strings.Repeat(" --- |", len(row)) + "\n")
			}
		}
	} else {
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		for _, row := range rows {
			fmt.Fprintln(tw, strings.Join(row, "\t"))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(c.Packs) == 0 {
		b.WriteString("no pack's grade differs\n")
	}
	if !c.SamePacks {
		b.WriteString("\n" + hangingIndent(differentPacksNote(c), 0, a.io.OutColumns()) + "\n")
	}
	err := printPage(a.io.Out, b.String())
	return err
}

// differentPacksNote says that the files graded different packs, so their
// rates do not compare: how many each graded and how many all did.
func differentPacksNote(c eval.Comparison) string {
	var each []string
	for _, f := range c.Files {
		each = append(each, fmt.Sprintf("%d in %s", f.Graded, cell(f.File)))
	}
	return fmt.Sprintf("Note: the files graded different packs (%s; %d in all of them): pass@1 and the other rates are over different pack sets and do not compare. Run eval with the same --suite and --filter, or compare the pack rows.",
		strings.Join(each, ", "), c.CommonPacks)
}

// JUnit XML: one testcase per pack, a failure per failed pack, a skipped
// element per skipped one and an error per pack that could not run.
type junitSuite struct {
	XMLName    xml.Name        `xml:"testsuite"`
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

// junitProperty is one member of the summary: what was measured and each
// rate (n/a when there was nothing to measure).
type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name    string     `xml:"name,attr"`
	Class   string     `xml:"classname,attr"`
	Time    float64    `xml:"time,attr"`
	Failure *junitText `xml:"failure,omitempty"`
	Error   *junitText `xml:"error,omitempty"`
	Skipped *junitText `xml:"skipped,omitempty"`
}

type junitText struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

// junitRate is a rate as a JUnit property holds it: every decimal the JSON
// has, or n/a.
func junitRate(r eval.Rate) string {
	v, ok := r.Value()
	if !ok {
		return "n/a"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

func writeJUnit(path string, r *eval.Results) error {
	sum := r.Summary
	s := junitSuite{Name: "superbiz eval", Tests: len(r.Packs), Properties: []junitProperty{
		{"model", sum.Model.Name}, {"provider", sum.Model.Provider}, {"url", sum.Model.URL},
		{"superbiz_version", sum.SuperbizVersion}, {"started_at", sum.StartedAt},
		{"pass_at_1", junitRate(sum.PassAt1)}, {"pass_hat_k", junitRate(sum.PassHatK)}, {"false_success_rate", junitRate(sum.FalseSuccessRate)},
		{"abstention_rate", junitRate(sum.AbstentionRate)}, {"evidence_recall", junitRate(sum.EvidenceRecall)},
	}}
	for _, p := range r.Packs {
		c := junitCase{Name: p.ID, Class: "superbiz.eval", Time: float64(p.WallMS) / 1000}
		switch {
		case p.Error != "":
			s.Errors++
			c.Error = &junitText{Message: "pack error", Text: p.Error}
		case p.Skipped:
			s.Skipped++
			c.Skipped = &junitText{Message: p.SkipReason}
		case !p.Pass:
			s.Failures++
			c.Failure = &junitText{Message: "expected " + p.ExpectedOutcome + ", got " + p.Outcome + ": " + p.Why(), Text: p.Note()}
		}
		s.Cases = append(s.Cases, c)
	}
	b, err := xml.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("--junit: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("--junit: %w", err)
	}
	if err := writeRegular(path, append([]byte(xml.Header), append(b, '\n')...)); err != nil {
		return fmt.Errorf("--junit: %w", err)
	}
	return nil
}

// writeRegular writes data to the regular file path, creating or
// truncating it; a FIFO, a device or a socket there is refused, and is
// never waited on (the open does not block and the opened file is checked).
func writeRegular(path string, data []byte) (err error) {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return fmt.Errorf("%s is %s, not a regular file", path, filekind.Describe(st.Mode()))
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NONBLOCK, 0o644)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is %s, not a regular file", path, filekind.Describe(st.Mode()))
	}
	_, err = f.Write(data)
	return err
}
