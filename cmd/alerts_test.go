package cmd

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/doctor"
	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/internal/promtest"
	"github.com/superbiz/superbiz/internal/reliability"
	"github.com/superbiz/superbiz/internal/testenv"
	"github.com/superbiz/superbiz/pkg/egress"
)

// alertSecret is planted in an annotation: it must never leave superbiz.
const alertSecret = "Hunter2AlertSecret"

// alertStart is when the oldest posted alert started.
var alertStart = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// alertsEnv starts a real Alertmanager holding three firing alerts (two
// named HighLatency, the newer on orders) and returns an environment whose
// configuration points at it, with the clock 3h after the first start.
func alertsEnv(t *testing.T) (map[string]string, *promtest.Alertmanager) {
	t.Helper()
	am := promtest.StartAlertmanager(t)
	am.Post(t,
		promtest.Alert{
			Labels:      map[string]string{"alertname": "HighLatency", "severity": "critical", "service": "checkout", "instance": "10.0.0.1:8080"},
			Annotations: map[string]string{"summary": "checkout p99 above 2s", "description": "p99 3.2s; reconnect with password=" + alertSecret},
			StartsAt:    alertStart,
		},
		promtest.Alert{
			Labels:      map[string]string{"alertname": "DiskFull", "severity": "warning", "instance": "db1:9100"},
			Annotations: map[string]string{"summary": "disk /var 95% full"},
			StartsAt:    alertStart.Add(20 * time.Minute),
		},
		promtest.Alert{
			Labels:      map[string]string{"alertname": "HighLatency", "severity": "warning", "service": "orders"},
			Annotations: map[string]string{"summary": "orders p99 above 1s", "description": "db pool token=" + alertSecret},
			StartsAt:    alertStart.Add(40 * time.Minute),
		},
	)
	am.WaitFiring(t, 3)
	env := diagnoseEnv(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "superbiz.toml")
	if err := os.WriteFile(cfg, []byte("[knowledge]\npaths = []\n\n[alerts]\nurl = \""+am.URL+"\"\ntimeout = \"10s\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env["SUPERBIZ_CONFIG"] = cfg
	env["SUPERBIZ_NOW"] = alertStart.Add(3 * time.Hour).Format(time.RFC3339)
	return env, am
}

// `alerts` lists what was posted, newest first, in text and JSON, with the
// planted secret masked; --limit keeps the newest and says how many more.
func TestAlertsCommand(t *testing.T) {
	env, _ := alertsEnv(t)
	code, out, errOut := cli(t, env, "alerts")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "STARTED") || !strings.Contains(lines[0], "FINGERPRINT") {
		t.Fatalf("want a header and 3 rows:\n%s", out)
	}
	for i, want := range []string{"HighLatency  warning   orders", "DiskFull     warning   -        db1:9100", "HighLatency  critical  checkout  10.0.0.1:8080  checkout p99 above 2s"} {
		if !strings.Contains(strings.Join(strings.Fields(lines[i+1]), " "), strings.Join(strings.Fields(want), " ")) {
			t.Errorf("row %d = %q, want it to hold %q", i+1, lines[i+1], want)
		}
	}

	code, out, errOut = cli(t, env, "alerts", "-o", "json")
	if code != ExitOK {
		t.Fatalf("json: exit %d\n%s", code, errOut)
	}
	var got []struct {
		Labels      map[string]string `json:"labels"`
		Annotations map[string]string `json:"annotations"`
		StartsAt    time.Time         `json:"startsAt"`
		Fingerprint string            `json:"fingerprint"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not a JSON array: %v\n%s", err, out)
	}
	if len(got) != 3 || got[0].Labels["service"] != "orders" || !got[2].StartsAt.Equal(alertStart) || len(got[2].Fingerprint) != 16 ||
		got[2].Annotations["summary"] != "checkout p99 above 2s" {
		t.Fatalf("json = %+v", got)
	}
	if strings.Contains(out, alertSecret) || !strings.Contains(got[2].Annotations["description"], egress.Marker) {
		t.Errorf("the planted secret is not masked: %s", got[2].Annotations["description"])
	}

	code, out, errOut = cli(t, env, "alerts", "--limit", "1", "-o", "json")
	if code != ExitOK || strings.Count(out, `"fingerprint"`) != 1 || !strings.Contains(errOut, "2 more firing alerts not shown (raise --limit)") {
		t.Errorf("--limit 1: exit %d\n%s\n%s", code, out, errOut)
	}
	code, _, errOut = cli(t, env, "alerts", "--limit", "2", "-o", "json")
	if code != ExitOK || !strings.Contains(errOut, "superbiz: 1 more firing alert not shown (raise --limit)") {
		t.Errorf("--limit 2: exit %d, stderr %q, want one alert said in the singular", code, errOut)
	}
}

// alertModel answers every diagnosis with an honest no-conclusion draft.
func alertModel(t *testing.T) *ollamatest.Server {
	srv := ollamatest.New(t)
	srv.Handle(func(ollamatest.ChatRequest) ollamatest.Turn { return ollamatest.Turn{Content: []string{noConclusion}} })
	return srv
}

// firstUserMessage is the first user message the model received.
func firstUserMessage(t *testing.T, srv *ollamatest.Server) string {
	t.Helper()
	for _, r := range srv.ChatRequests() {
		for _, m := range r.Messages {
			if m.Role == "user" {
				return m.Content
			}
		}
	}
	t.Fatal("the model received no user message")
	return ""
}

// `diagnose --alert NAME` sends the newest alert of that name to the model
// (name, summary, labels, start, the clock anchored to the start, the
// secret masked), says on stderr that it picked the newest, and runs with
// the alert's clock; a fingerprint picks exactly that alert.
func TestDiagnoseFromAlert(t *testing.T) {
	env, _ := alertsEnv(t)
	srv := alertModel(t)
	env["OLLAMA_HOST"] = srv.URL()
	code, out, errOut := cli(t, env, "diagnose", "--alert", "HighLatency", "-o", "json")
	if code != ExitFallback {
		t.Fatalf("exit %d, want %d (the model concluded nothing)\n%s\n%s", code, ExitFallback, out, errOut)
	}
	if !strings.Contains(errOut, "superbiz: 2 alerts named HighLatency are firing; using the newest (fingerprint ") {
		t.Errorf("stderr does not say which alert was picked:\n%s", errOut)
	}
	msg := firstUserMessage(t, srv)
	newest := alertStart.Add(40 * time.Minute)
	for _, want := range []string{
		`Diagnose the firing Alertmanager alert \"HighLatency\"`,
		"Started: " + newest.Format(time.RFC3339), "Diagnosis clock: " + newest.Add(30*time.Minute).Format(time.RFC3339),
		"2 alerts named HighLatency are firing; using the newest",
		"Summary: orders p99 above 1s", "Labels: alertname=HighLatency, service=orders, severity=warning",
		"Description: db pool token=" + egress.Marker,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("the first user message lacks %q:\n%s", want, msg)
		}
	}
	var res struct {
		RunID string `json:"run_id"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	code, shown, errOut := cli(t, env, "runs", "show", res.RunID, "-o", "json")
	if code != ExitOK {
		t.Fatalf("runs show: exit %d: %s", code, errOut)
	}
	var run struct {
		Clock string `json:"clock"`
		Query string `json:"query"`
	}
	if err := json.Unmarshal([]byte(shown), &run); err != nil {
		t.Fatal(err)
	}
	if clock, err := time.Parse(time.RFC3339Nano, run.Clock); err != nil || !clock.Equal(newest.Add(30*time.Minute)) {
		t.Errorf("run clock = %q, want the alert's start + 30m", run.Clock)
	}

	// By fingerprint: exactly the older checkout alert, no note.
	_, listed, _ := cli(t, env, "alerts", "-o", "json")
	var as []struct {
		Fingerprint string `json:"fingerprint"`
	}
	if err := json.Unmarshal([]byte(listed), &as); err != nil || len(as) != 3 {
		t.Fatalf("alerts -o json: %v\n%s", err, listed)
	}
	srv2 := alertModel(t)
	env["OLLAMA_HOST"] = srv2.URL()
	code, _, errOut = cli(t, env, "diagnose", "--alert", as[2].Fingerprint)
	msg2 := firstUserMessage(t, srv2)
	if code != ExitFallback || strings.Contains(errOut, "using the newest") || !strings.Contains(msg2, "service=checkout") ||
		!strings.Contains(msg2, "Started: "+alertStart.Format(time.RFC3339)) {
		t.Errorf("by fingerprint: exit %d\n%s\n%s", code, errOut, msg2)
	}

	leaks := 0
	for _, text := range []string{msg, msg2, out, shown, errOut, listed} {
		if strings.Contains(text, alertSecret) {
			leaks++
		}
	}
	for _, r := range append(srv.Requests(), srv2.Requests()...) {
		if bytes.Contains(r.Body, []byte(alertSecret)) {
			leaks++
		}
	}
	reliability.Record(t, reliability.SectionSecrets, "alert annotation (diagnose --alert: model requests, run store, alerts listing)", map[string]any{"planted": 2, "leaked": leaks})
	if leaks > 0 {
		t.Errorf("the planted secret left superbiz %d times", leaks)
	}
}

// What cannot start a diagnosis fails before any model call, clearly: an
// unknown alert (2), no [alerts] url (2), an unset credential variable
// (2), an unreachable Alertmanager (4), --alert with a QUERY (2).
func TestDiagnoseFromAlertFailures(t *testing.T) {
	env, _ := alertsEnv(t)
	srv := alertModel(t)
	env["OLLAMA_HOST"] = srv.URL()

	code, _, errOut := cli(t, env, "diagnose", "--alert", "NoSuchAlert")
	if code != ExitUsage || !strings.Contains(errOut, `no firing alert named or fingerprinted "NoSuchAlert" (firing: HighLatency, DiskFull)`) ||
		!strings.Contains(errOut, "`superbiz alerts` lists") {
		t.Errorf("unknown alert: exit %d\n%s", code, errOut)
	}
	code, _, errOut = cli(t, env, "diagnose", "--alert", "HighLatency", "why")
	if code != ExitUsage || !strings.Contains(errOut, "--alert and a QUERY are exclusive") {
		t.Errorf("--alert with a query: exit %d\n%s", code, errOut)
	}

	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("[knowledge]\npaths = []\n"+body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tt := range []struct {
		name, config string
		args         []string
		code         int
		want         []string
	}{
		{"no alerts configured", write("none.toml", ""), []string{"alerts"}, ExitUsage, []string{"no Alertmanager configured", "hint: add [alerts] url"}},
		{"unset token variable", write("token.toml", "[alerts]\nurl = \""+testenv.ClosedURL(t)+"\"\nbearer_token_env = \"SUPERBIZ_TEST_AM_TOKEN\"\n"), []string{"alerts"}, ExitUsage, []string{"alerts.bearer_token_env names $SUPERBIZ_TEST_AM_TOKEN, which is not set"}},
		{"unreachable", write("closed.toml", "[alerts]\nurl = \""+testenv.ClosedURL(t)+"\"\n"), []string{"diagnose", "--alert", "HighLatency"}, ExitUnavailable, []string{"is not reachable", "hint: start Alertmanager or fix [alerts] url"}},
		{"unreachable listing", write("closed2.toml", "[alerts]\nurl = \""+testenv.ClosedURL(t)+"\"\n"), []string{"alerts"}, ExitUnavailable, []string{"is not reachable"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := map[string]string{}
			for k, v := range env {
				e[k] = v
			}
			e["SUPERBIZ_CONFIG"] = tt.config
			code, out, errOut := cli(t, e, tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, tt.code, out, errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errOut)
				}
			}
		})
	}
	if n := srv.ChatCount(); n != 0 {
		t.Errorf("the model was called %d times; no failure above may reach it", n)
	}
}

// In chat, "/alert NAME" is a DIAGNOSIS from that alert without the
// router; an unknown alert is said on stderr, stores no run and fails the
// turn, and the other messages still run.
func TestChatAlertMessage(t *testing.T) {
	env, _ := alertsEnv(t)
	srv := alertModel(t)
	env["OLLAMA_HOST"] = srv.URL()
	var out, errOut bytes.Buffer
	in := strings.NewReader("/alert DiskFull\n/alert NoSuchAlert\n")
	code := run(context.Background(), []string{"chat", "-o", "json"}, in, &out, &errOut, func(k string) string { return env[k] })
	if code != ExitFailed {
		t.Fatalf("exit %d, want %d (one turn failed)\n%s\n%s", code, ExitFailed, out.String(), errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var turn struct {
		Intent         string `json:"intent"`
		ReleaseOutcome string `json:"release_outcome"`
	}
	if len(lines) != 1 || json.Unmarshal([]byte(lines[0]), &turn) != nil || turn.Intent != "DIAGNOSIS" || turn.ReleaseOutcome != "FALLBACK" {
		t.Fatalf("want one DIAGNOSIS answer:\n%s", out.String())
	}
	for _, r := range srv.ChatRequests() {
		if strings.Contains(string(r.Format), `"intent"`) {
			t.Errorf("the router was asked about an /alert message")
		}
	}
	if msg := firstUserMessage(t, srv); !strings.Contains(msg, `alert \"DiskFull\"`) || !strings.Contains(msg, "Summary: disk /var 95% full") {
		t.Errorf("first user message:\n%s", msg)
	}
	if !strings.Contains(errOut.String(), `superbiz: /alert: no firing alert named or fingerprinted "NoSuchAlert"`) {
		t.Errorf("stderr:\n%s", errOut.String())
	}
}

// doctor checks a configured Alertmanager: answering (with the number
// firing), or failing with the reason and a hint; no [alerts], no line.
func TestDoctorAlerts(t *testing.T) {
	env, am := alertsEnv(t)
	srv := ollamatest.New(t)
	env["OLLAMA_HOST"] = srv.URL()
	alertsLines := func(t *testing.T, env map[string]string) (int, []doctor.Result) {
		t.Helper()
		code, out, _ := cli(t, env, "doctor", "-o", "json")
		var checks []doctor.Result
		if err := json.Unmarshal([]byte(out), &checks); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		var got []doctor.Result
		for _, c := range checks {
			if c.Check == "alerts" {
				got = append(got, c)
			}
		}
		return code, got
	}
	if _, got := alertsLines(t, env); len(got) != 1 || !got[0].OK || got[0].Detail != "Alertmanager at "+am.URL+" answers: 3 firing" {
		t.Fatalf("alerts check = %+v", got)
	}

	cfg := filepath.Join(t.TempDir(), "closed.toml")
	if err := os.WriteFile(cfg, []byte("[knowledge]\npaths = []\n[alerts]\nurl = \""+testenv.ClosedURL(t)+"\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env["SUPERBIZ_CONFIG"] = cfg
	code, got := alertsLines(t, env)
	if code != ExitFailed || len(got) != 1 || got[0].OK || !strings.Contains(got[0].Detail, "is not reachable") || !strings.Contains(got[0].Hint, "start Alertmanager") {
		t.Errorf("unreachable: exit %d, %+v", code, got)
	}
	env["SUPERBIZ_CONFIG"] = ""
	if _, got := alertsLines(t, env); len(got) != 0 {
		t.Errorf("no [alerts], yet an alerts line: %+v", got)
	}
}

// An alert carrying far more text than a query may hold still starts a
// diagnosis: its query is clipped to limits.query before the agent checks
// it, never rejected and never sent whole.
func TestDiagnoseFromHugeAlert(t *testing.T) {
	am := promtest.StartAlertmanager(t)
	annotations := map[string]string{"summary": "huge"}
	for i := range 40 {
		annotations[fmt.Sprintf("note_%02d", i)] = strings.Repeat("x", 4000)
	}
	am.Post(t, promtest.Alert{Labels: map[string]string{"alertname": "Huge"}, Annotations: annotations, StartsAt: alertStart})
	am.WaitFiring(t, 1)
	env := diagnoseEnv(t)
	cfg := filepath.Join(t.TempDir(), "superbiz.toml")
	if err := os.WriteFile(cfg, []byte("[knowledge]\npaths = []\n[limits]\nquery = 1024\n[alerts]\nurl = \""+am.URL+"\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env["SUPERBIZ_CONFIG"] = cfg
	srv := alertModel(t)
	env["OLLAMA_HOST"] = srv.URL()
	code, out, errOut := cli(t, env, "diagnose", "--alert", "Huge", "-o", "json")
	if code != ExitFallback {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	var in struct {
		Query string `json:"query"`
	}
	if err := json.Unmarshal([]byte(firstUserMessage(t, srv)), &in); err != nil {
		t.Fatal(err)
	}
	reliability.Record(t, reliability.SectionBombs, "alert with 40 annotations of 4000 bytes (diagnose --alert, limits.query 1024)", map[string]any{
		"alert_bytes": 40 * 4000, "query_bytes": len(in.Query), "outcome": "clipped, FALLBACK",
	})
	if len(in.Query) > 1024 || !strings.Contains(in.Query, `alert "Huge"`) || !strings.Contains(in.Query, "Summary: huge") {
		t.Errorf("query of %d bytes (limit 1024):\n%s", len(in.Query), in.Query)
	}
}

// An Alertmanager whose alerts echo the configured credential (a label
// value, an annotation, the base64 of user:password, the URL-encoded
// password) never gets it to stdout, stderr or doctor: httpsource scrubs
// every answer before the alerts reader sees it (issue 17, finding 3).
func TestAlertsEchoedCredentialScrubbed(t *testing.T) {
	const token, user, password = "correct-horse-battery-staple", "oncall", "plain words/and more"
	basic := base64.StdEncoding.EncodeToString([]byte(user + ":" + password))
	am := promtest.StartAlertmanager(t)
	am.Post(t, promtest.Alert{
		Labels:      map[string]string{"alertname": "Echo", "severity": "critical", "echo": token},
		Annotations: map[string]string{"summary": "seen " + token, "description": "header Basic " + basic + " pw " + url.QueryEscape(password) + " raw " + password},
		StartsAt:    alertStart,
	})
	am.WaitFiring(t, 1)
	for _, auth := range []string{
		"bearer_token_env = \"AM_TOKEN\"\n",
		"username = \"" + user + "\"\npassword_env = \"AM_PASSWORD\"\n",
	} {
		env := diagnoseEnv(t)
		cfg := filepath.Join(t.TempDir(), "superbiz.toml")
		if err := os.WriteFile(cfg, []byte("[knowledge]\npaths = []\n\n[alerts]\nurl = \""+am.URL+"\"\ntimeout = \"10s\"\n"+auth), 0o600); err != nil {
			t.Fatal(err)
		}
		env["SUPERBIZ_CONFIG"] = cfg
		env["SUPERBIZ_NOW"] = alertStart.Add(time.Hour).Format(time.RFC3339)
		env["AM_TOKEN"], env["AM_PASSWORD"] = token, password
		secrets := []string{basic, url.QueryEscape(password), password}
		if strings.HasPrefix(auth, "bearer") {
			secrets = []string{token}
		}
		leaked := 0
		for _, args := range [][]string{{"alerts", "-o", "json"}, {"alerts"}} {
			code, out, errOut := cli(t, env, args...)
			if code != ExitOK || !strings.Contains(out, "Echo") {
				t.Fatalf("%q: exit %d\n%s\n%s", args, code, out, errOut)
			}
			for _, s := range secrets {
				if strings.Contains(out+errOut, s) {
					leaked++
					t.Errorf("%s%q: %q reached the output:\n%s%s", auth, args, s, out, errOut)
				}
			}
		}
		reliability.Record(t, reliability.SectionSecrets, "credential echoed by Alertmanager ("+strings.Fields(auth)[0]+"; alerts text and JSON)", map[string]any{"planted": len(secrets), "leaked": leaked})
	}
}

// `alerts` over an answer in which one alert's startsAt is not a time
// lists the other alert, says on stderr which one was left out, and exits
// 0 (issue 17: the whole listing failed with exit 4).
func TestAlertsMalformedStartListed(t *testing.T) {
	body, err := os.ReadFile(filepath.Join("..", "testdata", "alerts", "alertmanager-0.25.json"))
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(body), `"startsAt":"2026-11-30T17:00:00.000Z"`, `"startsAt":"30/11/2026 17:00"`, 1)
	if bad == string(body) {
		t.Fatal("the recorded answer changed: no startsAt to break")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(bad))
	}))
	defer srv.Close()
	cfg := filepath.Join(t.TempDir(), "superbiz.toml")
	if err := os.WriteFile(cfg, []byte("[knowledge]\npaths = []\n\n[alerts]\nurl = \""+srv.URL+"\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := diagnoseEnv(t)
	env["SUPERBIZ_CONFIG"] = cfg
	code, out, errOut := cli(t, env, "alerts")
	if code != ExitOK || !strings.Contains(out, "HighLatency") || !strings.Contains(out, "b6c13ba2d3d4f27f") || strings.Contains(out, "e1e03dc7b604b39e") {
		t.Fatalf("exit %d, want 0 listing the well-formed alert only\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, `superbiz: alert 1 (fingerprint e1e03dc7b604b39e) left out: its startsAt "30/11/2026 17:00" is not an RFC 3339 time`) {
		t.Errorf("stderr does not say which alert was left out:\n%s", errOut)
	}
	if code, out, errOut := cli(t, env, "doctor"); !strings.Contains(out+errOut, "1 left out") {
		t.Errorf("doctor (exit %d) does not warn of the alert left out:\n%s\n%s", code, out, errOut)
	}
}
