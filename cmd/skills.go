package cmd

import (
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

func (a *app) newSkillsCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "skills",
		Short: "List the diagnosis playbooks, or show one playbook's body",
		Long: `skills shows the playbook catalog the diagnosis prompt carries (the built-in
playbooks plus those under [skills] paths) and the body read_skill returns.
A malformed user playbook is reported on stderr by path and skipped.`,
		Args: subcommandArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.runSkillsList(cmd) },
	}
	c.AddCommand(
		&cobra.Command{
			Use:     "list",
			Short:   "List the playbooks: name, description and source",
			Example: "  superbiz skills list\n  superbiz skills list -o json",
			Args:    noArgs,
			RunE:    func(cmd *cobra.Command, _ []string) error { return a.runSkillsList(cmd) },
		},
		&cobra.Command{
			Use:     "show NAME",
			Short:   "Print one playbook's body (rendered Markdown on a terminal)",
			Example: "  superbiz skills show diagnose-redis-timeout",
			Args:    exactArgs(1, "one playbook NAME"),
			RunE:    func(cmd *cobra.Command, args []string) error { return a.runSkillsShow(cmd, args[0]) },
		},
	)
	return c
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
func (a *app) loadPlaybooks(cmd *cobra.Command) (*skills.Catalog, error) {
	cfg, err := a.loadConfig(cmd)
	if err != nil {
		return nil, err
	}
	return playbooks.Load(cfg, a.warn)
}

func (a *app) runSkillsList(cmd *cobra.Command) error {
	cat, err := a.loadPlaybooks(cmd)
	if err != nil {
		return err
	}
	list := cat.List()
	if a.flags.output == outputJSON {
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

func (a *app) runSkillsShow(cmd *cobra.Command, name string) error {
	cat, err := a.loadPlaybooks(cmd)
	if err != nil {
		return err
	}
	p, ok := cat.Get(name)
	if !ok {
		return &notfound.Error{Kind: "playbook", Name: name, Valid: cat.Names()}
	}
	body := termsafe.Strip(p.Body)
	if a.flags.output == outputJSON {
		return writeJSON(a.io.Out, skillOutput{Name: p.Name, Description: p.Description, Source: p.Source, Body: body})
	}
	if a.io.OutTTY && a.flags.output == outputText {
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
