package runbooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/frozen"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/runstore"
	"github.com/superbiz/superbiz/pkg/tools/knowledge"
)

// A runbook set too large to freeze whole is frozen as the documents the
// run's knowledge queries rank in their top TopRunbooks, and the pack's
// [knowledge] names their folder.
func TestFreezeTopRunbooks(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	rb := filepath.Join(dir, "kb")
	if err := os.MkdirAll(rb, 0o700); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		"tls.md":   "# Certificate expiry\n\nWhen the x509 certificate expired, checkout returns 502.\n",
		"disk.md":  "# Disk full\n\nWrites fail with ENOSPC when the volume is full.\n",
		"other.md": "# Lunch menu\n\nSoup on Fridays.\n",
	} {
		if err := os.WriteFile(filepath.Join(rb, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	store, err := runstore.Open(ctx, filepath.Join(dir, "runs.db"), Source{}.Components()...)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	tables, err := store.Tables(knowledge.SchemaName)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := knowledge.NewIndex(tables, []string{rb}).Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	cfg := config.Defaults(Source{}.Config())
	SetPaths(&cfg, []string{rb})
	run := &runstore.RunDetail{Invocations: []runrecord.Invocation{{
		ToolCallID: "call_1", Tool: knowledge.Name, Kind: runrecord.KindEvidence, Status: runrecord.InvocationCompleted,
		EvidenceStatus: "EVIDENCE_FOUND", Input: json.RawMessage(`{"query":"certificate expired 502"}`),
		Observation: json.RawMessage(`{"evidence_status":"EVIDENCE_FOUND","result":{"documents":[{"source":"kb/tls.md"}]}}`),
	}}}
	p := &frozen.Pack{Run: run, Config: &cfg, Store: store, Dir: filepath.Join(dir, "pack")}
	if err := (Source{maxWhole: 1}).Freeze(ctx, p); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(p.Lines(), "\n"), "runbooks: 1 of 3 document(s), the top 20") {
		t.Errorf("report %q", p.Lines())
	}
	files, err := filepath.Glob(filepath.Join(p.Dir, PackDir, "kb", "*"))
	if err != nil || len(files) != 1 || filepath.Base(files[0]) != "tls.md" {
		t.Errorf("runbooks frozen: %v (%v)", files, err)
	}
	body, err := p.ConfigTOML()
	if err != nil || !strings.Contains(string(body), `paths = ["runbooks/kb"]`) {
		t.Errorf("superbiz.toml (%v):\n%s", err, body)
	}
	p = &frozen.Pack{Run: run, Config: &cfg, Dir: filepath.Join(dir, "pack2")}
	if err := (Source{maxWhole: 1}).Freeze(ctx, p); err == nil || !strings.Contains(err.Error(), "no run store") {
		t.Errorf("a large set without a store: %v", err)
	}
}
