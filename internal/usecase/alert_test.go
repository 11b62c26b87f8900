package usecase

import (
	"context"
	"errors"
	"github.com/superbiz/superbiz/internal/model/providertest"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/alerts"
	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/internal/promtest"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/runstore"
)

// A chat message is "/alert REF" only as the whole message: the command,
// blanks, the reference (which may be empty, to be refused by the finder).
func TestAlertRef(t *testing.T) {
	for _, tt := range []struct {
		msg, ref string
		ok       bool
	}{{"/alert X", "X", true}, {"  /alert  a b ", "a b", true}, {"/alert", "", true}, {"/alert\tX", "X", true}, {"/alerts X", "", false}, {"why /alert X", "", false}} {
		if ref, ok := AlertRef(tt.msg); ref != tt.ref || ok != tt.ok {
			t.Errorf("AlertRef(%q) = %q, %v; want %q, %v", tt.msg, ref, ok, tt.ref, tt.ok)
		}
	}
}

// Chat routes "/alert NAME" itself, for every front end: a DIAGNOSIS from
// that firing alert of a real Alertmanager (the router never asked, the
// alert's text the query, the run's clock anchored to the alert), and an
// unknown alert is an *AlertError with no run stored.
func TestChatAlertRoutesToDiagnosis(t *testing.T) {
	am := promtest.StartAlertmanager(t)
	start := time.Date(2026, 11, 28, 14, 20, 0, 0, time.UTC)
	am.Post(t, promtest.Alert{
		Labels:      map[string]string{"alertname": "DiskFull", "severity": "warning", "instance": "db1:9100"},
		Annotations: map[string]string{"summary": "disk /var 95% full"},
		StartsAt:    start,
	})
	am.WaitFiring(t, 1)
	client, err := alerts.New(alerts.Options{URL: am.URL, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	providertest.Each(t, func(t *testing.T, p providertest.Provider) {
		f := newChatFixture(t, p, false)
		f.deps.FindAlert = client.Find
		f.srv.Handle(func(ollamatest.ChatRequest) ollamatest.Turn {
			return ollamatest.Turn{Content: []string{`{"conclusion":null,"analysis":[],"action_plan":[],"recommendations":[],"limitations":{"scope":"nothing checked","missing_info":["logs"]}}`}}
		})

		out := f.chat(ChatRequest{Query: "/alert DiskFull"})
		if out.Intent != runrecord.IntentDiagnosis || out.ReleaseOutcome != runrecord.OutcomeFallback {
			t.Fatalf("/alert DiskFull: intent %q, outcome %s; want a DIAGNOSIS", out.Intent, out.ReleaseOutcome)
		}
		reqs := f.srv.ChatRequests()
		if len(reqs) == 0 {
			t.Fatal("the model was not called")
		}
		for _, r := range reqs {
			if strings.Contains(string(r.Format), `"intent"`) {
				t.Fatalf("the router was asked about an /alert message")
			}
		}
		if user := firstUser(reqs[0]); !strings.Contains(user, `alert \"DiskFull\"`) || !strings.Contains(user, "Summary: disk /var 95% full") {
			t.Fatalf("the diagnosis's query is not the alert's:\n%s", user)
		}
		if got, want := f.run(out.RunID).Clock, alerts.Clock(alerts.Alert{StartsAt: start}, time.Date(2026, 11, 28, 15, 0, 0, 0, time.UTC)); !got.Equal(want) {
			t.Fatalf("run clock %s, want the alert's %s", got, want)
		}

		_, err = f.deps.Chat(context.Background(), ChatRequest{Query: "/alert NoSuchAlert", SessionID: out.SessionID})
		var ae *AlertError
		if !errors.As(err, &ae) || !errors.Is(err, alerts.ErrNotFound) {
			t.Fatalf("/alert NoSuchAlert: err = %v, want an *AlertError of alerts.ErrNotFound", err)
		}
		runs, err := f.store.ListRuns(context.Background(), runstore.ListFilter{})
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) != 1 {
			t.Fatalf("%d runs stored, want only the DiskFull diagnosis", len(runs))
		}
	})
}

// firstUser is the first user message of one model request.
func firstUser(r ollamatest.ChatRequest) string {
	for _, m := range r.Messages {
		if m.Role == "user" {
			return m.Content
		}
	}
	return ""
}
