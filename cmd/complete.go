package cmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/demo"
	"github.com/superbiz/superbiz/internal/eval"
	"github.com/superbiz/superbiz/internal/integration"
	alertsource "github.com/superbiz/superbiz/internal/integration/alerts"
	logsource "github.com/superbiz/superbiz/internal/integration/logs"
	"github.com/superbiz/superbiz/internal/integration/playbooks"
	"github.com/superbiz/superbiz/internal/registry"
	"github.com/superbiz/superbiz/internal/textclip"
	"github.com/superbiz/superbiz/internal/usecase"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/runstore"
)

// Shell completion of the names a command takes (cobra's __complete): each
// completer reads what the command itself would read, and only reads: no
// run store is created, migrated or waited for (run IDs are read from an
// existing store read-only; the tools are named from the registry's
// declarations without the store), no demo cache is built (--demo names
// the demo's sources from its layout), no file is written. Everything one
// completer does shares one deadline, completeTimeout; a completer that
// cannot answer by then (a store another process holds locked, Alertmanager
// slow), or at all (no config, no store yet, a newer store), offers nothing.
// Each name has a short, redacted description beside it.

// completeLimit bounds the run and session IDs offered, newest first.
const completeLimit = 50

// completeTimeout bounds everything one completion does, so a TAB press
// never stalls: past it the shell is offered nothing.
const completeTimeout = time.Second

// completeDescBytes bounds a completion's description (a run's query).
const completeDescBytes = 60

// completion is a cobra completion function.
type completion = func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective)

// namer lists the candidates of one completion within ctx's deadline, for
// a command given the global flags g.
type namer = func(ctx context.Context, g globalOptions) []string

// globalsOf copies the global flags a command was given into its options
// (globalFlags.options, read when the completer runs).
type globalsOf = func(*cobra.Command) globalOptions

// noCompletion answers nothing and no file names.
func noCompletion() ([]string, cobra.ShellCompDirective) {
	return nil, cobra.ShellCompDirectiveNoFileComp
}

// firstArgTyped is firstArg for names that depend on the word typed so far.
func firstArgTyped(globals globalsOf, names func(ctx context.Context, g globalOptions, toComplete string) []string) completion {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return firstArg(globals, func(ctx context.Context, g globalOptions) []string { return names(ctx, g, toComplete) })(cmd, args, toComplete)
	}
}

// firstArg completes only a command's first argument with names.
func firstArg(globals globalsOf, names namer) completion {
	return func(cmd *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return noCompletion()
		}
		return bounded(cmd, globals(cmd), names), cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveKeepOrder
	}
}

// flagValues completes a flag's value with names.
func flagValues(globals globalsOf, names namer) completion {
	return func(cmd *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
		return bounded(cmd, globals(cmd), names), cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveKeepOrder
	}
}

// bounded runs names under completeTimeout and gives up at the deadline,
// offering nothing, even when what it waits on does not heed its context
// (SQLite's busy wait on a locked file): the process prints the candidates
// and exits, and a read abandoned on the way ends with it.
func bounded(cmd *cobra.Command, g globalOptions, names namer) []string {
	ctx, cancel := context.WithTimeout(completionContext(cmd), completeTimeout)
	defer cancel()
	got := make(chan []string, 1)
	go func() { got <- names(ctx, g) }()
	select {
	case out := <-got:
		return out
	case <-ctx.Done():
		return nil
	}
}

// described is a completion candidate with its description, on one line.
func described(name, desc string) string {
	desc = strings.Join(strings.Fields(egress.Mask(desc).Shown().String()), " ")
	desc = strings.Map(func(r rune) rune { // a format character (U+200B) would print as nothing, or reorder the line
		if !unicode.IsGraphic(r) && r != ' ' {
			return -1
		}
		return r
	}, desc)
	if desc == "" {
		return name
	}
	return name + "\t" + textclip.Bytes(desc, completeDescBytes)
}

// completionContext is the command's context, or a background one when
// cobra runs a completer without one.
func completionContext(cmd *cobra.Command) context.Context {
	if ctx := cmd.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}

// completionConfig is the configuration a completer reads: loadConfigOf's,
// except that --demo points at the demo workspace's layout without
// building it (completion writes nothing).
func (a *app) completionConfig(g globalOptions) (*config.Config, error) {
	cfg, err := a.resolveConfigOf(g)
	if err != nil || !g.Demo {
		return cfg, err
	}
	ws, err := demo.Layout(demo.DefaultDir(a.getenv))
	if err != nil {
		return nil, err
	}
	return cfg, useDemo(cfg, ws)
}

// recentRuns lists the newest stored runs as a snapshot (runstore.OpenSnapshot):
// a store that does not exist yet is not created, one of a newer superbiz is
// not read, and no -wal or -shm file is left beside one nobody has open.
func (a *app) recentRuns(ctx context.Context, g globalOptions) []runstore.RunSummary {
	cfg, err := a.completionConfig(g)
	if err != nil {
		return nil
	}
	store, err := runstore.OpenSnapshot(ctx, cfg.DBPath)
	if err != nil {
		return nil
	}
	defer func() { _ = store.Close() }() // read-only: nothing to lose
	runs, err := store.ListRuns(ctx, runstore.ListFilter{Limit: completeLimit})
	if err != nil {
		return nil
	}
	return runs
}

// completable reports whether a stored ID may be offered to the shell as it
// is: graphic and without space, so no tab, control or format character (a
// bidirectional override is one). A crafted store's other IDs are left out
// rather than printed raw into the terminal or cobra's name<TAB>desc lines.
func completable(id string) bool {
	if id == "" || len(id) > 256 {
		return false
	}
	for _, r := range id {
		if unicode.IsSpace(r) || !unicode.IsGraphic(r) {
			return false
		}
	}
	return true
}

// runRefNames are the newest runs as runRefs offers them.
func (a *app) runRefNames(ctx context.Context, g globalOptions, toComplete string) []string {
	all := func(*runstore.RunSummary) bool { return true }
	return runRefs(a.recentRuns(ctx, g), toComplete, time.Now(), all, all)
}

// replayableRunNames are the newest runs `replay` accepts
// (usecase.Replayable: finished DIAGNOSIS runs), as runRefs offers them.
func (a *app) replayableRunNames(ctx context.Context, g globalOptions, toComplete string) []string {
	replayable := func(r *runstore.RunSummary) bool { return usecase.Replayable(r) == nil }
	original := func(r *runstore.RunSummary) bool { return replayable(r) && r.ReplayOf == "" } // runstore.ResolveReplayable's last
	return runRefs(a.recentRuns(ctx, g), toComplete, time.Now(), replayable, original)
}

// runRefs offers runs (newest first) as a person names them
// (docs/SPEC.md#short-names): runstore.RefLast, described as the first
// run isLast accepts (the run last names for the command), then the number
// of each run keep accepts, each with its age, outcome and query. Once the
// word being completed starts as an ID does (neither digits nor the start
// of "last"), it offers the IDs instead, those printable as they are
// (completable).
func runRefs(runs []runstore.RunSummary, toComplete string, now time.Time, keep, isLast func(*runstore.RunSummary) bool) []string {
	byID := toComplete != "" && !strings.HasPrefix(runstore.RefLast, toComplete) && strings.Trim(toComplete, "0123456789") != ""
	var out []string
	for i := range runs {
		if r := &runs[i]; !byID && isLast(r) {
			out = append(out, described(runstore.RefLast, "newest, "+runNumber(r.Number)+" · "+runDesc(r, now)))
			break
		}
	}
	for i := range runs {
		r := &runs[i]
		if !keep(r) {
			continue
		}
		switch {
		case byID && completable(r.ID):
			out = append(out, described(r.ID, runDesc(r, now)))
		case !byID && r.Number > 0:
			out = append(out, described(runNumber(r.Number), runDesc(r, now)))
		}
	}
	return out
}

// runDesc is a run's completion description: its age, outcome and query.
func runDesc(r *runstore.RunSummary, now time.Time) string {
	return runAge(now.Sub(r.CreatedAt)) + " · " + orDash(cell(colResult.cell(*r))) + " · " + r.Query
}

// runAge is how long ago a run was made, in the largest whole unit.
func runAge(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds ago", max(int(d/time.Second), 0))
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d/time.Hour))
	}
	return fmt.Sprintf("%dd ago", int(d/(24*time.Hour)))
}

// sessionNames are the sessions of the newest runs, newest first, each with
// the query of its newest run.
func (a *app) sessionNames(ctx context.Context, g globalOptions) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range a.recentRuns(ctx, g) {
		if !completable(r.SessionID) || seen[r.SessionID] {
			continue
		}
		seen[r.SessionID] = true
		out = append(out, described(r.SessionID, r.Query))
	}
	return out
}

// alertNames are the firing alerts' names, each with its summary, newest
// first and each name once.
func (a *app) alertNames(ctx context.Context, g globalOptions) []string {
	cfg, err := a.completionConfig(g)
	if err != nil || !alertsource.Configured(cfg) {
		return nil
	}
	client, err := a.alertsClient(cfg)
	if err != nil {
		return nil
	}
	as, _, err := client.Firing(ctx) // a malformed alert is left out of the candidates
	if err != nil {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, al := range as {
		if n := al.Name(); n != "" && !seen[n] {
			seen[n] = true
			out = append(out, described(n, al.Annotations["summary"]))
		}
	}
	return out
}

// logSourceNames are the configured [[logs]] names.
func (a *app) logSourceNames(_ context.Context, g globalOptions) []string {
	cfg, err := a.completionConfig(g)
	if err != nil {
		return nil
	}
	srcs := logsource.Entries(cfg)
	out := make([]string, 0, len(srcs))
	for _, s := range srcs {
		out = append(out, described(s.Name, strings.Join(s.Paths, " ")))
	}
	return out
}

// playbookNames are the playbooks of the catalog, each with its description.
func (a *app) playbookNames(_ context.Context, g globalOptions) []string {
	cfg, err := a.completionConfig(g)
	if err != nil {
		return nil
	}
	cat, err := playbooks.Load(cfg, nil)
	if err != nil {
		return nil
	}
	var out []string
	for _, p := range cat.List() {
		out = append(out, described(p.Name, p.Description))
	}
	return out
}

// toolNames are the tools `tools list` declares for the configuration,
// named from the registry's declarations: no store is opened, no source
// connected to.
func (a *app) toolNames(ctx context.Context, g globalOptions) []string {
	cfg, err := a.completionConfig(g)
	if err != nil {
		return nil
	}
	// A source that does not build is left out; the others are offered.
	defs, _ := registry.Declared(ctx, cfg, integration.Env{Getenv: a.getenv})
	var out []string
	for _, d := range defs {
		desc, _, _ := strings.Cut(d.Description, ". ")
		out = append(out, described(d.Name, desc))
	}
	return out
}

// suiteNames completes --suite: builtin, then the folders that start with
// what was typed (a suite is a folder of packs). A folder is offered with
// its trailing slash and no space after it, so Tab goes on into it.
func suiteNames(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	var out []string
	if strings.HasPrefix(eval.BuiltinSuite, toComplete) {
		out = append(out, described(eval.BuiltinSuite, "the packs built into superbiz"))
	}
	dirs, _ := filepath.Glob(globEscape(toComplete) + "*") // a bad pattern offers no folders
	directive := cobra.ShellCompDirectiveNoFileComp
	hidden := strings.HasPrefix(filepath.Base(toComplete+"x"), ".")
	for _, d := range dirs {
		if strings.HasPrefix(filepath.Base(d), ".") && !hidden {
			continue // as shells do: dot folders only when a dot is typed
		}
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			out = append(out, d+string(filepath.Separator))
			directive |= cobra.ShellCompDirectiveNoSpace
		}
		if len(out) >= maxSuiteCandidates {
			break
		}
	}
	return out, directive
}

// maxSuiteCandidates bounds the folders --suite offers at once.
const maxSuiteCandidates = 200

// globEscape quotes the glob metacharacters of a typed path.
func globEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, "*", `\*`, "?", `\?`, "[", `\[`).Replace(s)
}

// outputNames are the -o values.
func outputNames(context.Context, globalOptions) []string {
	return []string{
		described(string(outputText), "plain text (the default)"),
		described(string(outputMarkdown), "the answer as Markdown"),
		described(string(outputJSON), "one JSON document"),
		described(string(outputWide), "runs only: every column, whole"),
	}
}

// registerCompletions attaches the completers to the commands and flags
// that take names, once the command tree is built.
func (a *app) registerCompletions(root *cobra.Command) {
	must := func(err error) {
		if err != nil {
			// Only a flag name that does not exist fails: a programming error.
			panic("register completion: " + err.Error())
		}
	}
	// Each completer takes the global flags its command was given, read
	// when it runs (after cobra parsed them).
	globals := func(cmd *cobra.Command) globalOptions { return a.flags.options(cmd) }
	must(root.RegisterFlagCompletionFunc("output", flagValues(globals, outputNames)))
	if c, _, err := root.Find([]string{"runs", "show"}); err == nil {
		c.ValidArgsFunction = firstArgTyped(globals, a.runRefNames)
	}
	if c, _, err := root.Find([]string{"replay"}); err == nil {
		c.ValidArgsFunction = firstArgTyped(globals, a.replayableRunNames)
	}
	if c, _, err := root.Find([]string{"eval", "pack"}); err == nil && c.Name() == "pack" {
		c.ValidArgsFunction = firstArgTyped(globals, a.runRefNames)
		must(c.RegisterFlagCompletionFunc("outcome", flagValues(globals, packOutcomeNames)))
	}
	for _, path := range [][]string{{"runs"}, {"runs", "list"}, {"chat"}, {"diagnose"}} {
		if c, _, err := root.Find(path); err == nil && c.Flags().Lookup("session") != nil {
			must(c.RegisterFlagCompletionFunc("session", flagValues(globals, a.sessionNames)))
		}
	}
	if c, _, err := root.Find([]string{"diagnose"}); err == nil {
		must(c.RegisterFlagCompletionFunc("alert", flagValues(globals, a.alertNames)))
	}
	if c, _, err := root.Find([]string{"eval"}); err == nil && c.Flags().Lookup("suite") != nil {
		must(c.RegisterFlagCompletionFunc("suite", suiteNames))
	}
	for path, names := range map[string]namer{
		"logs inspect": a.logSourceNames,
		"skills show":  a.playbookNames,
		"tools call":   a.toolNames,
	} {
		if c, _, err := root.Find(strings.Fields(path)); err == nil {
			c.ValidArgsFunction = firstArg(globals, names)
		}
	}
}
