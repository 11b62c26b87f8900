package usecase

import (
	"github.com/superbiz/superbiz/pkg/runrecord"
)

// storedSettings are the limits a run is made under, stored with it so a
// replay uses the same ones whatever today's configuration says.
func (d *Deps) storedSettings() *runrecord.Settings {
	limits := d.Limits
	return &runrecord.Settings{Budget: d.Budget, Limits: &limits, Language: d.Language, Provider: d.Provider, Demo: d.Demo}
}

// useStoredSettings makes d run under recorded settings: the budget always,
// the limits and language when the run recorded them.
func (d *Deps) useStoredSettings(s runrecord.Settings) {
	d.Budget = s.Budget
	if s.Limits != nil {
		d.Limits = *s.Limits
	}
	if s.Language != "" {
		d.Language = s.Language
	}
}
