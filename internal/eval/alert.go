package eval

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strings"

	"github.com/superbiz/superbiz/internal/alerts"
)

// Firing is the pack's alert as `diagnose --alert` receives it: encoded as
// Alertmanager's API v2 answer and decoded by alerts.Decode, so its text is
// cleaned, bounded and redacted exactly as a live alert's; its fingerprint
// is the FNV-64a hash of its sorted labels, as Alertmanager computes one.
func (a *Alert) Firing() (alerts.Alert, error) {
	h := fnv.New64a()
	for _, k := range slices.Sorted(maps.Keys(a.Labels)) {
		h.Write([]byte(k))
		h.Write([]byte{0xff})
		h.Write([]byte(a.Labels[k]))
		h.Write([]byte{0xff})
	}
	wire := []map[string]any{{
		"labels": a.Labels, "annotations": a.Annotations, "startsAt": a.StartsAt,
		"fingerprint": fmt.Sprintf("%016x", h.Sum64()), "status": map[string]any{"state": "active"},
	}}
	body, err := json.Marshal(wire)
	if err != nil {
		return alerts.Alert{}, fmt.Errorf("encode the alert: %w", err)
	}
	as, skipped, err := alerts.Decode(body)
	switch {
	case err != nil:
		return alerts.Alert{}, fmt.Errorf("the pack's alert: %w", err)
	case len(as) == 0:
		return alerts.Alert{}, fmt.Errorf("the pack's alert: %s", strings.Join(skipped, "; "))
	}
	return as[0], nil
}
