package cmd

import (
	"context"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/demo"
	"github.com/superbiz/superbiz/internal/registry"
)

// loadConfigOf is the one place the configuration is resolved: the file
// found by the lookup order, then the environment, then the flags the user
// actually gave (g.Overrides); with --demo the runbook, log and database
// tools point at the demo workspace. Any failure is a configuration error:
// exit 2 without the usage line.
func (a *app) loadConfigOf(ctx context.Context, g globalOptions) (*config.Config, error) {
	cfg, err := a.resolveConfigOf(g)
	if err != nil {
		return nil, err
	}
	if g.Demo {
		if _, err := applyDemo(ctx, cfg, demo.DefaultDir(a.getenv)); err != nil {
			return nil, err
		}
	}
	return cfg, nil
}

// resolveConfigOf is loadConfigOf without --demo: the file, the
// environment and the flags given, read and never written.
func (a *app) resolveConfigOf(g globalOptions) (*config.Config, error) {
	cfg, err := registry.Load(config.LoadOptions{
		ConfigPath: g.ConfigPath,
		WorkDir:    a.workDir,
		Getenv:     a.getenv,
		Overrides:  g.Overrides,
	})
	if err != nil {
		return nil, configError(err)
	}
	return cfg, nil
}
