package cmd

import (
	"context"
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
	c.AddCommand(a.newConfigInitCmd(nil), a.newConfigPathCmd(nil))
	return c
}

// configOptions are what `config init` and `config path` were given: the
// global flags (--config).
type configOptions struct {
	globalOptions
}

// newConfigInitCmd is `superbiz config init`; runF replaces runConfigInit
// (tests), nil runs it.
func (a *app) newConfigInitCmd(runF func(context.Context, *configOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:   "init",
		Short: "Write a commented starting config to $XDG_CONFIG_HOME/superbiz/config.toml (never overwrites)",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts := &configOptions{globalOptions: a.flags.options(cmd)}
			return runWith(cmd.Context(), opts, runF, a.runConfigInit)
		},
	}
}

// runConfigInit writes the commented starter file to --config PATH or
// $XDG_CONFIG_HOME/superbiz/config.toml, never over an existing file.
func (a *app) runConfigInit(_ context.Context, opts *configOptions) error {
	path := opts.ConfigPath
	if path == "" {
		path = config.DefaultFile(a.getenv)
	}
	if err := writeNew(path, config.Starter()); err != nil {
		return err
	}
	return a.io.Out.Printf("wrote %s\n", path)
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

// newConfigPathCmd is `superbiz config path`; runF replaces runConfigPath
// (tests), nil runs it.
func (a *app) newConfigPathCmd(runF func(context.Context, *configOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:   "path",
		Short: "Print the configuration file in use (by the lookup order)",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts := &configOptions{globalOptions: a.flags.options(cmd)}
			return runWith(cmd.Context(), opts, runF, a.runConfigPath)
		},
	}
}

// runConfigPath prints the file the lookup order finds; with none, it
// prints where `config init` would write and says on stderr that it is absent.
func (a *app) runConfigPath(_ context.Context, opts *configOptions) error {
	file, err := config.FindFile(config.LoadOptions{ConfigPath: opts.ConfigPath, WorkDir: a.workDir, Getenv: a.getenv})
	if err != nil {
		return configError(err)
	}
	if file == "" {
		file = config.DefaultFile(a.getenv)
		_ = a.io.ErrOut.Print(egress.Const("no config file yet, so the defaults apply; `superbiz config init` writes this one:\n"))
	}
	return a.io.Out.Printf("%s\n", file)
}
