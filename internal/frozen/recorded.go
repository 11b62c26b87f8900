package frozen

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/runstore"
	"github.com/superbiz/superbiz/pkg/tools"
)

// A server-backed source whose server a pack cannot hold (Redis,
// Kubernetes, VictoriaLogs) is frozen as a Recording: the run's calls of its tool on
// those sources and their observations. In eval, a call whose canonical
// input equals a recorded one gets the recorded observation; any other call
// on a recorded source gets ERROR NOT_RECORDED (tools.CodeNotRecorded),
// which the results count per pack. Calls on the tool's other sources (a
// file-backed log source beside a VictoriaLogs one) run as they are.

// MaxRecordingBytes bounds a pack's recording file.
const MaxRecordingBytes = 16 << 20

// recordingJSON is how a recording is read: a regular file, bounded.
var recordingJSON = config.Untrusted{What: "pack recording", Limit: MaxRecordingBytes, Kind: "a .json file eval pack wrote", Size: "freeze fewer calls"}

// SourceKey is the input member that names a recorded tool's source.
const SourceKey = "source"

// Recording is one tool's recorded answers for some of its sources.
type Recording struct {
	// Tool is the tool the calls went to (query_redis).
	Tool string `json:"tool"`
	// Sources are the recorded sources, as the tool names them.
	Sources []string `json:"sources"`
	// Allowlists are, per recorded source that had one, the allowlist of
	// its configuration (a Kubernetes source's namespaces), so the source
	// served again is offered to the model as the run offered it.
	Allowlists map[string][]string `json:"allowlists,omitempty"`
	// Calls are the recorded calls, in the order the run made them.
	Calls []RecordedCall `json:"calls"`
}

// RecordedCall is one call the run made and what it observed, as the run
// store keeps them (redacted).
type RecordedCall struct {
	// Tool is the tool called.
	Tool string `json:"tool"`
	// Input is the canonical business input.
	Input          json.RawMessage      `json:"input"`
	EvidenceStatus tools.EvidenceStatus `json:"evidence_status"`
	ErrorCode      string               `json:"error_code,omitempty"`
	Result         json.RawMessage      `json:"result,omitempty"`
}

// Record is the run's calls of tool on the sources names, as reads names a
// call's sources (tool:name), with their stored observations. A call whose
// observation was discarded holds nothing to answer with and is left out.
func (p *Pack) Record(tool string, names []string, reads func(input, observation json.RawMessage) []string) []RecordedCall {
	var calls []RecordedCall
	for _, inv := range p.Run.Invocations {
		if inv.Tool != tool || !inv.Ready() || !slices.ContainsFunc(reads(inv.Input, inv.Observation), func(s string) bool {
			_, name, _ := strings.Cut(s, ":")
			return slices.Contains(names, name)
		}) {
			continue
		}
		out, ok := runstore.RecordedOutcome(inv.Observation)
		if !ok {
			continue
		}
		result, _ := out.Result.(json.RawMessage)
		calls = append(calls, RecordedCall{
			Tool: tool, Input: runstore.Redacted(inv.Input), EvidenceStatus: out.Status,
			ErrorCode: out.ErrorCode, Result: runstore.Redacted(result),
		})
	}
	return calls
}

// Recorded is the recorded outcome of call among calls: the recorded
// observation of the same tool and an equal canonical input (compared in
// the stored, redacted form); ok is false when none is recorded.
func Recorded(calls []RecordedCall, call tools.Call) (out tools.Outcome, ok bool) {
	want, _ := InputKey(call.Input)
	for _, c := range calls {
		if have, ok := InputKey(c.Input); c.Tool != call.Tool || !ok || have != want {
			continue
		}
		obs, err := json.Marshal(c) // its members are those of a stored observation
		if err != nil {
			return tools.Failed(tools.CodeInternal, fmt.Errorf("the recorded call: %w", err)), true
		}
		if out, ok := runstore.RecordedOutcome(obs); ok {
			return out, true
		}
	}
	return tools.Outcome{}, false
}

// SourcesRead are the names of tool's sources the run's evidence calls
// read, in the order first read, as reads names them (tool:name).
func (p *Pack) SourcesRead(tool string, reads func(input, observation json.RawMessage) []string) []string {
	var names []string
	for _, inv := range p.Calls(tool) {
		for _, s := range reads(inv.Input, inv.Observation) {
			if _, name, ok := strings.Cut(s, ":"); ok && !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
	}
	return names
}

// WriteRecording writes rec to the pack file name; nothing when it records
// no source. A report line says how many calls it holds and what eval
// answers otherwise.
func (p *Pack) WriteRecording(name string, rec Recording) error {
	if len(rec.Sources) == 0 {
		return nil
	}
	p.Frozen("%s %s: %d recorded call(s); any other gets %s in eval", rec.Tool, strings.Join(rec.Sources, ", "), len(rec.Calls), tools.CodeNotRecorded)
	return p.WriteRecorded(p.Path(name), rec)
}

// WriteRecorded writes v, a recording, to the new pack file path as
// indented JSON, masked whole.
func (p *Pack) WriteRecorded(path string, v any) error {
	b, err := tools.MarshalJSON(v)
	if err != nil {
		return fmt.Errorf("eval pack: encode the recording: %w", err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return fmt.Errorf("eval pack: encode the recording: %w", err)
	}
	out.WriteByte('\n')
	masked, err := egress.MaskJSON(out.Bytes())
	if err != nil {
		return fmt.Errorf("eval pack: redact the recording: %w", err)
	}
	return p.WriteJSON(path, masked)
}

// ReadRecording reads the pack file a recording of tool was written to; nil
// when the pack has none. An error names the file and the key.
func ReadRecording(file, tool string) (*Recording, error) {
	switch _, err := os.Lstat(file); {
	case errors.Is(err, os.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, PackError(file, "", "%v", err)
	}
	var r Recording
	if err := ReadRecorded(file, &r, &r.Calls); err != nil {
		return nil, err
	}
	if r.Tool != tool {
		return nil, PackError(file, "tool", "%q: this file records %s", r.Tool, tool)
	}
	for i, s := range r.Sources {
		if s == "" {
			return nil, PackError(file, fmt.Sprintf("sources[%d]", i), "empty: a recorded source has a name")
		}
	}
	return &r, nil
}

// ReadRecorded reads the recording file (a regular file of at most
// MaxRecordingBytes) into v, strictly (no unknown member), and checks that
// every one of its calls has a JSON object as its input.
func ReadRecorded(file string, v any, calls *[]RecordedCall) error {
	b, err := config.ReadRegular(file, recordingJSON)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return PackError(file, "", "not a recording eval pack wrote: %v", err)
	}
	for i, c := range *calls {
		if _, ok := InputKey(c.Input); !ok {
			return PackError(file, fmt.Sprintf("calls[%d].input", i), "not a JSON object")
		}
	}
	return nil
}

// InputKey is a canonical input in the stored form (redacted), decoded and
// encoded again, so that two encodings of one input (indented, escaped
// differently) compare equal; ok is false when it is no JSON object.
func InputKey(raw json.RawMessage) (string, bool) {
	var v map[string]any
	if err := json.Unmarshal(runstore.Redacted(raw), &v); err != nil {
		return "", false
	}
	b, err := json.Marshal(v)
	return string(b), err == nil
}

// Answer is the recorded outcome of a call on a recorded source: the
// recorded observation of an equal canonical input, else ERROR
// NOT_RECORDED; ok is false when the call names no recorded source (the
// live tool answers it).
func (r *Recording) Answer(call tools.Call) (out tools.Outcome, ok bool) {
	var in map[string]json.RawMessage
	if err := json.Unmarshal(call.Input, &in); err != nil {
		return tools.Failed(tools.CodeInternal, fmt.Errorf("read the canonical input: %w", err)), true
	}
	var source string
	_ = json.Unmarshal(in[SourceKey], &source) // an input without one names no recorded source
	if !slices.Contains(r.Sources, source) {
		return tools.Outcome{}, false
	}
	if out, ok := Recorded(r.Calls, call); ok {
		return out, true
	}
	return tools.Failed(tools.CodeNotRecorded, fmt.Errorf("%s %s: no recorded observation for %s (the pack holds the run's calls only)", r.Tool, source, runstore.Redacted(call.Input))), true
}

// Serve is a Served for a recording: nothing to start; each attempt's
// configuration gets the recorded sources through add (a source on no
// server, named as the run named it), and the tool answers for them from
// the recording.
func (r *Recording) Serve(add func(cfg *config.Config, name string)) Served {
	return recordedServer{rec: r, add: add}
}

// recordedServer serves a Recording.
type recordedServer struct {
	rec *Recording
	add func(cfg *config.Config, name string)
}

// Missing is "": a recording needs nothing of the machine.
func (recordedServer) Missing() string { return "" }

// Start needs nothing started: the recording answers.
func (s recordedServer) Start(context.Context, string) (Server, error) { return s, nil }

// Configure adds the recorded sources, checked as any configured source's.
func (s recordedServer) Configure(cfg *config.Config) error {
	for _, name := range s.rec.Sources {
		s.add(cfg, name)
	}
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("the recorded %s sources: %w", s.rec.Tool, err)
	}
	return nil
}

// Wrap makes the recorded tool answer for the recorded sources.
func (s recordedServer) Wrap(adapters []tools.Adapter) []tools.Adapter {
	return Answering(adapters, s.rec.Tool, s.rec.Answer)
}

// Stop has nothing to stop.
func (recordedServer) Stop() error { return nil }

// Answering returns adapters with the one named tool asking answer first:
// its outcome when ok, else the live tool's.
func Answering(adapters []tools.Adapter, tool string, answer func(tools.Call) (tools.Outcome, bool)) []tools.Adapter {
	out := slices.Clone(adapters)
	for i, a := range out {
		if a.Definition().Name == tool {
			out[i] = answeringTool{live: a, answer: answer}
		}
	}
	return out
}

// answeringTool is a tool some of whose calls answer is given.
type answeringTool struct {
	live   tools.Adapter
	answer func(tools.Call) (tools.Outcome, bool)
}

func (r answeringTool) Definition() model.Tool { return r.live.Definition() }

func (r answeringTool) Canonical(in json.RawMessage) (tools.Canonical, error) {
	return r.live.Canonical(in)
}

// Tally is the live tool's, so a recorded answer's check line reads the same.
func (r answeringTool) Tally(result json.RawMessage) string {
	if t, ok := r.live.(tools.Tallier); ok {
		return t.Tally(result)
	}
	return ""
}

// Execute gives answer's outcome, else runs the call on the live tool.
func (r answeringTool) Execute(ctx context.Context, call tools.Call) tools.Outcome {
	if out, ok := r.answer(call); ok {
		return out
	}
	return r.live.Execute(ctx, call)
}
