package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/internal/testenv"
)

// A read_skill call that loads nothing (an unknown playbook) is not shown
// as "playbook loaded": the progress line and runs show say it was not.
func TestUnknownPlaybookIsNotShownLoaded(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	srv.Script(append(append(
		[]ollamatest.Turn{skill("call_e2e0000", "no-such-playbook")}, paymentTurns()...),
		text(draftText(t, "payment-timeout")), verdict("SUPPORTED"))...)
	e := newEnv(t, srv.URL())
	r := e.runExit(t, 0, "--demo", "diagnose", queryPayment)
	var bad, good string
	for _, line := range strings.Split(r.stderr, "\n") {
		switch {
		case strings.HasPrefix(line, "[tool] read_skill (no-such-playbook)"):
			bad = line
		case strings.HasPrefix(line, "[tool] read_skill (diagnose-payment-timeout)"):
			good = line
		}
	}
	if !strings.HasSuffix(bad, "→ playbook not loaded INVALID_INPUT") {
		t.Errorf("the unknown playbook's progress line is %q, want it not loaded:\n%s", bad, r.stderr)
	}
	if !strings.HasSuffix(good, "→ playbook loaded") {
		t.Errorf("the known playbook's progress line is %q", good)
	}
	show := e.run(t, "runs", "show", newestRun(t, e))
	if !strings.Contains(show.stdout, "playbook not read INVALID_INPUT") || !strings.Contains(show.stdout, "playbook read") {
		t.Errorf("runs show does not tell the two reads apart:\n%s", show.stdout)
	}
}

// eval compare -o json shows a results file's model.url as text and
// Markdown do: its password masked, its control characters stripped.
func TestEvalCompareJSONMasksURL(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.ClosedURL(t))
	dir := t.TempDir()
	var files []string
	for i, url := range []string{"http://ops:Cn21CompareUrl@model.internal:8000/v1\u001b]0;owned\u0007", "http://model.internal:11434"} {
		f := filepath.Join(dir, fmt.Sprintf("r%d.json", i))
		u, _ := json.Marshal(url)
		doc := fmt.Sprintf(`{"summary":{"model":{"name":"qwen3:8b","provider":"openai","url":%s}},"packs":[]}`, u)
		if err := os.WriteFile(f, []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	for _, format := range []string{"json", "text", "markdown"} {
		r := e.run(t, "eval", "compare", files[0], files[1], "-o", format)
		if r.code != 0 {
			t.Fatalf("-o %s: exit %d\n%s", format, r.code, r)
		}
		if strings.Contains(r.stdout, "Cn21CompareUrl") || strings.Contains(r.stdout, "\x1b") || strings.Contains(r.stdout, `\u001b`) || strings.Contains(r.stdout, `\u0007`) {
			t.Errorf("-o %s shows the password or a control character:\n%s", format, r.stdout)
		}
		if !strings.Contains(r.stdout, "model.internal:8000") {
			t.Errorf("-o %s lost the host:\n%s", format, r.stdout)
		}
	}
}
