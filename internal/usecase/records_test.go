package usecase

import (
	"reflect"
	"testing"
	"time"

	"github.com/superbiz/superbiz/pkg/agent"
	"github.com/superbiz/superbiz/pkg/harness"
)

// The settings a run is stored with are the ones a replay runs under: every
// budget field, the limits and the language survive the store's record type.
func TestStoredSettingsRoundTrip(t *testing.T) {
	d := Deps{
		Budget:   harness.Budget{MaxModelCalls: 1, MaxToolCalls: 2, MaxTokens: 3, MaxRunBytes: 4, Deadline: 5 * time.Second, MaxNoGain: 6},
		Limits:   agent.Limits{Query: 7, PreviousTurn: 8, Input: 9, Draft: 10, Observation: 11},
		Language: "zh",
	}
	var got Deps
	got.useStoredSettings(*d.storedSettings())
	if got.Budget != d.Budget || got.Limits != d.Limits || got.Language != d.Language {
		t.Errorf("replayed under %+v %+v %q, stored %+v %+v %q", got.Budget, got.Limits, got.Language, d.Budget, d.Limits, d.Language)
	}
	// Settings from before limits and language were recorded keep today's.
	today := Deps{Limits: agent.DefaultLimits(), Language: "en"}
	old := *d.storedSettings()
	old.Limits, old.Language = nil, ""
	today.useStoredSettings(old)
	if today.Budget != d.Budget || !reflect.DeepEqual(today.Limits, agent.DefaultLimits()) || today.Language != "en" {
		t.Errorf("old settings: %+v %+v %q", today.Budget, today.Limits, today.Language)
	}
}
