package cmd

import (
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

func (a *app) newCompletionCmd() *cobra.Command {
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
			root := cmd.Root()
			// The script is built from our commands and printed through the
			// door whole.
			var script strings.Builder
			var err error
			switch args[0] {
			case "bash":
				err = root.GenBashCompletionV2(&script, true)
			case "zsh":
				err = root.GenZshCompletion(&script)
			case "fish":
				err = root.GenFishCompletion(&script, true)
			case "powershell":
				err = root.GenPowerShellCompletionWithDesc(&script)
			default:
				return usageErrorf("unknown shell %q: choose bash, zsh, fish or powershell", args[0])
			}
			if err != nil {
				return fmt.Errorf("write %s completion: %w", args[0], err)
			}
			return printPage(a.io.Out, script.String())
		},
	}
}
