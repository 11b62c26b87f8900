// Package alerts reads the firing alerts of an Alertmanager (HTTP API v2,
// GET /api/v2/alerts) and turns one into the query a diagnosis starts from
// (docs/SPEC.md#superbiz-alerts). Everything an alert carries is untrusted
// data: it is control-stripped, redacted and clipped when it is decoded,
// before anything shows it, stores it or hands it to the model.
package alerts

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/superbiz/superbiz/internal/termsafe"
	"github.com/superbiz/superbiz/internal/textclip"
	"github.com/superbiz/superbiz/pkg/egress"
)

// The bounds of one answer and of each alert in it.
const (
	// MaxBody bounds Alertmanager's answer in bytes; a larger one is refused, never cut.
	MaxBody = 8 << 20
	// MaxAlerts bounds how many alerts one answer may hold.
	MaxAlerts = 10000
	// MaxPairs bounds the labels, and the annotations, kept of one alert (the first by key).
	MaxPairs = 32
	// MaxKey bounds a label or annotation name in bytes.
	MaxKey = 128
	// MaxValue bounds a label or annotation value in bytes.
	MaxValue = 1024
	// MaxRef bounds an alert reference (a name or a fingerprint) in bytes.
	MaxRef = 256
	// MaxGeneratorURL bounds the generatorURL kept of an alert, in bytes;
	// a longer one is left out whole (its expression would be cut).
	MaxGeneratorURL = 8 << 10
)

// The label and annotation names the listing and the query pick out.
const (
	LabelName        = "alertname"
	LabelSeverity    = "severity"
	LabelService     = "service"
	LabelJob         = "job"
	LabelInstance    = "instance"
	AnnotSummary     = "summary"
	AnnotDescription = "description"
)

// Alert is one firing alert as superbiz shows it (and as `alerts -o json`
// prints it): Alertmanager's own member names, every text already cleaned.
type Alert struct {
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
	StartsAt    time.Time         `json:"startsAt"`
	Fingerprint string            `json:"fingerprint"`
	// GeneratorURL links the rule that fired it (Prometheus' graph page of
	// the rule's expression, g0.expr), "" when absent or too long. Not
	// listed: it is read for the rule's expression.
	GeneratorURL string `json:"-"`
}

// Expr is the expression of the rule that fired the alert, read from its
// generatorURL (Prometheus writes it as the g0.expr parameter), "" when
// the URL holds none.
func (a Alert) Expr() string {
	u, err := url.Parse(a.GeneratorURL)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(u.Query().Get("g0.expr"))
}

// Name is the alert's alertname label.
func (a Alert) Name() string { return a.Labels[LabelName] }

// Severity is the severity label, "" when absent.
func (a Alert) Severity() string { return a.Labels[LabelSeverity] }

// Service is the service label, else Prometheus' job label.
func (a Alert) Service() string { return cmp.Or(a.Labels[LabelService], a.Labels[LabelJob]) }

// Instance is the instance label, "" when absent.
func (a Alert) Instance() string { return a.Labels[LabelInstance] }

// Summary is the summary annotation, "" when absent.
func (a Alert) Summary() string { return a.Annotations[AnnotSummary] }

// wireAlert is one gettableAlert of the v2 API: the members superbiz reads,
// the required ones checked so another API's answer is not taken for it.
type wireAlert struct {
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
	StartsAt    json.RawMessage   `json:"startsAt"`
	Fingerprint string            `json:"fingerprint"`
	// GeneratorURL is optional in the API.
	GeneratorURL string `json:"generatorURL"`
	Status       *struct {
		State string `json:"state"`
	} `json:"status"`
}

// isFingerprint reports whether s has the shape of Alertmanager's
// fingerprint: a 64-bit hash in lower-case hex, 1-32 digits.
func isFingerprint(s string) bool {
	if s == "" || len(s) > 32 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// ErrNotAlertmanager marks an answer that is not the Alertmanager API v2.
var ErrNotAlertmanager = errors.New("not an Alertmanager API v2 answer")

// maxSkipValue bounds the part of a malformed startsAt a skip note quotes.
const maxSkipValue = 64

// Decode reads the body of GET /api/v2/alerts: a JSON array of alerts,
// each with labels, startsAt, a fingerprint and a status. Its texts are
// cleaned (see Alert); the result is sorted newest first. An alert whose
// startsAt is there but not a time is left out and said so in skipped (one
// cleaned line each), so one bad alert does not hide the others. Anything
// else is ErrNotAlertmanager with what was wrong.
func Decode(body []byte) (as []Alert, skipped []string, err error) {
	if len(body) > MaxBody {
		return nil, nil, fmt.Errorf("the answer has more than %d bytes", MaxBody)
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, nil, fmt.Errorf("%w: the body is not a JSON array of alerts (%s)", ErrNotAlertmanager, textclip.Bytes(termsafe.Line(err.Error()), 120))
	}
	if len(raw) > MaxAlerts {
		return nil, nil, fmt.Errorf("the answer holds %d alerts, more than the %d superbiz reads", len(raw), MaxAlerts)
	}
	out := make([]Alert, 0, len(raw))
	for i, r := range raw {
		var w wireAlert
		if err := json.Unmarshal(r, &w); err != nil {
			return nil, nil, fmt.Errorf("%w: alert %d is not an alert object", ErrNotAlertmanager, i)
		}
		switch {
		case w.Labels == nil:
			return nil, nil, fmt.Errorf("%w: alert %d has no labels", ErrNotAlertmanager, i)
		case w.StartsAt == nil || string(w.StartsAt) == "null":
			return nil, nil, fmt.Errorf("%w: alert %d has no startsAt", ErrNotAlertmanager, i)
		case w.Status == nil:
			return nil, nil, fmt.Errorf("%w: alert %d has no status", ErrNotAlertmanager, i)
		case !isFingerprint(w.Fingerprint):
			return nil, nil, fmt.Errorf("%w: alert %d has no hexadecimal fingerprint", ErrNotAlertmanager, i)
		}
		var start time.Time
		if err := json.Unmarshal(w.StartsAt, &start); err != nil || start.IsZero() {
			value := textclip.Bytes(egress.Mask(termsafe.Line(string(w.StartsAt))).Shown().String(), maxSkipValue)
			skipped = append(skipped, fmt.Sprintf("alert %d (fingerprint %s) left out: its startsAt %s is not an RFC 3339 time", i, w.Fingerprint, value))
			continue
		}
		out = append(out, Alert{
			Labels:       cleanPairs(w.Labels, termsafe.Line, keyLabels),
			Annotations:  cleanPairs(w.Annotations, termsafe.Strip, keyAnnotations),
			StartsAt:     start.UTC(),
			Fingerprint:  w.Fingerprint,
			GeneratorURL: generatorURL(w.GeneratorURL),
		})
	}
	SortNewestFirst(out)
	return out, skipped, nil
}

// generatorURL is raw as an alert keeps it: on one line, without
// credentials, "" when longer than MaxGeneratorURL or not a URL.
func generatorURL(raw string) string {
	if len(raw) > MaxGeneratorURL {
		return ""
	}
	u, err := url.Parse(termsafe.Line(raw))
	if err != nil {
		return ""
	}
	u.User = nil
	return u.String()
}

// The names kept before any other when an alert has more than MaxPairs
// labels or annotations: the ones the listing and the query show.
var (
	keyLabels      = []string{LabelName, LabelSeverity, LabelService, LabelJob, LabelInstance}
	keyAnnotations = []string{AnnotSummary, AnnotDescription}
)

// cleanPairs keeps MaxPairs pairs, the names in first before the rest by
// name, names on one line and clipped, values stripped by strip, redacted
// (by name and by content) and then clipped, so a clip never cuts a secret
// into an unrecognisable part.
func cleanPairs(in map[string]string, strip func(string) string, first []string) map[string]string {
	out := make(map[string]string, min(len(in), MaxPairs))
	keys := slices.SortedFunc(maps.Keys(in), func(a, b string) int {
		ia, ib := slices.Index(first, a), slices.Index(first, b)
		if ia < 0 {
			ia = len(first)
		}
		if ib < 0 {
			ib = len(first)
		}
		return cmp.Or(cmp.Compare(ia, ib), strings.Compare(a, b))
	})
	for _, k := range keys {
		if len(out) == MaxPairs {
			break
		}
		name := textclip.Bytes(termsafe.Line(k), MaxKey)
		if name == "" {
			continue
		}
		out[name] = textclip.Bytes(egress.Field(name, strip(in[k])).String(), MaxValue)
	}
	return out
}

// SortNewestFirst orders alerts by start, newest first; equal starts by
// name, then fingerprint, so the order is stable.
func SortNewestFirst(as []Alert) {
	slices.SortStableFunc(as, func(a, b Alert) int {
		return cmp.Or(b.StartsAt.Compare(a.StartsAt), strings.Compare(a.Name(), b.Name()), strings.Compare(a.Fingerprint, b.Fingerprint))
	})
}

// ErrNotFound marks a reference no firing alert answers to.
var ErrNotFound = errors.New("no firing alert")

// CheckRef says what is wrong with ref as an alert reference, or nil.
func CheckRef(ref string) error {
	switch {
	case strings.TrimSpace(ref) == "":
		return errors.New("the alert reference is empty: give an alert name or a fingerprint (`superbiz alerts` lists them)")
	case len(ref) > MaxRef:
		return fmt.Errorf("the alert reference has %d bytes, the limit is %d", len(ref), MaxRef)
	case termsafe.Line(ref) != ref:
		return errors.New("the alert reference holds control characters")
	}
	return nil
}

// Pick finds the alert ref names among as (sorted newest first): the one
// with that fingerprint, else the newest whose alertname is ref. When
// several share the name, note says which was picked and why; an unknown
// ref is ErrNotFound naming some of the firing alerts.
func Pick(as []Alert, ref string) (a Alert, note string, err error) {
	if err := CheckRef(ref); err != nil {
		return Alert{}, "", err
	}
	ref = strings.TrimSpace(ref)
	for _, a := range as {
		if a.Fingerprint == ref {
			return a, "", nil
		}
	}
	var named []Alert
	for _, a := range as {
		if a.Name() == ref {
			named = append(named, a)
		}
	}
	if len(named) == 0 {
		return Alert{}, "", fmt.Errorf("%w named or fingerprinted %q (%s)", ErrNotFound, ref, firingNames(as))
	}
	SortNewestFirst(named)
	a = named[0]
	if len(named) > 1 {
		note = fmt.Sprintf("%d alerts named %s are firing; using the newest (fingerprint %s, started %s); name another by its fingerprint",
			len(named), a.Name(), a.Fingerprint, a.StartsAt.Format(time.RFC3339))
	}
	return a, note, nil
}

// firingNames lists the distinct names of as for a not-found message, at most 5.
func firingNames(as []Alert) string {
	if len(as) == 0 {
		return "no alert is firing"
	}
	var names []string
	for _, a := range as {
		if !slices.Contains(names, a.Name()) {
			names = append(names, a.Name())
		}
	}
	more := ""
	if len(names) > 5 {
		more = fmt.Sprintf(" and %d more", len(names)-5)
		names = names[:5]
	}
	return "firing: " + strings.Join(names, ", ") + more
}
