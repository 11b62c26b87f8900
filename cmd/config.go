package cmd

import (
	"github.com/spf13/cobra"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/demo"
	"github.com/superbiz/superbiz/internal/registry"
)

// loadConfig is the one place the configuration is resolved: the file found
// by the lookup order, then the environment, then the global flags the user
// actually gave (cobra's Changed, so "--model ”" differs from no flag). Any
// failure is a configuration error: exit 2 without the usage line.
func (a *app) loadConfig(cmd *cobra.Command) (*config.Config, error) {
	return a.loadConfigWith(cmd, config.Overrides{})
}

// loadConfigWith is loadConfig with a command's own overrides (the diagnose
// budget flags); with --demo the runbook, log and database tools point at the demo workspace.
func (a *app) loadConfigWith(cmd *cobra.Command, ov config.Overrides) (*config.Config, error) {
	cfg, err := a.resolveConfig(cmd, ov)
	if err != nil {
		return nil, err
	}
	if a.flags.demo {
		if _, err := applyDemo(cmd.Context(), cfg, demo.DefaultDir(a.getenv)); err != nil {
			return nil, err
		}
	}
	return cfg, nil
}

// resolveConfig is loadConfigWith without --demo: the file, the
// environment and the flags given, read and never written.
func (a *app) resolveConfig(cmd *cobra.Command, ov config.Overrides) (*config.Config, error) {
	changed := func(name string) bool {
		f := cmd.Flags().Lookup(name)
		return f != nil && f.Changed
	}
	if changed("db") {
		ov.DBPath = &a.flags.dbPath
	}
	if changed("model") {
		ov.Model = &a.flags.model
	}
	if changed("host") {
		ov.Host = &a.flags.host
	}
	if changed("provider") {
		ov.Provider = &a.flags.provider
	}
	if changed("url") {
		ov.URL = &a.flags.url
	}
	cfg, err := registry.Load(config.LoadOptions{
		ConfigPath: a.flags.configPath,
		WorkDir:    a.workDir,
		Getenv:     a.getenv,
		Overrides:  ov,
	})
	if err != nil {
		return nil, configError(err)
	}
	return cfg, nil
}
