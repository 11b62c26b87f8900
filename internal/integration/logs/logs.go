// Package logs is the log integration ([[logs]]): the service logs read by
// the query_logs tool (pkg/tools/logs), its doctor check (how each source's
// files read, what a call would skip) and what eval reads of its results.
// A new log layout lives in internal/logparse, not here.
package logs

import (
	"context"
	"encoding/json"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/integration"
	logtool "github.com/superbiz/superbiz/pkg/tools/logs"
)

// Source is the log integration; its zero value is ready.
type Source struct{}

// Name is the integration's name.
func (Source) Name() string { return "logs" }

// Build adds query_logs over every [[logs]] entry; nothing without one. A
// victorialogs entry whose credential variable is unset is a configuration
// error.
func (Source) Build(_ context.Context, cfg *config.Config, _ integration.Env, parts *integration.Parts) error {
	srcs := Entries(cfg)
	if len(srcs) == 0 {
		return nil
	}
	for _, src := range srcs {
		if problem := secretProblem(cfg, src); problem != "" {
			return integration.Configf("%s", problem)
		}
	}
	return parts.Add(logtool.New(srcs))
}

// Reads names the log source a call asked for and its result reports.
func (Source) Reads(input, observation json.RawMessage) []string {
	return integration.Named(logtool.ToolName, "source", input, observation)
}

// Tool is the tool the source adds.
func (Source) Tool() string { return logtool.ToolName }

// Setup says how to configure the tool when the configuration has none.
func (Source) Setup() string { return "add a [[logs]] source to the config" }

// Guide is query_logs's line in the diagnosis prompt's list of evidence tools.
func (Source) Guide() integration.Guide {
	return integration.Guide{
		EN: "`query_logs`: log lines; a time window is required.",
		ZH: "`query_logs`：日志，必须给时间窗口。",
	}
}
