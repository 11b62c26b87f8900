package runstore

import (
	"encoding/json"
	"fmt"
	"time"
)

// The JSON documents a run row holds have their own types here, so the
// stored shape is declared once, by the layer that keeps it, and readers
// (`runs`, replay) never decode a record with another layer's type whose
// JSON could drift from what was written.

// StoredCheck is one element of a run's `checks` column: the evidence check
// as the run printed it (docs/SPEC.md#diagnose--o-json).
type StoredCheck struct {
	Tool           string `json:"tool"`
	EvidenceStatus string `json:"evidence_status"`
	// ErrorCode is set only by runs stored before an ERROR's code moved into
	// the summary; current writers leave it empty.
	ErrorCode string `json:"error_code,omitempty"`
	Summary   string `json:"summary"`
}

// StoredSettings is a run's `budget` column: the limits the run was made
// under, kept so a replay uses the same ones whatever today's configuration
// says. (The column kept its first name; migrations are append-only.)
type StoredSettings struct {
	MaxModelCalls int           `json:"max_model_calls"`
	MaxToolCalls  int           `json:"max_tool_calls"`
	MaxTokens     int           `json:"max_tokens"`
	MaxRunBytes   int           `json:"max_run_bytes"`
	Deadline      time.Duration `json:"deadline"`
	MaxNoGain     int           `json:"max_no_gain"`
	// Limits are the agent's text limits; nil in runs stored before they were recorded.
	Limits *StoredLimits `json:"limits,omitempty"`
	// Language is the answer language; "" in runs stored before it was recorded.
	Language string `json:"language,omitempty"`
}

// StoredLimits are the agent's text limits (bytes) recorded with a run.
type StoredLimits struct {
	Query        int `json:"query"`
	PreviousTurn int `json:"previous_turn"`
	Input        int `json:"input"`
	Draft        int `json:"draft"`
	Observation  int `json:"observation"`
}

// StoredResultSummary is what `runs show` reads of a stored PublishedResult:
// its conclusion and how many findings and knowledge references it has.
type StoredResultSummary struct {
	Conclusion *StoredConclusion `json:"conclusion"`
	// Findings and KnowledgeRefs are counted, not interpreted.
	Findings      []json.RawMessage `json:"findings"`
	KnowledgeRefs []json.RawMessage `json:"knowledge_refs"`
}

// StoredConclusion is the conclusion of a stored PublishedResult.
type StoredConclusion struct {
	Summary    string `json:"summary"`
	Confidence string `json:"confidence"`
}

// errUnreadable names a stored document that does not decode (a damaged
// record, or one a version this one does not know wrote): "stored checks are
// unreadable: …", which `runs show` prints as it is.
func errUnreadable(documentIs string, err error) error {
	return fmt.Errorf("stored %s unreadable: %w", documentIs, err)
}

// settingsJSON is the settings as the budget column keeps them; nil stays nil (NULL).
func settingsJSON(s *StoredSettings) (json.RawMessage, error) {
	if s == nil {
		return nil, nil
	}
	return json.Marshal(s)
}

// decodeStored reads a stored JSON document; ok is false when it is NULL.
func decodeStored[T any](raw json.RawMessage, documentIs string) (v T, ok bool, err error) {
	if len(raw) == 0 {
		return v, false, nil
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		var zero T
		return zero, false, errUnreadable(documentIs, err)
	}
	return v, true, nil
}

// DecodeSettings reads the run's settings; ok is false when none were
// stored (NULL), and an error names a document that does not decode.
func (d *RunDetail) DecodeSettings() (s StoredSettings, ok bool, err error) {
	return decodeStored[StoredSettings](d.Settings, "settings are")
}

// DecodeChecks reads the run's checks; none when NULL.
func (d *RunDetail) DecodeChecks() ([]StoredCheck, error) {
	checks, _, err := decodeStored[[]StoredCheck](d.Checks, "checks are")
	return checks, err
}

// DecodeResultSummary reads the conclusion and counts of the run's
// published result; ok is false when the run published none.
func (d *RunDetail) DecodeResultSummary() (r StoredResultSummary, ok bool, err error) {
	return decodeStored[StoredResultSummary](d.PublishedResult, "result is")
}

// DecodeReasons reads a guard review's audit-only reasons; none when NULL.
func (g GuardReview) DecodeReasons() ([]string, error) {
	reasons, _, err := decodeStored[[]string](g.Reasons, "reasons are")
	return reasons, err
}
