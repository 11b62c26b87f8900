package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/superbiz/superbiz/internal/integration/runbooks"
	"github.com/superbiz/superbiz/internal/termsafe"
	wsp "github.com/superbiz/superbiz/internal/workspace"

	"charm.land/bubbles/v2/progress"
	"github.com/charmbracelet/colorprofile"
	"github.com/spf13/cobra"

	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/tools"
	"github.com/superbiz/superbiz/pkg/tools/knowledge"
)

// errNoKnowledge is the configuration error of a kb command with no
// knowledge path to index.
var errNoKnowledge = errors.New("no knowledge paths configured: set [knowledge] paths in the config, or use --demo")

func (a *app) newKBCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "kb",
		Short: "Index the runbooks and search them as lookup_knowledge does",
		Long: `kb keeps the knowledge index (SQLite FTS5 in the run store) in step with the
Markdown runbooks under [knowledge] paths, and searches it exactly as the
lookup_knowledge tool does for the model.`,
		Args: subcommandArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	c.AddCommand(a.newKBIndexCmd(nil), a.newKBSearchCmd(nil))
	return c
}

// kbIndexOutput is `kb index -o json`: what one Sync did (knowledge.Stats).
type kbIndexOutput struct {
	Files         int `json:"files"`
	Indexed       int `json:"indexed"`
	Skipped       int `json:"skipped"`
	Removed       int `json:"removed"`
	Sections      int `json:"sections"`
	TotalSections int `json:"total_sections"`
	// Excluded lists files left out of the index, whole or in part
	// (links leading out, special files, oversized runbooks …).
	Excluded      []knowledge.Exclusion `json:"excluded"`
	ExcludedTotal int                   `json:"excluded_total"`
	// Embedding is present when [knowledge] embed_model is set.
	Embedding *knowledge.Embedding `json:"embedding,omitempty"`
}

// kbOptions are what `kb index` and `kb search` were given: the query and
// how many sections to return (search), and the global flags.
type kbOptions struct {
	globalOptions
	Query string
	TopK  int
}

// newKBIndexCmd is `superbiz kb index`; runF replaces runKBIndex (tests),
// nil runs it.
func (a *app) newKBIndexCmd(runF func(context.Context, *kbOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:   "index",
		Short: "(Re)index the knowledge paths, incrementally",
		Long: `index brings the knowledge index in step with the Markdown files under
[knowledge] paths: new and changed files are split into sections again,
unchanged files are skipped, and files that are gone are removed. A progress
bar is drawn on a terminal (stderr); piped, only the one summary line is
printed, on stdout (-o json: the counts as one object).`,
		Example: `  superbiz kb index
  superbiz kb index --demo -o json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runWith(cmd.Context(), &kbOptions{globalOptions: a.flags.options(cmd)}, runF, a.runKBIndex)
		},
	}
}

// runKBIndex brings the knowledge index in step with the runbooks and
// says what it did.
func (a *app) runKBIndex(ctx context.Context, opts *kbOptions) error {
	w, err := a.openKnowledge(ctx, opts.globalOptions)
	if err != nil {
		return err
	}
	defer w.Close()
	p := a.newIndexProgress()
	st, err := w.Index.Sync(ctx, p.update)
	p.finish()
	if err != nil {
		return indexError(err)
	}
	if opts.Output == outputJSON {
		excluded := st.Excluded
		if excluded == nil {
			excluded = []knowledge.Exclusion{}
		}
		return writeJSON(a.io.Out, kbIndexOutput{
			Files: st.Files, Indexed: st.Indexed, Skipped: st.Skipped, Removed: st.Removed,
			Sections: st.Sections, TotalSections: st.Total,
			Excluded: excluded, ExcludedTotal: st.ExcludedTotal, Embedding: st.Embedding,
		})
	}
	err = a.io.Out.Printf("indexed %d files (%d sections), unchanged %d, removed %d; the index holds %d sections from %d files\n",
		st.Indexed, st.Sections, st.Skipped, st.Removed, st.Total, st.Files)
	if err != nil {
		return err
	}
	if err := writeEmbedding(a.io.Out, st.Embedding); err != nil {
		return err
	}
	return writeExclusions(a.io.Out, st.Excluded, st.ExcludedTotal)
}

// writeEmbedding says what was embedded, and why search is BM25 only for
// the sections left without vectors; nothing without an embedding model.
func writeEmbedding(w egress.Writer, e *knowledge.Embedding) error {
	if e == nil {
		return nil
	}
	line := egress.Sprintf("embedded %d sections with %s; %d without vectors", e.Embedded, e.Model, e.Missing)
	if e.Error != "" {
		line = egress.Sprintf("%s (search uses BM25 for them; retried on the next sync): %s", line, egress.Mask(e.Error).Shown())
	}
	return w.Print(line, egress.Const("\n"))
}

// writeExclusions lists the files the index left out, one a line, cleaned
// of control characters (file names are untrusted).
func writeExclusions(w egress.Writer, list []knowledge.Exclusion, total int) error {
	if total == 0 {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "not indexed (%d):\n", total)
	for _, e := range list {
		fmt.Fprintf(&b, "  %s\n", termsafe.Strip(e.String()))
	}
	if more := total - len(list); more > 0 {
		fmt.Fprintf(&b, "  … and %d more\n", more)
	}
	return printPage(w, b.String())
}

// openKnowledge loads the configuration and opens the workspace of a kb
// command, refusing one with no knowledge path.
func (a *app) openKnowledge(ctx context.Context, g globalOptions) (*workspace, error) {
	cfg, err := a.loadConfigOf(ctx, g)
	if err != nil {
		return nil, err
	}
	// Both kb commands sync at once: the walk of the runbooks runs while
	// the store opens.
	var walk *knowledge.Walk
	if ps := runbooks.Paths(cfg); len(ps) > 0 {
		walk = knowledge.StartWalk(ctx, ps)
	}
	w, err := a.buildEvidenceWorkspace(ctx, cfg, g.Demo)
	if err != nil {
		return nil, err
	}
	if w.Index == nil {
		w.Close()
		return nil, configError(errNoKnowledge)
	}
	w.Index.WithWalk(walk)
	return w, nil
}

// indexError classifies a Sync failure: a missing, unset or invalid (special
// file, pseudo file system) knowledge path is a configuration error (exit 2,
// the message names the path).
func indexError(err error) error {
	if errors.Is(err, knowledge.ErrRootMissing) || errors.Is(err, knowledge.ErrNoRoots) || errors.Is(err, knowledge.ErrRootInvalid) {
		return configError(err)
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	return fmt.Errorf("index the knowledge paths: %w", err)
}

// indexProgress reports Sync's progress on a terminal stderr: a bubbles
// progress bar redrawn in place. Piped, it prints nothing: the summary line
// on stdout says what was done.
type indexProgress struct {
	w   egress.Writer
	tty bool
	// bars is w for the bar itself: bubbles v2 draws its blend in true
	// colour and leaves the terminal's share to the writer, which brings it
	// down to 256 colours (as the Markdown on a terminal) or, without Color,
	// to none.
	bars io.Writer
	// stream is what bars writes to: it holds a line's tail until the line
	// ends, so each redraw is flushed as soon as it is drawn.
	stream egress.Stream
	bar    progress.Model
	last   int // last percent drawn
	drew   bool
}

func (a *app) newIndexProgress() *indexProgress {
	bar := progress.New(progress.WithWidth(40), progress.WithDefaultBlend(),
		progress.WithFillCharacters(progress.DefaultFullCharFullBlock, progress.DefaultEmptyCharBlock))
	profile := colorprofile.NoTTY
	if a.io.Color {
		profile = colorprofile.ANSI256
	}
	stream := a.io.ErrOut.Stream()
	bars := &colorprofile.Writer{Forward: stream, Profile: profile}
	return &indexProgress{w: a.io.ErrOut, tty: a.io.ErrTTY, bars: bars, stream: stream, bar: bar, last: -1}
}

// update is Sync's progress callback.
func (p *indexProgress) update(pr knowledge.Progress) {
	if pr.Total <= 0 {
		return
	}
	if !p.tty {
		return
	}
	pct := pr.Done * 100 / pr.Total
	if pct == p.last && pr.Done < pr.Total {
		return
	}
	p.last = pct
	p.drew = true
	fmt.Fprintf(p.bars, "\r%s %d/%d files", p.bar.ViewAs(float64(pr.Done)/float64(pr.Total)), pr.Done, pr.Total)
	_ = p.stream.Flush() // the redraw shows now; a broken terminal fails the summary's print
}

// finish clears the bar's line so the summary starts on a clean line.
func (p *indexProgress) finish() {
	_ = p.stream.Close() // nothing is held after a redraw's Flush; a broken terminal fails the next print
	if p.tty && p.drew {
		_ = p.w.Print(egress.Const("\r\x1b[K"))
	}
}

// newKBSearchCmd is `superbiz kb search`; runF replaces runKBSearch
// (tests), nil runs it.
func (a *app) newKBSearchCmd(runF func(context.Context, *kbOptions) error) *cobra.Command {
	opts := &kbOptions{}
	c := &cobra.Command{
		Use:   "search QUERY",
		Short: "Search the runbooks exactly as lookup_knowledge does for the model",
		Long: `search syncs the index, then runs lookup_knowledge with {"query": QUERY,
"top_k": N} through the same boundary as a run, and prints the documents it
returns (-o json: the observation object the model would see). Exit codes as
for "tools call": 0 found or not found, 2 rejected input, 1 backend error.`,
		Example: `  superbiz kb search --demo "HikariPool connection is not available"
  superbiz kb search --demo "支付超时" --top-k 5 -o json`,
		Args: exactArgs(1, "one QUERY (quote it)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.globalOptions, opts.Query = a.flags.options(cmd), args[0]
			return runWith(cmd.Context(), opts, runF, a.runKBSearch)
		},
	}
	c.Flags().IntVar(&opts.TopK, "top-k", knowledge.DefaultTopK, fmt.Sprintf("how many sections to return (1-%d)", knowledge.MaxTopK))
	return c
}

// runKBSearch syncs the index and runs lookup_knowledge on opts.Query, as
// the model would.
func (a *app) runKBSearch(ctx context.Context, opts *kbOptions) error {
	w, err := a.openKnowledge(ctx, opts.globalOptions)
	if err != nil {
		return err
	}
	defer w.Close()
	// The tool syncs; checking the paths first turns a missing one into a
	// configuration error naming it instead of an UNAVAILABLE observation,
	// without walking the tree twice.
	if err := w.Index.CheckRoots(); err != nil {
		return indexError(err)
	}
	input, err := json.Marshal(knowledge.Input{Query: opts.Query, TopK: opts.TopK})
	if err != nil {
		return fmt.Errorf("encode the search input: %w", err)
	}
	res, err := w.CallTool(ctx, knowledge.Name, input, wsp.NoAudit)
	if err != nil {
		return err
	}
	if opts.Output == outputJSON {
		if err := a.printObservation(res.Observation, opts.Output); err != nil {
			return err
		}
	} else if err := a.printDocuments(opts.Query, res.Observation); err != nil {
		return err
	}
	return res.Verdict(ctx)
}

// printDocuments writes lookup_knowledge's documents for a person: rank,
// title, score, source, doc_id and snippet. An ERROR observation prints
// nothing here; the exit error says what went wrong.
func (a *app) printDocuments(query string, obs json.RawMessage) error {
	var o struct {
		EvidenceStatus string           `json:"evidence_status"`
		Result         knowledge.Result `json:"result"`
	}
	if err := json.Unmarshal(obs, &o); err != nil {
		return fmt.Errorf("read the lookup_knowledge observation: %w", err)
	}
	var b strings.Builder
	switch tools.EvidenceStatus(o.EvidenceStatus) {
	case tools.NoEvidence:
		fmt.Fprintf(&b, "no runbook section matches %q\n", query)
	case tools.EvidenceFound:
		for i, d := range o.Result.Documents {
			if i > 0 {
				b.WriteString("\n")
			}
			fmt.Fprintf(&b, "%d. %s  (score %.2f)\n   %s  [%s]\n", i+1, d.Title, d.Score, d.Source, d.DocID)
			if s := strings.TrimSpace(d.Snippet); s != "" {
				fmt.Fprintf(&b, "   %s\n", strings.ReplaceAll(s, "\n", "\n   "))
			}
		}
	}
	err := printPage(a.io.Out, b.String())
	return err
}
