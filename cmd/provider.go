package cmd

import (
	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/registry"
	wsp "github.com/superbiz/superbiz/internal/workspace"
	"github.com/superbiz/superbiz/pkg/model"
)

// serverHint tells a person how to get the configured provider's server to
// answer; the provider's own words (internal/integration/<provider>).
func serverHint(cfg *config.Config) string {
	p, err := registry.Provider(cfg)
	if err != nil {
		return "hint: " + err.Error()
	}
	return p.ServerHint(cfg)
}

// modelHint tells a person what to do about the model failure me
// (workspace.ModelHint).
func modelHint(cfg *config.Config, me *model.Error) string { return wsp.ModelHint(cfg, me) }
