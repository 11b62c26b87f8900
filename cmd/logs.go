package cmd

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	logsource "github.com/superbiz/superbiz/internal/integration/logs"
	"github.com/superbiz/superbiz/internal/notfound"
	"github.com/superbiz/superbiz/internal/termsafe"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/tools"
	"github.com/superbiz/superbiz/pkg/tools/logs"
)

// defaultInspectEntries is how many entries `logs inspect` shows unless told.
const defaultInspectEntries = 10

func (a *app) newLogsCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "logs",
		Short: "Check how the log sources read, as query_logs reads them",
		Long: `logs shows how each configured log source ([[logs]], or the demo's with
--demo) is read: per file the layout detected (or the custom pattern), the
share of lines placed in time, the time range, the first entries exactly as
query_logs returns them to the model, and the files a call would skip and why.`,
		Args: subcommandArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	c.AddCommand(a.newLogsInspectCmd(nil))
	return c
}

// logsInspectOutput is `logs inspect -o json`.
type logsInspectOutput struct {
	Source      string                `json:"source"`
	Files       int                   `json:"files"`
	Reports     []logs.FileReport     `json:"reports"`
	Entries     []logs.InspectedEntry `json:"entries"`
	Filter      string                `json:"filter,omitempty"`
	Matched     *int                  `json:"matched,omitempty"`
	Skipped     []inspectSkip         `json:"skipped"`
	Empty       []string              `json:"empty,omitempty"`
	TruncatedBy []string              `json:"truncated_by,omitempty"`
}

// inspectSkip is a skipped file with the reason the model sees and the
// error behind it.
type inspectSkip struct {
	File   string `json:"file"`
	Reason string `json:"reason"`
	Error  string `json:"error"`
}

// logsInspectOptions are what `superbiz logs inspect` was given, the
// global flags included.
type logsInspectOptions struct {
	globalOptions
	// Source is the [[logs]] name; "" lists the sources.
	Source          string
	Entries         int
	Level, Contains string
}

// newLogsInspectCmd is `superbiz logs inspect`; runF replaces
// runLogsInspect (tests), nil runs it.
func (a *app) newLogsInspectCmd(runF func(context.Context, *logsInspectOptions) error) *cobra.Command {
	opts := &logsInspectOptions{}
	c := &cobra.Command{
		Use:   "inspect [SOURCE]",
		Short: "Show the first entries of a log source exactly as query_logs sees them",
		Long: `inspect reads every file of the [[logs]] source SOURCE the way query_logs
does and prints, per file, the layout it is read with (detected under format
auto), how many sampled lines are placed in time and how many are glued to
the entry before them as continuation lines, the time range covered and
whether the file is out of time order;
then the first entries as the model would see them (time, level, service,
message, fields; secrets masked); then the files a call would skip, and why.
With --level or --contains, the entries shown are instead those a query_logs
call with that filter matches anywhere in the files, newest first: how an
ERROR entry with its stack trace reads.
Use it to check a custom pattern and time_layout in seconds. Exits 1 when no
file of the source can be read. Without SOURCE it lists the [[logs]]
sources: name, backend and what each reads.`,
		Example: `  superbiz logs inspect
  superbiz logs inspect app
  superbiz logs inspect app --level error --contains timeout
  superbiz logs inspect --demo demo --entries 3 -o json`,
		Args: atMostOneSource,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.globalOptions, opts.Source = a.flags.options(cmd), ""
			if len(args) > 0 {
				opts.Source = args[0]
			}
			return runWith(cmd.Context(), opts, runF, a.runLogsInspect)
		},
	}
	c.Flags().IntVar(&opts.Entries, "entries", defaultInspectEntries, fmt.Sprintf("how many entries to show (1-%d)", logs.MaxInspectEntries))
	c.Flags().StringVar(&opts.Level, "level", "", "show the entries of this level (ERROR, WARN, INFO or DEBUG) anywhere in the files")
	c.Flags().StringVar(&opts.Contains, "contains", "", "show the entries holding all these words (any case) anywhere in the files")
	return c
}

// runLogsInspect prints how query_logs reads one [[logs]] source, or lists
// the sources without one.
func (a *app) runLogsInspect(ctx context.Context, opts *logsInspectOptions) error {
	if opts.Entries < 1 || opts.Entries > logs.MaxInspectEntries {
		return usageErrorf("--entries must be between 1 and %d, got %d", logs.MaxInspectEntries, opts.Entries)
	}
	cfg, err := a.loadConfigOf(ctx, opts.globalOptions)
	if err != nil {
		return err
	}
	srcs := logsource.Entries(cfg)
	if opts.Source == "" {
		if len(srcs) == 0 {
			return configError(fmt.Errorf("no log source configured: add a [[logs]] section, or use --demo"))
		}
		return a.printLogSources(srcs, opts.Output)
	}
	var src *logs.Source
	names := make([]string, 0, len(srcs))
	for i := range srcs {
		names = append(names, srcs[i].Name)
		if srcs[i].Name == opts.Source {
			src = &srcs[i]
		}
	}
	if src == nil {
		if len(names) == 0 {
			return configError(fmt.Errorf("no log source configured: add a [[logs]] section, or use --demo"))
		}
		return &notfound.Error{Kind: "log source", Name: opts.Source, Valid: names}
	}
	in, err := logs.Inspect(ctx, *src, logs.InspectOptions{Entries: opts.Entries, Level: opts.Level, Contains: opts.Contains})
	if errors.Is(err, tools.ErrInvalidInput) {
		return usageErrorf("logs inspect --level/--contains: %s", strings.TrimPrefix(err.Error(), tools.ErrInvalidInput.Error()+": "))
	}
	if err != nil {
		return configError(err)
	}
	if err := a.printInspection(in, opts.Output); err != nil {
		return err
	}
	if !in.Readable() {
		return &ExitError{Code: ExitFailed, Err: fmt.Errorf("logs inspect: no file of source %s can be read: %s", in.Source, in.Unreadable())}
	}
	return nil
}

// atMostOneSource takes `logs inspect`'s optional SOURCE.
func atMostOneSource(cmd *cobra.Command, args []string) error {
	if len(args) > 1 {
		return usageErrorf("%s takes at most one SOURCE (a [[logs]] name), got %d arguments", commandName(cmd), len(args))
	}
	return nil
}

// logSourceRow is one source of `logs inspect` without SOURCE.
type logSourceRow struct {
	Name    string `json:"name"`
	Backend string `json:"backend"`
	Reads   string `json:"reads"`
}

// printLogSources lists the [[logs]] sources `logs inspect` can read: name,
// backend and what each reads (its globs, or its store's URL).
func (a *app) printLogSources(srcs []logs.Source, output outputFormat) error {
	rows := make([]logSourceRow, 0, len(srcs))
	t := table{header: []string{"SOURCE", "BACKEND", "READS"}}
	for _, s := range srcs {
		r := logSourceRow{Name: s.Name, Backend: string(s.Backend), Reads: strings.Join(s.Paths, " ")}
		if r.Backend == "" {
			r.Backend = string(logs.BackendFiles)
		}
		if s.Backend == logs.BackendVictoriaLogs {
			r.Reads = s.URL
		}
		rows = append(rows, r)
		t.rows = append(t.rows, []string{cell(r.Name), cell(r.Backend), orDash(cell(r.Reads))})
	}
	switch output {
	case outputJSON:
		return writeJSON(a.io.Out, rows)
	case outputMarkdown:
		return printMarkdownTable(a.io.Out, t)
	}
	return printTextTable(a.io.Out, t)
}

// printInspection writes an inspection for a person, or -o json.
func (a *app) printInspection(in logs.Inspection, output outputFormat) error {
	if output == outputJSON {
		out := logsInspectOutput{Source: in.Source, Files: in.Files, Reports: in.Reports, Entries: in.Entries, Skipped: []inspectSkip{}, Empty: in.Empty, TruncatedBy: in.TruncatedBy}
		if in.Filter != "" {
			out.Filter, out.Matched = in.Filter, &in.Matched
		}
		if out.Reports == nil {
			out.Reports = []logs.FileReport{}
		}
		if out.Entries == nil {
			out.Entries = []logs.InspectedEntry{}
		}
		for _, s := range in.Skipped {
			out.Skipped = append(out.Skipped, inspectSkip{File: s.File, Reason: s.Reason, Error: egress.Mask(fmt.Sprint(s.Err)).String()})
		}
		return writeJSON(a.io.Out, out)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "source %s: %d file(s)\n", in.Source, in.Files)
	for _, r := range in.Reports {
		fmt.Fprintf(&b, "  %s: %s\n", r.File, reportLine(r))
	}
	for _, f := range in.Empty {
		fmt.Fprintf(&b, "  %s: %s\n", f, logsource.EmptyFile)
	}
	switch {
	case in.Filter != "" && in.Matched == 0:
		fmt.Fprintf(&b, "\nno entry matches %s in the files read\n", in.Filter)
	case in.Filter != "":
		noun := "entries match"
		if in.Matched == 1 {
			noun = "entry matches"
		}
		fmt.Fprintf(&b, "\n%d %s %s; the newest %d, as query_logs returns them:\n", in.Matched, noun, in.Filter, len(in.Entries))
	case len(in.Entries) > 0:
		b.WriteString("\nfirst entries, as query_logs returns them:\n")
	}
	for _, e := range in.Entries {
		writeInspectedEntry(&b, e)
	}
	if len(in.Skipped) > 0 {
		b.WriteString("\nskipped:")
		b.WriteString(logsource.SkippedLines(in))
		b.WriteString("\n")
	} else if n := logsource.LimitNote(in); n != "" {
		b.WriteString(n + "\n")
	}
	err := printPage(a.io.Out, termsafe.Strip(b.String()))
	return err
}

// reportLine is one file's layout, shares placed in time and glued as
// continuation lines, time range and whether it is out of time order.
func reportLine(r logs.FileReport) string {
	s := fmt.Sprintf("layout %s, %s placed in time%s", r.Layout, logsource.PlacedShare(r.Placed, r.Lines), logsource.GluedShare(r.Glued, r.Lines))
	if r.FirstTS != "" {
		s += ", " + r.FirstTS + " .. " + r.LastTS
	}
	if !r.Ordered {
		s += ", " + logsource.NotInOrder
	}
	if !r.Whole {
		s += " (sampled: start and end of the file)"
	}
	return s
}

// writeInspectedEntry prints one entry: time, level, service, message, and
// its fields sorted by key on an indented line.
func writeInspectedEntry(b *strings.Builder, e logs.InspectedEntry) {
	level, service := e.Level, e.Service
	if level == "" {
		level = "-"
	}
	if service == "" {
		service = "-"
	}
	msg := strings.ReplaceAll(e.Message, "\n", "\n      ")
	fmt.Fprintf(b, "  %s %-5s %s  %s\n", e.TS, level, service, msg)
	if len(e.Fields) == 0 {
		return
	}
	keys := make([]string, 0, len(e.Fields))
	for k := range e.Fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + fmt.Sprint(e.Fields[k])
	}
	fmt.Fprintf(b, "      fields: %s\n", strings.Join(parts, " "))
}
