package main

import (
	"github.com/spf13/cobra"
)

// newCompletionCmd replaces cobra's default completion command with one
// whose help shows how to install the script for each shell.
func newCompletionCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "Print a shell completion script (commands, flags, file names)",
		Long: `completion prints a script that teaches your shell to complete modelbridge's
commands and flags. Load it once in the current shell, or install it so every
new shell has it.`,
		Example: `  source <(modelbridge completion bash)                 # bash, this shell
  modelbridge completion bash > /etc/bash_completion.d/modelbridge
  modelbridge completion zsh > "${fpath[1]}/_modelbridge"  # zsh (compinit enabled)
  modelbridge completion fish > ~/.config/fish/completions/modelbridge.fish`,
		ValidArgs: []string{"bash", "zsh", "fish", "powershell"},
		Args: func(cmd *cobra.Command, args []string) error {
			if err := exactArgs(1)(cmd, args); err != nil {
				return err
			}
			switch args[0] {
			case "bash", "zsh", "fish", "powershell":
				return nil
			}
			return usageErrorf("completion: unknown shell %q (bash, zsh, fish or powershell)", args[0])
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			root, out := cmd.Root(), cmd.OutOrStdout()
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(out, true)
			case "zsh":
				return root.GenZshCompletion(out)
			case "fish":
				return root.GenFishCompletion(out, true)
			default:
				return root.GenPowerShellCompletionWithDesc(out)
			}
		},
	}
	return cmd
}
