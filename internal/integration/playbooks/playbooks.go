// Package playbooks is the playbook integration ([skills]): the built-in
// diagnosis playbooks and those of skills.paths, served by the harness's
// read_skill tool (pkg/tools/skills holds the catalog). A playbook that
// does not load is skipped with a warning, never fatal.
package playbooks

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/doctor"
	"github.com/superbiz/superbiz/internal/integration"
	"github.com/superbiz/superbiz/internal/termsafe"
	"github.com/superbiz/superbiz/pkg/tools/skills"
)

// Source is the playbook integration; its zero value is ready.
type Source struct{}

// Name is the integration's name.
func (Source) Name() string { return "playbooks" }

// Build loads the catalog, reporting each skipped playbook through env.Warn.
func (Source) Build(_ context.Context, cfg *config.Config, env integration.Env, parts *integration.Parts) error {
	cat, err := Load(cfg, env.Warn)
	if err != nil {
		return err
	}
	parts.Playbooks = cat
	return nil
}

// Load reads the built-in playbooks and those of skills.paths, telling
// warn (nil: nobody) of each one skipped, by path and reason: the one way
// a run, `superbiz skills` and the shell completion read them.
func Load(cfg *config.Config, warn func(string)) (*skills.Catalog, error) {
	cat, err := skills.Load(Paths(cfg))
	if err != nil {
		return nil, fmt.Errorf("load playbooks: %w", err)
	}
	for _, p := range cat.Problems() {
		if warn != nil {
			warn("skipped playbook: " + termsafe.Strip(p.Error()))
		}
	}
	return cat, nil
}

// Doctor has no line of its own: `superbiz skills` lists the playbooks
// and every command warns about one that does not load.
func (Source) Doctor(context.Context, *config.Config, integration.Env) []doctor.Result { return nil }

// Tool is "": a playbook is guidance, not evidence.
func (Source) Tool() string { return "" }

// Setup is "": the source adds no tool.
func (Source) Setup() string { return "" }

// Reads is never called: the source adds no tool.
func (Source) Reads(json.RawMessage, json.RawMessage) []string { return nil }
