// Package tools is the contract between the harness and the evidence tools:
// what an adapter declares, receives and returns. It holds no tool; the
// implementations live in the sub-packages (knowledge, logs, sqlquery,
// metrics, skills), the integrations under internal/integration build them
// and the harness runs them through its Toolset.
package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/superbiz/superbiz/pkg/model"
)

// EvidenceStatus is the only verdict of an evidence call the model and the guards see.
type EvidenceStatus string

// The evidence statuses of docs/SPEC.md#observations.
const (
	EvidenceFound EvidenceStatus = "EVIDENCE_FOUND"
	NoEvidence    EvidenceStatus = "NO_EVIDENCE"
	StatusError   EvidenceStatus = "ERROR"
)

// The stable error codes an ERROR observation may carry; nothing else reaches the model.
const (
	CodeInvalidInput = "INVALID_INPUT"
	CodeNotReadOnly  = "NOT_READ_ONLY"
	// CodeNotAllowed is a read the tool refuses by policy although it writes
	// nothing: credential tables, other sessions' statement text.
	CodeNotAllowed = "NOT_ALLOWED"
	CodeTimeout    = "TIMEOUT"
	// CodeCancelled is a call stopped because its caller cancelled it
	// (Ctrl-C, a client gone), never a timeout: the word of httpsource's
	// classification (httpsource.Cancelled).
	CodeCancelled   = "CANCELLED"
	CodeUnavailable = "UNAVAILABLE"
	CodeUnrecorded  = "UNRECORDED"
	// CodeNotRecorded is eval's answer, in a pack frozen by `eval pack`,
	// to a MySQL or PostgreSQL statement the frozen run did not make: the
	// pack holds only the run's statements and their observations.
	CodeNotRecorded = "NOT_RECORDED"
	CodeInternal    = "INTERNAL"
)

// ContextCode is the code of a call stopped because its context ended (err
// is or wraps the context's error): CANCELLED for a cancel, TIMEOUT for a
// deadline (the call's limit or the run's), "" for any other error. Every
// adapter classifies a context's end with it, so a cancel is never a timeout.
func ContextCode(err error) string {
	switch {
	case errors.Is(err, context.Canceled):
		return CodeCancelled
	case errors.Is(err, context.DeadlineExceeded):
		return CodeTimeout
	}
	return ""
}

// Call is what an adapter receives: the run's identity, the exact Tool Call ID
// and the unwrapped, canonical business input.
type Call struct {
	SessionID  string
	RunID      string
	ToolCallID string
	Tool       string
	// Input is the canonical business input returned by Adapter.Canonical.
	Input json.RawMessage
	// Now is the run's clock (SUPERBIZ_NOW or recorded), for relative windows.
	Now time.Time
	// MaxBytes bounds the JSON encoding of Outcome.Result: shrink to fit.
	MaxBytes int
	// Progress, when set, is told each part of a long call as it finishes
	// (build_timeline: one detector's coverage and events), so a screen can
	// fill in before the result; nil when nobody watches. It must not block.
	Progress func(Step)
}

// Report tells c.Progress that step finished, when someone watches.
func (c Call) Report(step Step) {
	if c.Progress != nil && step != nil {
		c.Progress(step)
	}
}

// Step is one finished part of a long call, reported while the call runs.
// The tool that reports it defines its type (timeline.Detected) and masks
// it as its result is masked; observers switch on the type they know.
type Step interface {
	// StepOf names the tool whose call reported the step.
	StepOf() string
}

// Outcome is an adapter's answer. Result is a whitelisted projection (a value
// that marshals to a JSON object); Detail is internal and never reaches the model.
type Outcome struct {
	Status    EvidenceStatus
	ErrorCode string
	Result    any
	Detail    error
	// EmptyWindow, set only with NO_EVIDENCE, says the asked window held no
	// data at all (coverage "none"): the source and its actual range, one
	// line. Such a check is missing data, never a negative.
	EmptyWindow string
}

// CoverageNone is the coverage of an observation whose window held no data.
const CoverageNone = "none"

// CoveragePartial is the coverage of an observation whose window held data
// its filters could not judge (entries without a level or service the
// layout could read, entries without a readable time): a negative resting
// on it is missing data, as for CoverageNone.
const CoveragePartial = "partial"

// Canonical is a validated business input: the canonical JSON (defaults
// applied, stable member order) and a one-line summary for timelines.
type Canonical struct {
	Input   json.RawMessage
	Summary string
}

// Adapter is one evidence tool. Definition's Parameters is the schema of the
// business input only; the harness wraps it in the progress envelope.
type Adapter interface {
	Definition() model.Tool
	// Canonical strictly decodes and validates a business input. An error
	// (wrapping ErrInvalidInput) becomes INVALID_INPUT without executing.
	Canonical(input json.RawMessage) (Canonical, error)
	Execute(ctx context.Context, call Call) Outcome
}

// Tallier is an adapter that can say in a few words how much one of its
// results holds ("412 matched"), so a report tells two checks of one tool
// apart without showing their evidence. result is the projection as the
// model saw it (a recorded one on replay); "" when it says nothing.
type Tallier interface {
	Tally(result json.RawMessage) string
}

// TallyCount reads the integer member name of a result object and says it
// with its unit, singular for one ("1 row", "412 rows"); "" when the result
// has no such number. Adapters' Tally methods share it.
func TallyCount(result json.RawMessage, name, one, many string) string {
	var members map[string]json.RawMessage
	if json.Unmarshal(result, &members) != nil {
		return ""
	}
	raw := members[name]
	var n int
	if raw == nil || string(raw) == "null" || json.Unmarshal(raw, &n) != nil {
		return ""
	}
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// TallyNumber says a number of a result the way a tally shows it: three
// significant digits ("0.82", "2.02", "12.5"), whole from 1000 up ("4824"),
// so a score or a maximum reads at a glance and stays short.
func TallyNumber(v float64) string {
	if a := math.Abs(v); a >= 999.5 && a < 1e15 { // 999.6 rounds to 1000, not "1e+03"
		return strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// ErrInvalidInput marks a business input the adapter refuses before running.
var ErrInvalidInput = errors.New("invalid input")

// InvalidInput builds an ErrInvalidInput error with a reason for the audit log.
func InvalidInput(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidInput, fmt.Sprintf(format, args...))
}

// DocRef names one runbook section: the part of each lookup_knowledge
// document that an answer may cite and a release may publish or remember.
type DocRef struct {
	DocID  string `json:"doc_id"`
	Title  string `json:"title"`
	Source string `json:"source"`
}

// MaxToolDescription bounds, in characters, the description every tool
// declares to the model (small local models pay for every token): the
// rest of what a tool does is in docs/SPEC.md.
const MaxToolDescription = 1500

// Failed is a convenience for an ERROR outcome with a stable code.
func Failed(code string, detail error) Outcome {
	return Outcome{Status: StatusError, ErrorCode: code, Detail: detail}
}

// Playbook is one diagnosis playbook (SKILL.md): guidance, never evidence.
type Playbook struct {
	Name        string
	Description string
	Body        string
	// Source says where it came from ("builtin" or a file path), for `skills list`.
	Source string
}

// Playbooks is the catalog read_skill and the prompt's compact catalog use.
type Playbooks interface {
	List() []Playbook
	Get(name string) (Playbook, bool)
}

// PlaybookList is a fixed Playbooks catalog, in its order: playbooks a
// program (or a test) declares in code instead of loading them from files.
type PlaybookList []Playbook

// List implements Playbooks.
func (l PlaybookList) List() []Playbook { return l }

// Get implements Playbooks: the first playbook named name, if any.
func (l PlaybookList) Get(name string) (Playbook, bool) {
	for _, p := range l {
		if p.Name == name {
			return p, true
		}
	}
	return Playbook{}, false
}

// EncodeCanonical encodes a canonical input the way every adapter must: no
// HTML escaping (so `>=` stays readable in the audit) and no trailing newline.
func EncodeCanonical(v any) (json.RawMessage, error) {
	b, err := MarshalJSON(v)
	if err != nil {
		return nil, fmt.Errorf("encode canonical input: %w", err)
	}
	return b, nil
}

// MarshalJSON is json.Marshal without HTML escaping, for every JSON the
// product writes: a template reads "<num>" for people and models, never
// "\u003cnum\u003e" (embedded json.RawMessage values are compacted
// without escaping too).
func MarshalJSON(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return json.RawMessage(bytes.TrimSuffix(b.Bytes(), []byte("\n"))), nil
}

// SourceName checks the name of the i-th configured source of an adapter
// (trimmed): not empty, and not taken by an earlier source (seen, which it
// updates). kind names the adapter in messages ("logs"), section the config
// table ("logs" for [[logs]]).
func SourceName(kind, section string, i int, raw string, seen map[string]bool) (string, error) {
	name := strings.TrimSpace(raw)
	if name == "" {
		return "", fmt.Errorf("%s source #%d: name is empty: give each [[%s]] a name", kind, i+1, section)
	}
	if seen[name] {
		return "", fmt.Errorf("%s source %q: the name is used twice: names must be unique", kind, name)
	}
	seen[name] = true
	return name, nil
}

// Pick resolves the source a business input names among the configured
// names, in order: "" picks the only one; a missing choice among several or
// an unknown name is an ErrInvalidInput naming the choices. kind names the
// sources in messages ("log source").
func Pick(name string, names []string, kind string) (int, error) {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = strconv.Quote(n)
	}
	name = strings.TrimSpace(name)
	switch {
	case name == "" && len(names) == 1:
		return 0, nil
	case name == "":
		return 0, InvalidInput("source is required when several %ss are configured: one of %s", kind, strings.Join(quoted, ", "))
	}
	for i, n := range names {
		if n == name {
			return i, nil
		}
	}
	return 0, InvalidInput("unknown %s %q: use one of %s", kind, name, strings.Join(quoted, ", "))
}

// ReadSkillTool is the name of the guidance tool that serves a diagnosis
// playbook (pkg/harness runs it): declared here, below the harness, so that
// what reads stored calls (eval pack) names it without importing the harness.
const ReadSkillTool = "read_skill"
