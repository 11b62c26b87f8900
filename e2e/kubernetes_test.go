package e2e

import (
	"context"
	"database/sql"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/kubetest"
	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/internal/testenv"
)

// hangingAPIServer is an HTTPS server that answers no request until its
// client goes away; each request it receives is sent on the channel.
func hangingAPIServer(t *testing.T) (*httptest.Server, <-chan string) {
	t.Helper()
	got := make(chan string, 16)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case got <- r.Method + " " + r.URL.Path:
		default:
		}
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	return srv, got
}

// kubeConfigFile writes a superbiz.toml with one [[kubernetes]] source
// "prod" on kubeconfig (timeout as given) and returns its path.
func kubeConfigFile(t *testing.T, dir, kubeconfig, timeout string) string {
	t.Helper()
	cfg := filepath.Join(dir, "superbiz.toml")
	body := "[knowledge]\npaths = []\n\n[[kubernetes]]\nname = \"prod\"\nkubeconfig = \"" + kubeconfig + "\"\ntimeout = \"" + timeout + "\"\n"
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// `tools call` exits 4 when a tool's source could not be reached or read
// (UNAVAILABLE), as for a model or Alertmanager that cannot be reached,
// and 1 for any other backend failure: an API server on a closed port and
// an account the API server refuses (403, the hint naming the context and
// the verb refused) are 4, one that hangs past the timeout is TIMEOUT and
// 1; query_logs on files it cannot read is 4 as well (every tool the same).
func TestToolsCallUnavailableIsExit4(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.ClosedURL(t))
	dir := t.TempDir()
	pods := `{"source":"prod","view":"pods","namespace":"shop"}`

	closed := kubetest.WriteKubeconfig(t, dir, "closed", testenv.ClosedURL(t), "t")
	r := e.run(t, "--config", kubeConfigFile(t, dir, closed, "5s"), "tools", "call", "query_kubernetes", pods)
	if r.code != 4 || !strings.Contains(r.stdout, `"error_code": "UNAVAILABLE"`) ||
		!strings.Contains(r.stderr, "query_kubernetes failed (UNAVAILABLE)") || !strings.Contains(r.stderr, "context closed") {
		t.Errorf("API server on a closed port: want exit 4, UNAVAILABLE naming the context\n%s", r)
	}

	srv, _ := hangingAPIServer(t)
	hanging := kubetest.WriteKubeconfig(t, dir, "hanging", srv.URL, "t")
	r = e.run(t, "--config", kubeConfigFile(t, dir, hanging, "1s"), "tools", "call", "query_kubernetes", pods)
	if r.code != 1 || !strings.Contains(r.stdout, `"error_code": "TIMEOUT"`) || !strings.Contains(r.stderr, "timeout is 1s") {
		t.Errorf("hanging API server: want exit 1, TIMEOUT naming the timeout\n%s", r)
	}

	logs := filepath.Join(dir, "logs.toml")
	if err := os.WriteFile(logs, []byte("[knowledge]\npaths = []\n\n[[logs]]\nname = \"app\"\npaths = [\""+filepath.Join(dir, "none", "*.log")+"\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = e.run(t, "--config", logs, "tools", "call", "query_logs", `{"source":"app","since":"1h"}`)
	if r.code != 4 || !strings.Contains(r.stdout, `"error_code": "UNAVAILABLE"`) {
		t.Errorf("query_logs with no file to read: want exit 4, UNAVAILABLE\n%s", r)
	}

	t.Run("refused account", func(t *testing.T) {
		adm := kubetest.NewAdmin(t) // the API server of .ci/kubernetes.sh
		nobody := adm.Token(adm.Namespace("nobody"), dir)
		r := e.run(t, "--config", kubeConfigFile(t, dir, nobody, "10s"), "tools", "call", "query_kubernetes", pods)
		if r.code != 4 || !strings.Contains(r.stdout, `"error_code": "UNAVAILABLE"`) ||
			!strings.Contains(r.stderr, "may not list pods in namespace shop (403)") || !strings.Contains(r.stderr, "read-only ClusterRole") {
			t.Errorf("refused account: want exit 4, UNAVAILABLE with the 403 hint\n%s", r)
		}
	})
}

// A stop signal while query_kubernetes waits on its API server, in a
// diagnosis through each model wire: the process exits 130, the run is
// stored CANCELLED, and so is the call: its tool_invocations row says
// CANCELLED (status and error code) as the process itself stored it.
func TestSignalMidKubernetesCallIsAuditedCancelled(t *testing.T) {
	t.Parallel()
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			api, got := hangingAPIServer(t)
			dir := t.TempDir()
			kc := kubetest.WriteKubeconfig(t, dir, "prod-ctx", api.URL, "t")
			srv := p.start(t)
			srv.Script(
				ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{ID: "call_k1", Name: "query_kubernetes", Args: `{"input":{"source":"prod","view":"pods","namespace":"shop"}}`}}},
				ollamatest.Turn{Content: []string{"never asked"}},
			)
			e := srv.env(t)
			e.vars["SUPERBIZ_CONFIG"] = kubeConfigFile(t, dir, kc, "60s")
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			c, stdout, stderr := e.command(ctx, "diagnose", "-o", "json", "why does checkout restart in namespace shop?")
			if err := c.Start(); err != nil {
				t.Fatalf("start: %v", err)
			}
			select {
			case req := <-got:
				if !strings.HasPrefix(req, "GET /api/v1/namespaces/shop/pods") {
					t.Errorf("the API server got %s", req)
				}
			case <-ctx.Done():
				t.Fatalf("the API server got no request\n%s", stderr)
			}
			if err := c.Process.Signal(syscall.SIGINT); err != nil {
				t.Fatalf("send SIGINT: %v", err)
			}
			_ = c.Wait() // the exit code is checked below
			r := result{args: c.Args[1:], code: c.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String()}
			if r.code != 130 {
				t.Fatalf("exit %d, want 130\n%s", r.code, r)
			}
			out := decodeOutput(t, r)
			if out.Status != "CANCELLED" {
				t.Errorf("status %s, want CANCELLED", out.Status)
			}
			// Read the store without opening it through superbiz, whose open
			// would recover a RUNNING run: what the process itself stored.
			db, err := sql.Open("sqlite", "file:"+e.vars["SUPERBIZ_DB"]+"?mode=ro")
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			var status, evidence, code, control, observation, detail string
			err = db.QueryRow(`SELECT status, evidence_status, error_code, COALESCE(control, ''), COALESCE(observation, ''), detail FROM tool_invocations
				WHERE run_id = ? AND tool = 'query_kubernetes'`, out.RunID).Scan(&status, &evidence, &code, &control, &observation, &detail)
			if err != nil {
				t.Fatalf("the cancelled call is not in tool_invocations: %v\n%s", err, r)
			}
			t.Logf("stored: status %s, evidence_status %s, error_code %s, control %q, observation %s, detail %s", status, evidence, code, control, observation, detail)
			if status != "CANCELLED" || evidence != "ERROR" || code != "CANCELLED" {
				t.Errorf("stored status %q, evidence_status %q, error_code %q; want CANCELLED, ERROR, CANCELLED", status, evidence, code)
			}
		})
	}
}
