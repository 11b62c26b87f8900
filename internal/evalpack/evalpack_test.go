package evalpack

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/integration/playbooks"
	"github.com/superbiz/superbiz/internal/integration/runbooks"

	"github.com/superbiz/superbiz/internal/alerts"
	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/eval"
	"github.com/superbiz/superbiz/internal/registry"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/runstore"
	"github.com/superbiz/superbiz/pkg/tools/knowledge"
)

// An alert run's query gives back the alert it was made from: labels
// (a value holding ", " and "=" too), annotations and start.
func TestParseAlertRoundTrip(t *testing.T) {
	start := time.Date(2026, 11, 20, 9, 12, 0, 0, time.UTC)
	al := alerts.Alert{
		Labels:      map[string]string{"alertname": "HighErrorRate", "service": "checkout", "route": "/pay, /refund=x"},
		Annotations: map[string]string{"summary": "5xx above 5%", "description": "see the dashboard", "runbook_url": "https://wiki/x"},
		StartsAt:    start, Fingerprint: "0123456789abcdef",
	}
	q := alerts.Query(al, alerts.Clock(al, start.Add(time.Hour)), "", 4096)
	got, ok := parseAlert(q)
	if !ok {
		t.Fatalf("not read as an alert:\n%s", q)
	}
	if !maps.Equal(got.Labels, al.Labels) || !maps.Equal(got.Annotations, al.Annotations) || got.StartsAt != start.Format(time.RFC3339) {
		t.Errorf("got %+v\nfrom\n%s", got, q)
	}
	for _, q := range []string{"why is checkout slow?", alertHead + "but nothing else", ""} {
		if _, ok := parseAlert(q); ok {
			t.Errorf("%q read as an alert", q)
		}
	}
}

func FuzzParseAlert(f *testing.F) {
	al := alerts.Alert{Labels: map[string]string{"alertname": "A", "x": "1"}, Annotations: map[string]string{"summary": "s"}, StartsAt: time.Unix(1e9, 0).UTC()}
	f.Add(alerts.Query(al, al.StartsAt, "note", 4096))
	f.Add(alertHead + "\nStarted: 2026-01-01T00:00:00Z. Diagnosis clock: x\nLabels: alertname=, , =\n")
	f.Fuzz(func(t *testing.T, q string) {
		if a, ok := parseAlert(q); ok {
			if a.Labels["alertname"] == "" {
				t.Errorf("an alert without a name from %q", q)
			}
			if _, err := time.Parse(time.RFC3339, a.StartsAt); err != nil {
				t.Errorf("start %q from %q", a.StartsAt, q)
			}
		}
	})
}

// What is no incident of the user's own is refused with ErrRefused.
func TestGuardRun(t *testing.T) {
	demo, _ := json.Marshal(runrecord.Settings{Demo: true})
	for _, tt := range []struct {
		name string
		run  runstore.RunDetail
		want string
	}{
		{"chat", runstore.RunDetail{RunSummary: runstore.RunSummary{ID: "r_1", Intent: runrecord.IntentSystemChat, Status: runrecord.RunStatusSuccess}}, "not a diagnosis"},
		{"unrouted", runstore.RunDetail{RunSummary: runstore.RunSummary{ID: "r_1", Status: runrecord.RunStatusFailed}}, "not routed"},
		{"running", runstore.RunDetail{RunSummary: runstore.RunSummary{ID: "r_1", Intent: runrecord.IntentDiagnosis, Status: runrecord.RunStatusRunning}}, "still running"},
		{"demo", runstore.RunDetail{RunSummary: runstore.RunSummary{ID: "r_1", Intent: runrecord.IntentDiagnosis, Status: runrecord.RunStatusSuccess}, Settings: demo}, "demo workspace"},
	} {
		err := guardRun(&tt.run)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), ErrRefused.Error()) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
	ok := runstore.RunDetail{RunSummary: runstore.RunSummary{ID: "r_1", Intent: runrecord.IntentDiagnosis, Status: runrecord.RunStatusSuccess}}
	if err := guardRun(&ok); err != nil {
		t.Errorf("a diagnosis: %v", err)
	}
}

func TestDefaultID(t *testing.T) {
	if got := defaultID("r_06H45AV6nk"); got != "r-06h45av6nk" {
		t.Errorf("got %q", got)
	}
}

// A run's runbooks and playbook are frozen by their integrations; the pack
// written loads, and holds a FALLBACK expectation with the run's question
// and clock. The suite directory may be relative (`--dir ./packs`): the
// files land in the pack, not in a copy of its path below it.
func TestFreezeRunbooksAndPlaybook(t *testing.T) {
	t.Run("absolute dir", func(t *testing.T) { freezeRunbooksAndPlaybook(t, false) })
	t.Run("relative dir", func(t *testing.T) { freezeRunbooksAndPlaybook(t, true) })
}

func freezeRunbooksAndPlaybook(t *testing.T, relative bool) {
	ctx := context.Background()
	dir := t.TempDir()
	packs := filepath.Join(dir, "packs")
	if relative {
		t.Chdir(dir)
		packs = "packs"
	}
	rb := filepath.Join(dir, "kb")
	for name, body := range map[string]string{
		"tls.md":   "# Certificate expiry\n\nWhen the x509 certificate expired, checkout returns 502.\n",
		"disk.md":  "# Disk full\n\nWrites fail with ENOSPC when the volume is full.\n",
		"other.md": "# Lunch menu\n\nSoup on Fridays.\n",
	} {
		if err := os.MkdirAll(rb, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(rb, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	store, err := registry.OpenStore(ctx, filepath.Join(dir, "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	tables, err := store.Tables(knowledge.SchemaName)
	if err != nil {
		t.Fatal(err)
	}
	ix := knowledge.NewIndex(tables, []string{rb})
	if _, err := ix.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	skill := filepath.Join(dir, "playbooks", "checkout-tls", "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(skill), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(skill, []byte("---\nname: checkout-tls\ndescription: check the certificate first\n---\nLog in with password=SkillPw42xyz and look at the expiry.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := registry.Defaults()
	runbooks.SetPaths(&cfg, []string{rb})
	playbooks.SetPaths(&cfg, []string{filepath.Join(dir, "playbooks")})
	clock := time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)
	run := &runstore.RunDetail{
		RunSummary: runstore.RunSummary{ID: "r_0123", Intent: runrecord.IntentDiagnosis, Status: runrecord.RunStatusSuccess, ReleaseOutcome: runrecord.OutcomeFallback, Query: "checkout 502?"},
		Clock:      clock,
		Invocations: []runrecord.Invocation{{
			ToolCallID: "call_0", Tool: "read_skill", Kind: runrecord.KindGuidance, Status: runrecord.InvocationCompleted,
			Input: json.RawMessage(`{"name":"checkout-tls"}`),
		}, {
			ToolCallID: "call_1", Tool: knowledge.Name, Kind: runrecord.KindEvidence, Status: runrecord.InvocationCompleted,
			EvidenceStatus: "EVIDENCE_FOUND", Input: json.RawMessage(`{"query":"certificate expired 502"}`),
			Observation: json.RawMessage(`{"evidence_status":"EVIDENCE_FOUND","result":{"documents":[{"source":"kb/tls.md"}]}}`),
		}},
	}
	rep, err := Freeze(ctx, Options{Run: run, Config: &cfg, Dir: packs, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	if rep.ID != "r-0123" || !strings.Contains(strings.Join(rep.Frozen, "\n"), "runbooks: 3 of 3 document(s), the whole set") {
		t.Errorf("report %+v", rep)
	}
	st, err := os.Stat(rep.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o755 {
		t.Errorf("the pack's folder is %v, want 0755", st.Mode())
	}
	files, err := filepath.Glob(filepath.Join(rep.Dir, "runbooks", "kb", "*"))
	if err != nil || len(files) != 3 {
		t.Errorf("runbooks frozen: %v (%v)", files, err)
	}
	if b, err := os.ReadFile(filepath.Join(rep.Dir, "skills", "checkout-tls", "SKILL.md")); err != nil || bytes.Contains(b, []byte("SkillPw42xyz")) || !bytes.Contains(b, []byte("look at the expiry")) {
		t.Errorf("the playbook read (%v):\n%s", err, b)
	}
	p := eval.LoadPack(rep.Dir)
	if p.Err != nil || p.Now != clock || p.Question != "checkout 502?" || p.Expect.Outcome != runrecord.OutcomeFallback || strings.Join(p.Expect.Evidence, ",") != "lookup_knowledge:kb/tls.md" {
		t.Errorf("pack %+v", p)
	}
}

// A run holding evidence from a tool no integration freezes is refused
// loudly, and leaves nothing behind: a pack never silently lacks it.
func TestFreezeRefusesUnfrozenEvidence(t *testing.T) {
	dir := t.TempDir()
	cfg := config.Defaults()
	run := &runstore.RunDetail{
		RunSummary: runstore.RunSummary{ID: "r_1", Intent: runrecord.IntentDiagnosis, Status: runrecord.RunStatusSuccess, ReleaseOutcome: runrecord.OutcomeFallback, Query: "q"},
		Invocations: []runrecord.Invocation{{
			ToolCallID: "call_1", Tool: "query_traces", Kind: runrecord.KindEvidence, Status: runrecord.InvocationCompleted,
			EvidenceStatus: "EVIDENCE_FOUND", Input: json.RawMessage(`{"source":"jaeger"}`),
			Observation: json.RawMessage(`{"evidence_status":"EVIDENCE_FOUND","result":{"source":"jaeger"}}`),
		}},
	}
	packs := filepath.Join(dir, "packs")
	_, err := Freeze(context.Background(), Options{Run: run, Config: &cfg, Dir: packs})
	if err == nil || !strings.Contains(err.Error(), "query_traces") || !strings.Contains(err.Error(), "no integration freezes") {
		t.Fatalf("err %v", err)
	}
	if left, _ := os.ReadDir(packs); len(left) != 0 {
		t.Errorf("a refused pack left %v", left)
	}
}
