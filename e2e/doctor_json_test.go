package e2e

import (
	"encoding/json"
	"testing"

	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/internal/testenv"
)

// doctorCheck is one element of `doctor -o json` as docs/SPEC.md gives it.
type doctorCheck struct {
	Check  string `json:"check"`
	Status string `json:"status"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
	Hint   string `json:"hint"`
}

// doctorJSON runs `doctor -o json` and decodes its checks by name.
func doctorJSON(t *testing.T, e *env) (int, map[string]doctorCheck) {
	t.Helper()
	r := e.run(t, "doctor", "-o", "json")
	var checks []doctorCheck
	if err := json.Unmarshal([]byte(r.stdout), &checks); err != nil {
		t.Fatalf("doctor -o json is not an array of checks: %v\n%s", err, r)
	}
	byName := map[string]doctorCheck{}
	for _, c := range checks {
		byName[c.Check] = c
	}
	return r.code, byName
}

// doctor -o json tells a failure from a warning and a skipped check: each
// check has a status (ok, warn, fail, skip), ok is false only for fail, and
// a healthy doctor that exits 0 lists no check as failed, though the
// optional embedding check is skipped.
func TestDoctorJSONStatus(t *testing.T) {
	srv := ollamatest.New(t)
	healthy := newEnv(t, srv.URL())
	code, checks := doctorJSON(t, healthy)
	if code != 0 {
		t.Fatalf("doctor against a model server with the model exits %d, want 0: %v", code, checks)
	}
	for name, c := range checks {
		if c.Status == "fail" || !c.OK {
			t.Errorf("an exit-0 doctor lists %q as failed: %+v", name, c)
		}
		if c.Status != "ok" && c.Status != "warn" && c.Status != "skip" {
			t.Errorf("check %q has status %q, want ok, warn or skip", name, c.Status)
		}
	}
	if c := checks["knowledge embed"]; c.Status != "skip" || !c.OK {
		t.Errorf("the unconfigured embedding check reads %+v, want status skip and ok true", c)
	}

	down := newEnv(t, testenv.ClosedURL(t))
	code, checks = doctorJSON(t, down)
	if code != 1 {
		t.Errorf("doctor with no model server exits %d, want 1", code)
	}
	if c := checks["ollama"]; c.Status != "fail" || c.OK || c.Hint == "" {
		t.Errorf("the unreachable model server reads %+v, want status fail, ok false and a hint", c)
	}
	if c := checks["model"]; c.Status != "skip" || !c.OK {
		t.Errorf("the model check after an unreachable server reads %+v, want status skip, ok true", c)
	}
}
