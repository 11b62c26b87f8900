package runstore

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/tools"
)

// The JSON documents a run row holds: the checks and the settings are
// pkg/runrecord's records, the very types the engine writes them
// from; what `runs show` reads of a published result is declared here.

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
func settingsJSON(s *runrecord.Settings) (json.RawMessage, error) {
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
func (d *RunDetail) DecodeSettings() (s runrecord.Settings, ok bool, err error) {
	return decodeStored[runrecord.Settings](d.Settings, "settings are")
}

// DecodeChecks reads the run's checks; none when NULL.
func (d *RunDetail) DecodeChecks() ([]runrecord.Check, error) {
	checks, _, err := decodeStored[[]runrecord.Check](d.Checks, "checks are")
	return checks, err
}

// DecodeResultSummary reads the conclusion and counts of the run's
// published result; ok is false when the run published none.
func (d *RunDetail) DecodeResultSummary() (r StoredResultSummary, ok bool, err error) {
	return decodeStored[StoredResultSummary](d.PublishedResult, "result is")
}

// legacyCodeCancelled is the tool error code CANCELLED as releases before
// run store migration 4 spelled it. The migration rewrites the stored codes
// (tool_invocations.error_code, runs.error_code); an observation keeps the
// words the model was shown, so a reader of one maps them with ToolErrorCode.
const legacyCodeCancelled = "CANCELED"

// ToolErrorCode is a tool error code read from a stored document (a
// recorded observation) in today's spelling: CANCELED, as older releases
// wrote it, is CANCELLED; every other code is returned as it is.
func ToolErrorCode(code string) string {
	if code == legacyCodeCancelled {
		return tools.CodeCancelled
	}
	return code
}

// RecordedOutcome is a stored observation as its tool's answer again: its
// evidence status and result, or its ERROR with the code; ok is false for
// an observation that holds no answer (discarded, stopped). Replay and
// eval's frozen packs answer from recordings with it.
func RecordedOutcome(observation json.RawMessage) (out tools.Outcome, ok bool) {
	var obs struct {
		EvidenceStatus tools.EvidenceStatus `json:"evidence_status"`
		ErrorCode      string               `json:"error_code"`
		Result         json.RawMessage      `json:"result"`
	}
	if err := json.Unmarshal(observation, &obs); err != nil || obs.EvidenceStatus == "" {
		return tools.Outcome{}, false
	}
	if obs.EvidenceStatus == tools.StatusError {
		// An old observation spells CANCELLED as CANCELED.
		return tools.Failed(ToolErrorCode(obs.ErrorCode), errors.New("recorded error")), true
	}
	return tools.Outcome{Status: obs.EvidenceStatus, Result: obs.Result}, true
}
