// Package runview is the JSON view of stored runs, one shape for `superbiz
// runs -o json`, `runs show -o json` and the MCP tools runs_list and
// run_show (docs/SPEC.md#superbiz-runs): stored documents passed through,
// redacted and bounded; and the resolution of run and session references
// every caller shares.
package runview

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/superbiz/superbiz/internal/notfound"
	"github.com/superbiz/superbiz/internal/textclip"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/runstore"
)

// Summary is one element of `runs -o json`: the stored summary with
// snake_case keys, RFC 3339 times and null for what a run does not have.
type Summary struct {
	RunID          string               `json:"run_id"`
	Number         int64                `json:"number"`
	SessionID      string               `json:"session_id"`
	CreatedAt      string               `json:"created_at"`
	FinishedAt     *string              `json:"finished_at"`
	Query          string               `json:"query"`
	Intent         string               `json:"intent"`
	Status         runrecord.RunStatus  `json:"status"`
	ReleaseOutcome runrecord.Outcome    `json:"release_outcome"`
	StopReason     runrecord.StopReason `json:"stop_reason"`
	Lifecycle      runrecord.Lifecycle  `json:"lifecycle"`
	Model          string               `json:"model"`
	Usage          runrecord.Usage      `json:"usage"`
	ErrorCode      *string              `json:"error_code"`
	ReplayOf       *string              `json:"replay_of"`
}

// SummaryOf is r as `runs -o json` lists it.
func SummaryOf(r runstore.RunSummary) Summary {
	s := Summary{
		RunID: r.ID, Number: r.Number, SessionID: r.SessionID, CreatedAt: r.CreatedAt.UTC().Format(time.RFC3339Nano),
		Query: egress.Mask(r.Query).String(), Intent: r.Intent, Status: r.Status, ReleaseOutcome: r.ReleaseOutcome,
		StopReason: r.StopReason, Lifecycle: r.Lifecycle, Model: r.Model,
		Usage:     r.Usage,
		ErrorCode: nullable(r.ErrorCode), ReplayOf: nullable(r.ReplayOf),
	}
	if !r.FinishedAt.IsZero() {
		s.FinishedAt = nullable(r.FinishedAt.UTC().Format(time.RFC3339Nano))
	}
	return s
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// rawJSON passes stored JSON through, null when absent; a stored value that
// is not valid JSON (a damaged record) is shown as a string rather than
// breaking the whole document.
func rawJSON(v json.RawMessage, empty string) json.RawMessage {
	if len(strings.TrimSpace(string(v))) == 0 {
		return json.RawMessage(empty)
	}
	if !json.Valid(v) {
		b, err := json.Marshal(string(v))
		if err != nil {
			return json.RawMessage("null")
		}
		return b
	}
	return v
}

// Detail is `runs show -o json`: the summary plus the answer, the
// published result, the checks and the audit.
type Detail struct {
	Summary
	Host  string  `json:"host"`
	Clock *string `json:"clock"`
	// Settings keeps the key "budget" of docs/SPEC.md (the column's name).
	Settings json.RawMessage `json:"budget"`
	Answer   string          `json:"answer"`
	Result   json.RawMessage `json:"result"`
	Checks   json.RawMessage `json:"checks"`
	Error    *RunError       `json:"error"`
	// InvocationsTotal and InvocationsOffset place the page Invocations
	// holds: how many the run has, and how many come before the page.
	InvocationsTotal  int           `json:"invocations_total"`
	InvocationsOffset int           `json:"invocations_offset"`
	Invocations       []Invocation  `json:"invocations"`
	ModelRounds       []ModelRound  `json:"model_rounds"`
	GuardReviews      []GuardReview `json:"guard_reviews"`
}

// RunError is a failed run's stable code and message, as in diagnose.
type RunError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Invocation is one canonical tool invocation of the audit.
type Invocation struct {
	Seq            int             `json:"seq"`
	ToolCallID     string          `json:"tool_call_id"`
	Tool           string          `json:"tool"`
	Kind           string          `json:"kind"`
	Input          json.RawMessage `json:"input"`
	Summary        string          `json:"summary"`
	Status         string          `json:"status"`
	EvidenceStatus *string         `json:"evidence_status"`
	ErrorCode      *string         `json:"error_code"`
	Control        *string         `json:"control"`
	Observation    json.RawMessage `json:"observation"`
	StartedAt      string          `json:"started_at"`
	DurationMS     int64           `json:"duration_ms"`
	// Detail is the audit-only reason of a refused or failed call.
	Detail *string `json:"detail"`
	// Evaluated and Evaluation are the previous observation the call judged.
	Evaluated   *string `json:"evaluated"`
	Evaluation  *string `json:"evaluation"`
	EmptyWindow *string `json:"empty_window"`
	Tally       *string `json:"tally"`
}

// ModelRound is one model round without its (large) request and response.
type ModelRound struct {
	Seq              int    `json:"seq"`
	Purpose          string `json:"purpose"`
	PromptTokens     int    `json:"prompt_tokens"`
	CompletionTokens int    `json:"completion_tokens"`
	// TokensEstimated: the provider reported no usage; both counts are estimates.
	TokensEstimated bool    `json:"tokens_estimated"`
	DurationMS      int64   `json:"duration_ms"`
	ErrorKind       *string `json:"error_kind"`
	StartedAt       string  `json:"started_at"`
}

// GuardReview is one release guard's verdict and its audit-only reasons.
type GuardReview struct {
	Seq       int             `json:"seq"`
	Guard     string          `json:"guard"`
	Verdict   string          `json:"verdict"`
	Reasons   json.RawMessage `json:"reasons"`
	CreatedAt string          `json:"created_at"`
}

// DetailOf is d as `runs show -o json` and run_show show it.
func DetailOf(d *runstore.RunDetail) Detail {
	out := Detail{
		Summary:           SummaryOf(d.RunSummary),
		Host:              d.Host,
		Settings:          rawJSON(d.Settings, "null"),
		Answer:            egress.Mask(d.Answer).String(),
		Result:            rawJSON(runstore.Redacted(d.PublishedResult), "null"),
		Checks:            rawJSON(runstore.Redacted(d.Checks), "[]"),
		InvocationsTotal:  d.InvocationsTotal,
		InvocationsOffset: d.InvocationsOffset,
		Invocations:       make([]Invocation, 0, len(d.Invocations)),
		ModelRounds:       make([]ModelRound, 0, len(d.ModelRounds)),
		GuardReviews:      make([]GuardReview, 0, len(d.GuardReviews)),
	}
	if !d.Clock.IsZero() {
		out.Clock = nullable(d.Clock.Format(time.RFC3339Nano))
	}
	if d.ErrorCode != "" || d.ErrorMessage != "" {
		out.Error = &RunError{Code: d.ErrorCode, Message: egress.Mask(d.ErrorMessage).String()}
	}
	for _, inv := range d.Invocations {
		out.Invocations = append(out.Invocations, Invocation{
			Seq: inv.Seq, ToolCallID: inv.ToolCallID, Tool: inv.Tool, Kind: string(inv.Kind),
			Input: shownValue(inv.Input), Summary: shownMember(inv.Summary), Status: inv.Status,
			EvidenceStatus: nullable(string(inv.EvidenceStatus)), ErrorCode: nullable(inv.ErrorCode), Control: nullable(inv.Control),
			Observation: shownValue(inv.Observation), StartedAt: timeJSON(inv.StartedAt), DurationMS: inv.Duration.Milliseconds(),
			Detail: nullable(shownMember(inv.Detail)), Evaluated: nullable(shownMember(inv.Evaluated)), Evaluation: nullable(inv.Evaluation),
			EmptyWindow: nullable(shownMember(inv.EmptyWindow)), Tally: nullable(shownMember(inv.Tally)),
		})
	}
	for _, r := range d.ModelRounds {
		out.ModelRounds = append(out.ModelRounds, ModelRound{
			Seq: r.Seq, Purpose: string(r.Purpose), PromptTokens: r.PromptTokens, CompletionTokens: r.CompletionTokens,
			TokensEstimated: TokensEstimated(r), DurationMS: r.Duration.Milliseconds(), ErrorKind: nullable(r.ErrorKind), StartedAt: timeJSON(r.StartedAt),
		})
	}
	for _, g := range d.GuardReviews {
		out.GuardReviews = append(out.GuardReviews, GuardReview{
			Seq: g.Seq, Guard: g.Guard, Verdict: g.Verdict, Reasons: rawJSON(runstore.Redacted(g.Reasons), "[]"), CreatedAt: timeJSON(g.CreatedAt),
		})
	}
	return out
}

// shownValueBytes bounds an invocation's input and observation as `runs
// show -o json` and run_show show them: a larger one (from a store written
// with a raised limits.observation, or crafted) is shown as a JSON string,
// its first bytes and textclip.Marker, never whole.
const shownValueBytes = 32 << 10

// shownMemberBytes bounds each text member of an invocation (summary,
// detail, evaluated, empty_window, tally) as they are shown.
const shownMemberBytes = 4 << 10

// shownValue is a stored JSON member as shown: redacted, null when absent,
// and a cut string past shownValueBytes.
func shownValue(v json.RawMessage) json.RawMessage {
	out := rawJSON(runstore.Redacted(v), "null")
	if len(out) <= shownValueBytes {
		return out
	}
	b, err := json.Marshal(textclip.Bytes(string(out), shownValueBytes))
	if err != nil {
		return json.RawMessage("null")
	}
	return b
}

// shownMember is a stored text member as shown: redacted, and cut past
// shownMemberBytes.
func shownMember(s string) string {
	return textclip.Bytes(egress.Mask(s).String(), shownMemberBytes)
}

func timeJSON(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// TokensEstimated reports a round whose provider sent no usage, so the
// adapter estimated its token counts (the stored response's usage.estimated).
func TokensEstimated(r runrecord.ModelRound) bool {
	var resp struct {
		Usage struct {
			Estimated bool `json:"estimated"`
		} `json:"usage"`
	}
	return len(r.Response) > 0 && json.Unmarshal(r.Response, &resp) == nil && resp.Usage.Estimated
}

// RunPage loads the run ref names (an ID, last, last~N or a unique prefix)
// with one page of its tool invocations, as `runs show` and MCP's run_show
// show it; no such run is a not-found error naming the store looked in.
func RunPage(ctx context.Context, store *runstore.Store, ref string, page runstore.InvocationPage) (*runstore.RunDetail, error) {
	return loadRun(ctx, store, ref, func(ctx context.Context, id string) (*runstore.RunDetail, error) {
		return store.GetRunPage(ctx, id, page)
	})
}

// Run is RunPage with every invocation (eval pack).
func Run(ctx context.Context, store *runstore.Store, ref string) (*runstore.RunDetail, error) {
	return loadRun(ctx, store, ref, store.GetRun)
}

// ReplayableRun is Run for `replay`, whose last and last~N count no
// replay (runstore.ResolveReplayable).
func ReplayableRun(ctx context.Context, store *runstore.Store, ref string) (*runstore.RunDetail, error) {
	id, err := store.ResolveReplayable(ctx, ref)
	if err = refError(err, "run", ref, store.Path()); err != nil {
		return nil, err
	}
	return loadID(ctx, store, id, store.GetRun)
}

// loadRun resolves ref and loads the run with get.
func loadRun(ctx context.Context, store *runstore.Store, ref string, get func(context.Context, string) (*runstore.RunDetail, error)) (*runstore.RunDetail, error) {
	id, err := ResolveRun(ctx, store, ref)
	if err != nil {
		return nil, err
	}
	return loadID(ctx, store, id, get)
}

// loadID loads the run of a resolved ID with get.
func loadID(ctx context.Context, store *runstore.Store, id string, get func(context.Context, string) (*runstore.RunDetail, error)) (*runstore.RunDetail, error) {
	d, err := get(ctx, id)
	if errors.Is(err, runstore.ErrNotFound) {
		return nil, &notfound.Error{Kind: "run", Name: id, Where: store.Path(), Hint: "`superbiz runs` lists the runs"}
	}
	return d, err
}

// Runs is `runs -o json`'s list and runs_list's "runs": each run's Summary.
func Runs(runs []runstore.RunSummary) []Summary {
	out := make([]Summary, len(runs))
	for i, r := range runs {
		out[i] = SummaryOf(r)
	}
	return out
}
