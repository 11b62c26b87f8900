package cmd

import (
	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/integration"
	"github.com/superbiz/superbiz/internal/registry"
	"github.com/superbiz/superbiz/pkg/model"
)

// modelClient is what cmd needs of either provider's adapter
// (integration.Client): the model port, the embedder, the server's masked
// URL and whether it serves the model.
type modelClient = integration.Client

// serverHint tells a person how to get the configured provider's server to
// answer; the provider's own words (internal/integration/<provider>).
func serverHint(cfg *config.Config) string {
	p, err := registry.Provider(cfg)
	if err != nil {
		return "hint: " + err.Error()
	}
	return p.ServerHint(cfg)
}

// modelHint tells a person what to do about the model failure me that
// ended a run (nil: the server was not reached), in the configured
// provider's words.
func modelHint(cfg *config.Config, me *model.Error) string {
	p, err := registry.Provider(cfg)
	if err != nil {
		return "hint: " + err.Error()
	}
	return p.Hint(cfg, me)
}
