package usecase

import (
	"github.com/superbiz/superbiz/internal/agent"
	"github.com/superbiz/superbiz/internal/harness"
	"github.com/superbiz/superbiz/internal/runstore"
)

// The use case writes and reads the run store's own record types; these
// conversions are the one place where harness and agent values meet them.

// storedSettings are the limits a run is made under, stored with it so a
// replay uses the same ones whatever today's configuration says.
func (d *Deps) storedSettings() *runstore.StoredSettings {
	b, l := d.Budget, d.Limits
	return &runstore.StoredSettings{
		MaxModelCalls: b.MaxModelCalls, MaxToolCalls: b.MaxToolCalls, MaxTokens: b.MaxTokens,
		MaxRunBytes: b.MaxRunBytes, Deadline: b.Deadline, MaxNoGain: b.MaxNoGain,
		Limits:   &runstore.StoredLimits{Query: l.Query, PreviousTurn: l.PreviousTurn, Input: l.Input, Draft: l.Draft, Observation: l.Observation},
		Language: d.Language,
	}
}

// useStoredSettings makes d run under recorded settings: the budget always,
// the limits and language when the run recorded them.
func (d *Deps) useStoredSettings(s runstore.StoredSettings) {
	d.Budget = harness.Budget{
		MaxModelCalls: s.MaxModelCalls, MaxToolCalls: s.MaxToolCalls, MaxTokens: s.MaxTokens,
		MaxRunBytes: s.MaxRunBytes, Deadline: s.Deadline, MaxNoGain: s.MaxNoGain,
	}
	if l := s.Limits; l != nil {
		d.Limits = agent.Limits{Query: l.Query, PreviousTurn: l.PreviousTurn, Input: l.Input, Draft: l.Draft, Observation: l.Observation}
	}
	if s.Language != "" {
		d.Language = s.Language
	}
}

// storedChecks are the output's checks as the store keeps them.
func storedChecks(in []Check) []runstore.StoredCheck {
	out := make([]runstore.StoredCheck, 0, len(in))
	for _, c := range in {
		out = append(out, runstore.StoredCheck{Tool: c.Tool, EvidenceStatus: c.EvidenceStatus, Summary: c.Summary})
	}
	return out
}
