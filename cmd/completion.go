package cmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// completionInstall is how to install the completion in each shell, said
// once: `completion --help` prints it and the README's Completion section
// quotes every line of it (cmd/readme_test.go).
const completionInstall = `bash (needs the bash-completion package: apt install bash-completion,
dnf install bash-completion, or brew install bash-completion@2 on macOS;
without it every Tab prints "_get_comp_words_by_ref: command not found"):

  mkdir -p ~/.local/share/bash-completion/completions
  superbiz completion bash > ~/.local/share/bash-completion/completions/superbiz

zsh (the second line ends ~/.zshrc with the script's folder on fpath and
a compinit after it, so it works whether ~/.zshrc runs compinit or not):

  mkdir -p ~/.zfunc && superbiz completion zsh > ~/.zfunc/_superbiz
  echo 'fpath=(~/.zfunc $fpath); autoload -Uz compinit && compinit' >> ~/.zshrc

fish:

  superbiz completion fish > ~/.config/fish/completions/superbiz.fish

PowerShell:

  superbiz completion powershell | Out-String | Invoke-Expression

Open a new shell afterwards.`

// completionOptions are what `superbiz completion` was given: the shell,
// and the command tree its script completes.
type completionOptions struct {
	Shell string
	Root  *cobra.Command
}

// newCompletionCmd is `superbiz completion`; runF replaces runCompletion
// (tests), nil runs it.
func (a *app) newCompletionCmd(runF func(context.Context, *completionOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "Print the shell completion script",
		Long: `Print the completion script for a shell: commands, flags, runs (last and
their numbers), sessions, alert names, log sources, playbooks, tools and -o
values. To install it:

` + completionInstall,
		ValidArgs:             []string{"bash", "zsh", "fish", "powershell"},
		DisableFlagsInUseLine: true,
		Args:                  exactArgs(1, "one shell name (bash, zsh, fish or powershell)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts := &completionOptions{Shell: args[0], Root: cmd.Root()}
			return runWith(cmd.Context(), opts, runF, a.runCompletion)
		},
	}
}

// runCompletion prints the completion script of opts.Shell.
func (a *app) runCompletion(_ context.Context, opts *completionOptions) error {
	// The script is built from our commands and printed through the door
	// whole.
	var script strings.Builder
	var err error
	switch opts.Shell {
	case "bash":
		err = opts.Root.GenBashCompletionV2(&script, true)
	case "zsh":
		err = opts.Root.GenZshCompletion(&script)
	case "fish":
		err = opts.Root.GenFishCompletion(&script, true)
	case "powershell":
		err = opts.Root.GenPowerShellCompletionWithDesc(&script)
	default:
		return usageErrorf("unknown shell %q: choose bash, zsh, fish or powershell", opts.Shell)
	}
	if err != nil {
		return fmt.Errorf("write %s completion: %w", opts.Shell, err)
	}
	return printPage(a.io.Out, script.String())
}
