package cmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/superbiz/superbiz/internal/integration/playbooks"
	"github.com/superbiz/superbiz/internal/notfound"
	"github.com/superbiz/superbiz/internal/termsafe"
	"github.com/superbiz/superbiz/internal/tui"
	"github.com/superbiz/superbiz/pkg/tools"
	"github.com/superbiz/superbiz/pkg/tools/skills"
)

// skillsOptions are what `superbiz skills list` (or `skills`) and `skills
// show` were given: the playbook to show, and the global flags.
type skillsOptions struct {
	globalOptions
	// Name is the playbook `skills show` prints; "" for the list.
	Name string
}

// newSkillsCmd is `superbiz skills`, which lists like `skills list`; runF
// replaces runSkillsList (tests), nil runs it.
func (a *app) newSkillsCmd(runF func(context.Context, *skillsOptions) error) *cobra.Command {
	c := &cobra.Command{
		Use:   "skills",
		Short: "List the diagnosis playbooks, or show one playbook's body",
		Long: `skills shows the playbook catalog the diagnosis prompt carries (the built-in
playbooks plus those under [skills] paths) and the body read_skill returns.
A malformed user playbook is reported on stderr by path and skipped.`,
		Args: subcommandArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts := &skillsOptions{globalOptions: a.flags.options(cmd)}
			return runWith(cmd.Context(), opts, runF, a.runSkillsList)
		},
	}
	c.AddCommand(a.newSkillsListCmd(nil), a.newSkillsShowCmd(nil))
	return c
}

// newSkillsListCmd is `superbiz skills list`; runF replaces runSkillsList
// (tests), nil runs it.
func (a *app) newSkillsListCmd(runF func(context.Context, *skillsOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:     "list",
		Short:   "List the playbooks: name, description and source",
		Example: "  superbiz skills list\n  superbiz skills list -o json",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts := &skillsOptions{globalOptions: a.flags.options(cmd)}
			return runWith(cmd.Context(), opts, runF, a.runSkillsList)
		},
	}
}

// newSkillsShowCmd is `superbiz skills show`; runF replaces runSkillsShow
// (tests), nil runs it.
func (a *app) newSkillsShowCmd(runF func(context.Context, *skillsOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:     "show NAME",
		Short:   "Print one playbook's body (rendered Markdown on a terminal)",
		Example: "  superbiz skills show diagnose-redis-timeout",
		Args:    exactArgs(1, "one playbook NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts := &skillsOptions{globalOptions: a.flags.options(cmd), Name: args[0]}
			return runWith(cmd.Context(), opts, runF, a.runSkillsShow)
		},
	}
}

// skillOutput is one playbook in `skills list|show -o json`.
type skillOutput struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Source      string `json:"source"`
	Body        string `json:"body,omitempty"`
}

// loadPlaybooks loads the catalog of the configuration and reports every
// skipped playbook on stderr by path.
func (a *app) loadPlaybooks(ctx context.Context, g globalOptions) (*skills.Catalog, error) {
	cfg, err := a.loadConfigOf(ctx, g)
	if err != nil {
		return nil, err
	}
	return playbooks.Load(cfg, a.warn)
}

// runSkillsList prints the playbook catalog.
func (a *app) runSkillsList(ctx context.Context, opts *skillsOptions) error {
	cat, err := a.loadPlaybooks(ctx, opts.globalOptions)
	if err != nil {
		return err
	}
	list := cat.List()
	if opts.Output == outputJSON {
		out := make([]skillOutput, 0, len(list))
		for _, p := range list {
			out = append(out, skillOutput{Name: p.Name, Description: p.Description, Source: p.Source})
		}
		return writeJSON(a.io.Out, out)
	}
	t := table{header: []string{"NAME", "SOURCE", "DESCRIPTION"}, fit: a.io.OutColumns()}
	for _, p := range list {
		t.rows = append(t.rows, []string{p.Name, termsafe.Strip(p.Source), oneLine(p.Description)})
	}
	if err := printTextTable(a.io.Out, t); err != nil {
		return fmt.Errorf("write the playbook list: %w", err)
	}
	return nil
}

// runSkillsShow prints one playbook's body.
func (a *app) runSkillsShow(ctx context.Context, opts *skillsOptions) error {
	cat, err := a.loadPlaybooks(ctx, opts.globalOptions)
	if err != nil {
		return err
	}
	p, ok := cat.Get(opts.Name)
	if !ok {
		return &notfound.Error{Kind: "playbook", Name: opts.Name, Valid: cat.Names()}
	}
	body := termsafe.Strip(p.Body)
	if opts.Output == outputJSON {
		return writeJSON(a.io.Out, skillOutput{Name: p.Name, Description: p.Description, Source: p.Source, Body: body})
	}
	if a.io.OutTTY && opts.Output == outputText {
		return a.renderPlaybook(p)
	}
	err = printPage(a.io.Out, strings.TrimRight(body, "\n")+"\n")
	return err
}

// renderPlaybook draws a playbook's body as Markdown on the terminal stdout.
func (a *app) renderPlaybook(p tools.Playbook) error {
	width := a.outputWidth()
	style := tui.MarkdownStyle(a.io.Color, a.io.DarkBackground())
	out, err := tui.RenderMarkdown(p.Body, min(width, 100), style)
	if err != nil {
		return fmt.Errorf("render playbook %s: %w", p.Name, err)
	}
	err = a.io.Out.Printf("%s\n", out)
	return err
}

// oneLine makes untrusted text fit one table cell: no control characters,
// whitespace runs collapsed.
func oneLine(s string) string {
	return strings.Join(strings.Fields(termsafe.Strip(s)), " ")
}
