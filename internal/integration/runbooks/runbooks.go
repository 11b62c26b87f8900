// Package runbooks is the runbook integration ([knowledge]): the team's
// Markdown runbooks indexed in the run store and served by the
// lookup_knowledge tool (pkg/tools/knowledge), optionally searched by an
// embedding model of the configured provider; its doctor checks and what
// eval reads of its results.
package runbooks

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/integration"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/runstore"
	"github.com/superbiz/superbiz/pkg/tools/knowledge"
)

// Source is the runbook integration; its zero value is ready.
type Source struct {
	// maxWhole overrides MaxWholeRunbooks for Freeze (tests); 0 keeps it.
	maxWhole int64
}

// Name is the integration's name.
func (Source) Name() string { return "runbooks" }

// Components are the runbook index's tables in the run store.
func (Source) Components() []runstore.Component {
	return []runstore.Component{{Name: knowledge.SchemaName, Migrations: knowledge.Migrations()}}
}

// EmbedTimeout bounds one embedding call, at index and at search time, so
// a hung server delays a search by at most this much before BM25 answers.
const EmbedTimeout = 30 * time.Second

// Build indexes knowledge.paths in the run store and adds lookup_knowledge;
// nothing without paths.
func (Source) Build(_ context.Context, cfg *config.Config, env integration.Env, parts *integration.Parts) error {
	if !configured(cfg) {
		return nil
	}
	tables, err := env.Store.Tables(knowledge.SchemaName)
	if err != nil {
		return fmt.Errorf("runbook index: %w", err)
	}
	parts.Index = knowledge.NewIndex(tables, Paths(cfg))
	if name := Of(cfg).EmbedModel; name != "" {
		emb, err := embedClient(cfg, env.Provider)
		if err != nil {
			return &integration.ConfigError{Err: err}
		}
		parts.Index.WithEmbedder(name, emb)
	}
	parts.Adapters = append(parts.Adapters, knowledge.New(parts.Index))
	return nil
}

// Declare is lookup_knowledge's definition when Build would add the tool,
// without the run store its index lives in.
func (Source) Declare(cfg *config.Config) []model.Tool {
	if !configured(cfg) {
		return nil
	}
	return []model.Tool{knowledge.New(nil).Definition()}
}

// configured reports whether the configuration asks for the tool.
func configured(cfg *config.Config) bool { return len(Paths(cfg)) > 0 }

// embedClient is the client of [knowledge] embed_model, on the configured
// provider's server, by the one builder.
func embedClient(cfg *config.Config, p integration.Provider) (integration.Client, error) {
	return p.Client(cfg.Model, Of(cfg).EmbedModel, min(cfg.Model.RequestTimeout, EmbedTimeout))
}

// Reads names the runbooks a lookup returned.
func (Source) Reads(_, observation json.RawMessage) []string {
	var obs struct {
		Result struct {
			Documents []struct {
				Source string `json:"source"`
			} `json:"documents"`
		} `json:"result"`
	}
	_ = json.Unmarshal(observation, &obs) // a refused call has no documents
	var out []string
	for _, d := range obs.Result.Documents {
		out = append(out, knowledge.Name+":"+d.Source)
	}
	return out
}

// Tool is the tool the source adds.
func (Source) Tool() string { return knowledge.Name }

// Setup says how to configure the tool when the configuration has none.
func (Source) Setup() string { return "set [knowledge] paths in the config" }

// Guide is lookup_knowledge's line in the diagnosis prompt's list of evidence tools.
func (Source) Guide() integration.Guide {
	return integration.Guide{
		EN: "`lookup_knowledge`: the team's runbooks.",
		ZH: "`lookup_knowledge`：团队 runbook。",
	}
}
