package cmd

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/eval"
	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/internal/model/providertest"
)

// diagnosed is the part of `diagnose -o json` a source's scenario checks:
// the outcome, each check's tool and status, and what each finding cites.
type diagnosed struct {
	ReleaseOutcome string `json:"release_outcome"`
	Checks         []struct {
		Tool           string `json:"tool"`
		EvidenceStatus string `json:"evidence_status"`
	} `json:"checks"`
	Result struct {
		Findings []struct {
			Sources []string `json:"sources"`
		} `json:"findings"`
	} `json:"result"`
}

// decodeDiagnosed reads diagnose's JSON or fails the test.
func decodeDiagnosed(t *testing.T, out string) diagnosed {
	t.Helper()
	var got diagnosed
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return got
}

// toolMessages are the tool messages the model received, joined.
func toolMessages(srv *providertest.Server) string {
	var b strings.Builder
	for _, req := range srv.ChatRequests() {
		for _, m := range req.Messages {
			if m.Role == "tool" {
				b.WriteString(m.Content)
			}
		}
	}
	return b.String()
}

// packAndGrade freezes the last run into an eval pack under dir (its report
// must say frozen), then, with gone deleted from env (the configuration,
// its credentials), grades the pack again on the same turns: it must pass
// with every call answered from the pack.
func packAndGrade(t *testing.T, env map[string]string, srv *providertest.Server, turns []ollamatest.Turn, dir, id, rootCause, frozen string, gone ...string) {
	t.Helper()
	packs := filepath.Join(dir, "packs")
	code, out, errOut := cli(t, env, "eval", "pack", "last", "--dir", packs, "--id", id, "--root-cause", rootCause)
	if code != ExitOK || !strings.Contains(out, frozen) {
		t.Fatalf("eval pack: exit %d, want %q\n%s\n%s", code, frozen, out, errOut)
	}
	for _, k := range gone {
		delete(env, k)
	}
	srv.Script(turns...)
	code, out, errOut = cli(t, env, "eval", "--suite", packs, "-o", "json")
	var res eval.Results
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("exit %d %v\n%s\n%s", code, err, out, errOut)
	}
	if code != ExitOK || len(res.Packs) != 1 || !res.Packs[0].Pass || res.Packs[0].NotRecorded != 0 {
		t.Errorf("eval of the pack: exit %d\n%s\n%s", code, out, errOut)
	}
}
