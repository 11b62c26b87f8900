package runstore

import (
	"encoding/json"
	"fmt"

	"github.com/superbiz/superbiz/pkg/egress"
)

// The run store is the last gate before the disk: every text a run writes
// (the query, answers, summaries, messages) and every JSON document (model
// rounds as sent and received, canonical tool inputs, observations, results,
// guard reasons) is redacted here, whoever the caller is, so the file never
// holds a secret that the redaction rules recognise. Redaction is idempotent,
// so forms already redacted upstream are stored unchanged.

// storedText is s as the store keeps it: through the egress door.
func storedText(s string) string { return egress.Mask(s).String() }

// storedJSON is the JSON document v as the store keeps it (nil stays nil).
// v must already have passed checkJSON.
func storedJSON(field string, v json.RawMessage) (json.RawMessage, error) {
	if len(v) == 0 {
		return v, nil
	}
	out, err := egress.MaskJSON(v)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", field, err)
	}
	return out.Bytes(), nil
}

// Redacted is a document read from the store in the form the store keeps
// today: runs recorded before redaction at rest may hold raw forms. A
// document that is not JSON (a damaged record) is returned as it is.
func Redacted(v json.RawMessage) json.RawMessage {
	if len(v) == 0 {
		return v
	}
	out, err := egress.MaskJSON(v)
	if err != nil {
		return v
	}
	return out.Bytes()
}
