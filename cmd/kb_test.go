package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/fixture"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/tools/knowledge"
)

func TestKBIndexPlainCounts(t *testing.T) {
	env := diagnoseEnv(t)
	env["XDG_CACHE_HOME"] = t.TempDir() // the demo's own index, new
	code, out, errOut := cli(t, env, "kb", "index", "--demo")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.HasPrefix(out, "indexed 16 files (") || !strings.Contains(out, "unchanged 0, removed 0; the index holds ") || strings.Count(out, "\n") != 1 {
		t.Errorf("first index: %q, want one summary line", out)
	}
	if errOut != "" {
		t.Errorf("piped, stderr %q, want nothing: the summary line says it", errOut)
	}
	code, out, errOut = cli(t, env, "kb", "index", "--demo")
	if code != ExitOK || !strings.HasPrefix(out, "indexed 0 files (0 sections), unchanged 16, removed 0;") {
		t.Errorf("second index: exit %d, %q %q", code, out, errOut)
	}
	code, out, _ = cli(t, env, "kb", "index", "--demo", "-o", "json")
	var st kbIndexOutput
	if err := json.Unmarshal([]byte(out), &st); code != ExitOK || err != nil {
		t.Fatalf("-o json: exit %d, %v: %s", code, err, out)
	}
	if st.Files != 16 || st.Skipped != 16 || st.Indexed != 0 || st.TotalSections == 0 {
		t.Errorf("-o json: %+v", st)
	}
}

// A changed file is indexed again, a deleted one removed; a missing
// knowledge path is exit 2 naming the path.
func TestKBIndexOwnRunbooks(t *testing.T) {
	dir := t.TempDir()
	env := diagnoseEnv(t)
	fixture.WriteFile(t, filepath.Join(dir, "runbooks", "a.md"), "# Alpha\n\n## One\nfirst\n\n## Two\nsecond\n")
	fixture.WriteFile(t, filepath.Join(dir, "runbooks", "b.md"), "# Beta\n\nbody\n")
	cfg := filepath.Join(dir, "superbiz.toml")
	fixture.WriteFile(t, cfg, "[knowledge]\npaths = [\"./runbooks\"]\n")
	code, out, errOut := cli(t, env, "--config", cfg, "kb", "index")
	if code != ExitOK || !strings.HasPrefix(out, "indexed 2 files (") {
		t.Fatalf("exit %d, %q %q", code, out, errOut)
	}
	if err := os.Remove(filepath.Join(dir, "runbooks", "b.md")); err != nil {
		t.Fatal(err)
	}
	code, out, _ = cli(t, env, "--config", cfg, "kb", "index")
	if code != ExitOK || !strings.Contains(out, "unchanged 1, removed 1;") {
		t.Errorf("after a delete: exit %d, %q", code, out)
	}

	missing := filepath.Join(dir, "nowhere")
	fixture.WriteFile(t, cfg, "[knowledge]\npaths = [\"./nowhere\"]\n")
	for _, args := range [][]string{{"kb", "index"}, {"kb", "search", "alpha"}} {
		code, out, errOut = cli(t, env, append([]string{"--config", cfg}, args...)...)
		if code != ExitUsage || out != "" || !strings.Contains(errOut, "knowledge path not found: "+missing) {
			t.Errorf("%q with a missing path: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
}

func TestKBSearch(t *testing.T) {
	env := diagnoseEnv(t)
	tests := []struct {
		query, first string
	}{
		{"HikariPool connection is not available", "runbooks/en/mysql-connection-pool.md"},
		{"支付超时", "runbooks/zh/payment-timeout.md"},
	}
	for _, tt := range tests {
		code, out, errOut := cli(t, env, "kb", "search", "--demo", tt.query)
		if code != ExitOK || errOut != "" {
			t.Fatalf("%q: exit %d, %q", tt.query, code, errOut)
		}
		if !strings.HasPrefix(out, "1. ") || !strings.Contains(strings.SplitN(out, "\n", 3)[1], tt.first) {
			t.Errorf("%q: first hit is not %s:\n%s", tt.query, tt.first, out)
		}
		if strings.Count(out, "(score ") != knowledge.DefaultTopK {
			t.Errorf("%q: want %d documents:\n%s", tt.query, knowledge.DefaultTopK, out)
		}

		// -o json is the observation lookup_knowledge returns to the model,
		// byte for byte what `tools call` prints.
		code, js, _ := cli(t, env, "kb", "search", "--demo", "-o", "json", "--top-k", "2", tt.query)
		input, _ := json.Marshal(map[string]any{"query": tt.query, "top_k": 2})
		_, viaTools, _ := cli(t, env, "tools", "call", "--demo", "-o", "json", "lookup_knowledge", string(input))
		if code != ExitOK || js != viaTools {
			t.Errorf("%q: kb search -o json differs from tools call:\n%s\n%s", tt.query, js, viaTools)
		}
		var o struct {
			EvidenceStatus string           `json:"evidence_status"`
			Result         knowledge.Result `json:"result"`
		}
		if err := json.Unmarshal([]byte(js), &o); err != nil || o.EvidenceStatus != "EVIDENCE_FOUND" || len(o.Result.Documents) != 2 || o.Result.Documents[0].Source != tt.first {
			t.Errorf("%q: observation %s (%v)", tt.query, js, err)
		}
	}

	code, out, _ := cli(t, env, "kb", "search", "--demo", "qqzzxxyy")
	if code != ExitOK || out != "no runbook section matches \"qqzzxxyy\"\n" {
		t.Errorf("no match: exit %d, %q", code, out)
	}
	code, out, errOut := cli(t, env, "kb", "search", "--demo", "--top-k", "9", "redis")
	if code != ExitUsage || out != "" || !strings.Contains(errOut, "lookup_knowledge rejected the input (INVALID_INPUT)") {
		t.Errorf("top-k 9: exit %d, %q %q", code, out, errOut)
	}
	code, _, errOut = cli(t, env, "kb", "search", "--demo")
	if code != ExitUsage || !strings.Contains(errOut, "takes one QUERY") {
		t.Errorf("no query: exit %d, %q", code, errOut)
	}
}

// On a terminal the progress is one bar redrawn in place, cleared at the end.
func TestIndexProgressTerminal(t *testing.T) {
	var buf bytes.Buffer
	a := &app{io: &IOStreams{ErrOut: egress.NewWriter(&buf), ErrTTY: true}}
	p := a.newIndexProgress()
	for i := 1; i <= 300; i++ {
		p.update(knowledge.Progress{Done: i, Total: 300, Path: "r/x.md"})
		// Each redraw reaches the terminal as it is drawn, whole, in order
		// (the egress stream holds a line's tail until the line ends).
		if i%3 == 0 && !strings.HasSuffix(buf.String(), fmt.Sprintf(" %d/300 files", i)) {
			t.Fatalf("redraw %d not on the terminal yet: it ends %q", i, buf.String()[max(0, buf.Len()-60):])
		}
	}
	p.finish()
	got := buf.String()
	if n := strings.Count(got, "\r"); n != 102 {
		t.Errorf("%d redraws, want one per percent 0-100 plus the final clear (102)", n)
	}
	if !strings.Contains(got, "█") || !strings.Contains(got, " 100% 300/300 files") || !strings.HasSuffix(got, "\r\x1b[K") {
		t.Errorf("bar output ends %q", got[max(0, len(got)-200):])
	}
	if strings.Contains(got, "\n") || strings.Contains(got, "\x1b[3") {
		t.Errorf("bar output has newlines or colour without Color")
	}
	// With colour, the blend is brought down to 256 colours, never true
	// colour that a 256-colour terminal cannot show.
	buf.Reset()
	a.io.Color = true
	p = a.newIndexProgress()
	p.update(knowledge.Progress{Done: 150, Total: 300, Path: "r/x.md"})
	if got := buf.String(); !strings.Contains(got, "\x1b[38;5;") || strings.Contains(got, "38;2;") {
		t.Errorf("colour bar %q: want 256-colour sequences only", got)
	}
}
