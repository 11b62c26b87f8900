package cmd

import (
	"fmt"

	"github.com/spf13/cobra"
)

func (a *app) newCompletionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "Print the shell completion script",
		Long: `Print the completion script for a shell. For example:

  superbiz completion bash > /etc/bash_completion.d/superbiz
  superbiz completion zsh > "${fpath[1]}/_superbiz"
  superbiz completion fish > ~/.config/fish/completions/superbiz.fish
  superbiz completion powershell | Out-String | Invoke-Expression`,
		ValidArgs:             []string{"bash", "zsh", "fish", "powershell"},
		DisableFlagsInUseLine: true,
		Args:                  exactArgs(1, "one shell name (bash, zsh, fish or powershell)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			root := cmd.Root()
			var err error
			switch args[0] {
			case "bash":
				err = root.GenBashCompletionV2(a.io.Out, true)
			case "zsh":
				err = root.GenZshCompletion(a.io.Out)
			case "fish":
				err = root.GenFishCompletion(a.io.Out, true)
			case "powershell":
				err = root.GenPowerShellCompletionWithDesc(a.io.Out)
			default:
				return usageErrorf("unknown shell %q: choose bash, zsh, fish or powershell", args[0])
			}
			if err != nil {
				return fmt.Errorf("write %s completion: %w", args[0], err)
			}
			return nil
		},
	}
}
