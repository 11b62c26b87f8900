package kubernetes

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/frozen"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/runstore"
	"github.com/superbiz/superbiz/pkg/tools"
	kubetool "github.com/superbiz/superbiz/pkg/tools/kubernetes"
)

// A pack frozen from a run that read a cluster holds no cluster: it holds
// the run's query_kubernetes calls and their observations in RecordedFile.
// In eval, a call whose canonical input equals a recorded one gets the
// recorded observation; any other gets ERROR NOT_RECORDED
// (tools.CodeNotRecorded), as a recorded database's statements do.

// RecordedFile is the pack file of recorded cluster answers.
const RecordedFile = "kubernetes.json"

// MaxRecordedBytes bounds a pack's kubernetes.json.
const MaxRecordedBytes = 16 << 20

// recordedJSON is how kubernetes.json is read: a regular file, bounded.
var recordedJSON = config.Untrusted{What: "pack recording", Limit: MaxRecordedBytes, Kind: "a .json file eval pack wrote", Size: "freeze fewer calls"}

// Recording is a pack's kubernetes.json.
type Recording struct {
	// Sources are the clusters the run read, named as it named them, with
	// their namespace allowlists (a call's canonical form depends on them).
	Sources []RecordedSource `json:"sources"`
	// Calls are the recorded calls, in the order the run made them.
	Calls []RecordedCall `json:"calls"`
}

// RecordedSource is one [[kubernetes]] source of the run, without its kubeconfig.
type RecordedSource struct {
	Name       string   `json:"name"`
	Namespaces []string `json:"namespaces,omitempty"`
}

// RecordedCall is one call the run made and what it observed, as the run
// store keeps them (redacted).
type RecordedCall struct {
	Input          json.RawMessage      `json:"input"`
	EvidenceStatus tools.EvidenceStatus `json:"evidence_status"`
	ErrorCode      string               `json:"error_code,omitempty"`
	Result         json.RawMessage      `json:"result,omitempty"`
}

// Freezes is query_kubernetes.
func (Source) Freezes() []string { return []string{kubetool.ToolName} }

// Freeze records the run's query_kubernetes calls and their observations
// for each cluster they read (a cluster cannot be copied into a pack).
func (s Source) Freeze(_ context.Context, p *frozen.Pack) error {
	rec := Recording{}
	for _, inv := range p.Calls(kubetool.ToolName) {
		for _, read := range s.Reads(inv.Input, inv.Observation) {
			_, name, _ := strings.Cut(read, ":")
			if slices.ContainsFunc(rec.Sources, func(r RecordedSource) bool { return r.Name == name }) {
				continue
			}
			i := slices.IndexFunc(p.Config.Kubernetes, func(k config.KubernetesSource) bool { return k.Name == name })
			if i < 0 {
				return p.Gone("kubernetes source", name)
			}
			rec.Sources = append(rec.Sources, RecordedSource{Name: name, Namespaces: p.Config.Kubernetes[i].Namespaces})
		}
		out, ok := runstore.RecordedOutcome(inv.Observation)
		if !ok {
			continue // a discarded observation holds nothing to answer with
		}
		result, _ := out.Result.(json.RawMessage)
		rec.Calls = append(rec.Calls, RecordedCall{
			Input: runstore.Redacted(inv.Input), EvidenceStatus: out.Status, ErrorCode: out.ErrorCode, Result: runstore.Redacted(result),
		})
	}
	if len(rec.Sources) == 0 {
		return nil
	}
	b, err := tools.MarshalJSON(rec)
	if err != nil {
		return fmt.Errorf("eval pack: encode the kubernetes recording: %w", err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return fmt.Errorf("eval pack: encode the kubernetes recording: %w", err)
	}
	out.WriteByte('\n')
	masked, err := egress.MaskJSON(out.Bytes())
	if err != nil {
		return fmt.Errorf("eval pack: redact the kubernetes recording: %w", err)
	}
	for _, src := range rec.Sources {
		p.Frozen("kubernetes %s: %d recorded call(s); any other gets %s in eval", src.Name, len(rec.Calls), tools.CodeNotRecorded)
	}
	return p.WriteJSON(p.Path(RecordedFile), masked)
}

// Owns is RecordedFile.
func (Source) Owns() frozen.Owned { return frozen.Owned{Files: []string{RecordedFile}} }

// Replay reads the pack's RecordedFile; nil when the pack has none.
func (Source) Replay(r frozen.Replay) (frozen.Served, error) {
	file := filepath.Join(r.Dir, RecordedFile)
	switch _, err := os.Lstat(file); {
	case errors.Is(err, os.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, frozen.PackError(file, "", "%v", err)
	}
	b, err := config.ReadRegular(file, recordedJSON)
	if err != nil {
		return nil, err
	}
	var rec Recording
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil {
		return nil, frozen.PackError(file, "", "not a recording eval pack wrote: %v", err)
	}
	for i, c := range rec.Calls {
		if _, ok := frozen.InputKey(c.Input); !ok {
			return nil, frozen.PackError(file, fmt.Sprintf("calls[%d].input", i), "not a JSON object")
		}
	}
	return &recorded{rec: &rec}, nil
}

// recorded is a pack's recording, served to each attempt.
type recorded struct {
	rec        *Recording
	kubeconfig string
}

// Missing is "": a recording needs nothing of the machine.
func (*recorded) Missing() string { return "" }

// recordedServer is where a recorded cluster "is": the discard port of the
// loopback, never dialled (the recording answers every call).
const recordedServer = "https://127.0.0.1:9"

// Start writes, in work, the kubeconfig the recorded sources name: a
// server no call reaches, and no credential.
func (r *recorded) Start(_ context.Context, work string) (frozen.Server, error) {
	r.kubeconfig = filepath.Join(work, "recorded.kubeconfig")
	body := "apiVersion: v1\nkind: Config\nclusters:\n- name: recorded\n  cluster:\n    server: " + recordedServer +
		"\ncontexts:\n- name: recorded\n  context:\n    cluster: recorded\n    user: recorded\nusers:\n- name: recorded\n  user: {}\ncurrent-context: recorded\n"
	if err := os.WriteFile(r.kubeconfig, []byte(body), 0o600); err != nil {
		return nil, fmt.Errorf("eval: the recorded kubeconfig: %w", err)
	}
	return r, nil
}

// Configure adds the recorded clusters, named as the run named them.
func (r *recorded) Configure(cfg *config.Config) error {
	for _, s := range r.rec.Sources {
		k := config.NewKubernetesSource()
		k.Name, k.Namespaces, k.Kubeconfig = s.Name, s.Namespaces, r.kubeconfig
		cfg.Kubernetes = append(cfg.Kubernetes, k)
	}
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("%s: %w", RecordedFile, err)
	}
	return nil
}

// Wrap makes query_kubernetes answer from the recording.
func (r *recorded) Wrap(adapters []tools.Adapter) []tools.Adapter {
	out := slices.Clone(adapters)
	for i, a := range out {
		if a.Definition().Name == kubetool.ToolName {
			out[i] = recordedTool{live: a, rec: r.rec}
		}
	}
	return out
}

// Stop has nothing to stop.
func (*recorded) Stop() error { return nil }

// recordedTool is query_kubernetes answering from a recording.
type recordedTool struct {
	live tools.Adapter
	rec  *Recording
}

func (r recordedTool) Definition() model.Tool { return r.live.Definition() }

func (r recordedTool) Canonical(in json.RawMessage) (tools.Canonical, error) {
	return r.live.Canonical(in)
}

// Tally is the live tool's, so a recorded answer's check line reads the same.
func (r recordedTool) Tally(result json.RawMessage) string {
	if t, ok := r.live.(tools.Tallier); ok {
		return t.Tally(result)
	}
	return ""
}

// Execute answers from the recorded call of an equal canonical input
// (compared in the stored, redacted form), else NOT_RECORDED; it never
// reaches a cluster.
func (r recordedTool) Execute(_ context.Context, call tools.Call) tools.Outcome {
	want, _ := frozen.InputKey(call.Input)
	for _, c := range r.rec.Calls {
		if have, ok := frozen.InputKey(c.Input); !ok || have != want {
			continue
		}
		obs, err := json.Marshal(c)
		if err != nil {
			return tools.Failed(tools.CodeInternal, fmt.Errorf("the recorded call: %w", err))
		}
		if out, ok := runstore.RecordedOutcome(obs); ok {
			return out
		}
	}
	return tools.Failed(tools.CodeNotRecorded, fmt.Errorf("query_kubernetes: no recorded observation for %s (the pack holds the run's calls only)", runstore.Redacted(call.Input)))
}
