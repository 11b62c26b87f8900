package cmd

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/pkg/egress"
)

// newConfigCmd groups the commands that help a newcomer get a configuration file.
func (a *app) newConfigCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "config",
		Short: "Write a starting configuration file, or say which file is used",
		Args:  subcommandArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cmd.Help()
		},
	}
	c.AddCommand(a.newConfigInitCmd(), a.newConfigPathCmd())
	return c
}

// newConfigInitCmd writes the commented starter file to --config PATH or
// $XDG_CONFIG_HOME/superbiz/config.toml, never over an existing file.
func (a *app) newConfigInitCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "init",
		Short: "Write a commented starting config to $XDG_CONFIG_HOME/superbiz/config.toml (never overwrites)",
		Args:  noArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			path := a.flags.configPath
			if path == "" {
				path = config.DefaultFile(a.getenv)
			}
			if err := writeNew(path, config.Starter()); err != nil {
				return err
			}
			err := a.io.Out.Printf("wrote %s\n", path)
			return err
		},
	}
}

// writeNew creates path (and its directory) with content; an existing file
// is an error and stays as it was.
func writeNew(path, content string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("config init: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("config init: %s already exists; not overwritten (edit it, or remove it first)", path)
	}
	if err != nil {
		return fmt.Errorf("config init: %w", err)
	}
	if _, err := f.WriteString(content); err != nil {
		_ = f.Close()
		return fmt.Errorf("config init: write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("config init: write %s: %w", path, err)
	}
	return nil
}

// newConfigPathCmd prints the file the lookup order finds; with none, it
// prints where `config init` would write and says on stderr that it is absent.
func (a *app) newConfigPathCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "path",
		Short: "Print the configuration file in use (by the lookup order)",
		Args:  noArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			file, err := config.FindFile(config.LoadOptions{ConfigPath: a.flags.configPath, WorkDir: a.workDir, Getenv: a.getenv})
			if err != nil {
				return configError(err)
			}
			if file == "" {
				file = config.DefaultFile(a.getenv)
				_ = a.io.ErrOut.Print(egress.Const("no config file yet, so the defaults apply; `superbiz config init` writes this one:\n"))
			}
			return a.io.Out.Printf("%s\n", file)
		},
	}
}
