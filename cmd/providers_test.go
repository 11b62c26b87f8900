package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"maps"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/eval"
	"github.com/superbiz/superbiz/internal/fixture"
	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/internal/model/providertest"
	"github.com/superbiz/superbiz/internal/testenv"
	ollamawire "github.com/superbiz/superbiz/pkg/model/ollama"
	openaiwire "github.com/superbiz/superbiz/pkg/model/openai"
)

// providerChoice is one way a person points superbiz at a provider's
// server: the environment, the configuration file, or the flags.
type providerChoice struct {
	name string
	// set returns the environment and the arguments (before the command's
	// own) that choose srv, writing a config file under dir when needed.
	set func(t *testing.T, srv *providertest.Server, dir string) (env map[string]string, args []string)
}

// providerChoices are the three ways of choosing the provider and its URL,
// each of which every command that talks to a model must honour alike.
var providerChoices = []providerChoice{
	{"environment", func(_ *testing.T, srv *providertest.Server, _ string) (map[string]string, []string) {
		return srv.Env(), nil
	}},
	{"file", func(t *testing.T, srv *providertest.Server, dir string) (map[string]string, []string) {
		file := filepath.Join(dir, "superbiz.toml")
		body := "[model]\nhost = \"" + srv.URL() + "\"\n"
		if srv.Provider() == providertest.OpenAI {
			body = "[model]\nprovider = \"openai\"\nurl = \"" + srv.URL() + "\"\n"
		}
		fixture.WriteFile(t, file, body)
		// OLLAMA_HOST would rightly beat the file: unset it.
		return map[string]string{config.EnvConfig: file, ollamawire.EnvHost: ""}, nil
	}},
	{"flag", func(_ *testing.T, srv *providertest.Server, _ string) (map[string]string, []string) {
		if srv.Provider() == providertest.OpenAI {
			// model.url has no flag: its variable names the server.
			return map[string]string{openaiwire.EnvBaseURL: srv.URL()}, []string{"--provider", "openai"}
		}
		return nil, []string{"--host", srv.URL()}
	}},
}

// eachProviderChoice runs fn for both providers and every way of choosing
// one, with a fresh scripted server and an environment that reaches no
// other model (OLLAMA_HOST closed unless the choice sets it).
func eachProviderChoice(t *testing.T, fn func(t *testing.T, srv *providertest.Server, env map[string]string, args []string)) {
	providertest.Each(t, func(t *testing.T, prov providertest.Provider) {
		for _, c := range providerChoices {
			t.Run(c.name, func(t *testing.T) {
				srv := providertest.Start(t, prov)
				env := diagnoseEnv(t)
				extra, args := c.set(t, srv, t.TempDir())
				maps.Copy(env, extra)
				fn(t, srv, env, args)
			})
		}
	})
}

// eval runs its packs on the provider the configuration, the environment or
// the flags chose, exactly as diagnose does, and stores the runs with that
// provider's URL. (It once loaded each pack's file without the user's
// [model] and without --provider: 0 requests reached an OpenAI-compatible
// server and the runs were stored against Ollama's default host.)
func TestEvalThroughEachProvider(t *testing.T) {
	const id = "tls-expiry-checkout"
	tr := loadTranscript(t, id)
	eachProviderChoice(t, func(t *testing.T, srv *providertest.Server, env map[string]string, args []string) {
		srv.Script(tr.Good.turns(tr.Calls)...)
		db := filepath.Join(t.TempDir(), "eval.db")
		code, out, errOut := cli(t, env, append(args, "eval", "--suite", "builtin", "--filter", id, "--record", "--db", db, "-o", "json")...)
		if code != ExitOK {
			t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
		}
		var res eval.Results
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if len(res.Packs) != 1 || !res.Packs[0].Pass || len(res.Packs[0].RunIDs) != 1 {
			t.Fatalf("results %s\nstderr %s", out, errOut)
		}
		if srv.ChatCount() == 0 || srv.Pending() != 0 {
			t.Errorf("%d chat requests reached the %s server, %d scripted turns left", srv.ChatCount(), srv.Provider(), srv.Pending())
		}
		code, out, errOut = cli(t, env, "runs", "show", res.Packs[0].RunIDs[0], "--db", db, "-o", "json")
		var run struct {
			Host string `json:"host"`
		}
		if err := json.Unmarshal([]byte(out), &run); code != ExitOK || err != nil {
			t.Fatalf("runs show: exit %d %v\n%s", code, err, errOut)
		}
		if run.Host != srv.URL() {
			t.Errorf("the run is stored against %q, want the %s server %q", run.Host, srv.Provider(), srv.URL())
		}
	})
}

// doctor checks the client a run would use, and its config line names the
// provider, the effective URL and which flag, variable or file set each.
// (It once said "at http://127.0.0.1:11434", Ollama's host, under
// provider openai.)
func TestDoctorThroughEachProvider(t *testing.T) {
	eachProviderChoice(t, func(t *testing.T, srv *providertest.Server, env map[string]string, args []string) {
		if srv.Provider() == providertest.OpenAI {
			srv.Script(ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{ID: "call_p1", Name: "report_status", Args: `{"status":"ok"}`}}},
				ollamatest.Turn{Content: []string{`{"status":"ok"}`}})
		}
		code, out, errOut := cli(t, env, append(args, "doctor")...)
		l := line(t, out, "ok  ", "config")
		if !strings.Contains(l, " at "+srv.URL()+" ") || !strings.Contains(l, "provider "+string(srv.Provider())) {
			t.Errorf("config line %q does not name provider %s at %s", l, srv.Provider(), srv.URL())
		}
		if strings.Contains(l, "11434") {
			t.Errorf("config line %q names Ollama's default host", l)
		}
		origin := map[string]string{
			"environment": "from $", "flag": "from --", "file": "from " + env[config.EnvConfig],
		}[strings.TrimPrefix(t.Name()[strings.LastIndex(t.Name(), "/"):], "/")]
		if !strings.Contains(l, origin) {
			t.Errorf("config line %q does not say which of flag, environment or file chose the server (%q)", l, origin)
		}
		check := map[providertest.Provider]string{providertest.Ollama: "ollama", providertest.OpenAI: "openai"}[srv.Provider()]
		if ok := line(t, out, "ok  ", check); !strings.Contains(ok, srv.URL()) {
			t.Errorf("%s line %q does not name %s", check, ok, srv.URL())
		}
		line(t, out, "ok  ", "model")
		line(t, out, "ok  ", "tool calling")
		if srv.RequestCount() == 0 {
			t.Errorf("doctor sent nothing to the %s server", srv.Provider())
		}
		_ = code // the knowledge default may warn; nothing here may fail
		if strings.Contains(out, "FAIL") {
			t.Errorf("exit %d: a check failed\n%s\n%s", code, out, errOut)
		}
	})
}

// `config init` then doctor, on either provider chosen by the environment:
// the starter file loads, and the runbooks path nobody set (the default
// ./runbooks, missing) is a warning, not a failure. (Doctor once failed on
// it, and the starter's host made provider openai not load at all.)
func TestConfigInitThenDoctor(t *testing.T) {
	providertest.Each(t, func(t *testing.T, prov providertest.Provider) {
		srv := providertest.Start(t, prov)
		if prov == providertest.OpenAI {
			srv.Script(ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{ID: "call_p1", Name: "report_status", Args: `{"status":"ok"}`}}},
				ollamatest.Turn{Content: []string{`{"status":"ok"}`}})
		}
		env, _ := doctorEnv(t, "")
		maps.Copy(env, srv.Env())
		if code, _, errOut := cli(t, env, "config", "init"); code != ExitOK {
			t.Fatalf("config init: exit %d\n%s", code, errOut)
		}
		code, out, errOut := cli(t, env, "doctor")
		if code != ExitOK {
			t.Fatalf("doctor after config init: exit %d\n%s\n%s", code, out, errOut)
		}
		if l := line(t, out, "warn", "knowledge"); !strings.Contains(l, "runbooks does not exist") {
			t.Errorf("knowledge line %q", l)
		}
		if h := hintAfter(t, out, "knowledge"); !strings.Contains(h, "knowledge.paths") {
			t.Errorf("knowledge hint %q", h)
		}
	})
}

// --help names both providers, and the flags that choose one.
func TestHelpNamesBothProviders(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"doctor", "--help"}, {"eval", "--help"}} {
		_, out, _ := cli(t, nil, args...)
		for _, want := range []string{"Ollama", "OpenAI-compatible", "--provider"} {
			if !strings.Contains(out, want) {
				t.Errorf("%q: help does not name %q:\n%s", args, want, out)
			}
		}
	}
}

// The MCP diagnose tool runs the diagnosis on the configured provider: a
// real MCP client over the stdio of `superbiz mcp`, in-process.
func TestMCPDiagnoseThroughEachProvider(t *testing.T) {
	providertest.Each(t, func(t *testing.T, prov providertest.Provider) {
		srv := providertest.Start(t, prov)
		srv.Script(
			ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{ID: "call_m1", Name: "query_logs",
				Args: `{"input":{"service":"payment-service","level":"ERROR","contains":"connection is not available","since":"1h","limit":5}}`}}},
			ollamatest.Turn{Content: []string{noConclusion}},
		)
		env := diagnoseEnv(t)
		maps.Copy(env, srv.Env())
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		var errOut bytes.Buffer
		done := make(chan int, 1)
		go func() {
			done <- run(context.Background(), []string{"--demo", "mcp"}, inR, outW, &errOut, func(k string) string { return env[k] })
			outW.Close()
		}()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		client := mcp.NewClient(&mcp.Implementation{Name: "providers_test", Version: "1"}, nil)
		cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
		if err != nil {
			t.Fatalf("connect: %v", err)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "diagnose", Arguments: map[string]any{"query": "why is checkout slow"}})
		if err != nil {
			t.Fatalf("call diagnose: %v", err)
		}
		cs.Close()
		inW.Close()
		if code := <-done; code != ExitOK {
			t.Errorf("mcp exit %d\n%s", code, errOut.String())
		}
		body, _ := json.Marshal(res.StructuredContent)
		if res.IsError || !strings.Contains(string(body), `"FALLBACK"`) {
			t.Fatalf("diagnose result (error %v): %s\nstderr %s", res.IsError, body, errOut.String())
		}
		if srv.ChatCount() != 2 || srv.Pending() != 0 {
			t.Errorf("%d chat requests reached the %s server, %d turns left", srv.ChatCount(), prov, srv.Pending())
		}
	})
}

// replay --live-model against a model server that is down says how to
// reach the configured provider's server, naming its URL. (It once always
// named Ollama and model.host, whatever the provider.)
func TestReplayLiveModelHintNamesTheProvider(t *testing.T) {
	providertest.Each(t, func(t *testing.T, prov providertest.Provider) {
		srv := providertest.Start(t, prov)
		srv.Script(ollamatest.Turn{Content: []string{noConclusion}})
		env := diagnoseEnv(t)
		maps.Copy(env, srv.Env())
		code, out, errOut := cli(t, env, "--demo", "diagnose", "-o", "json", "why is checkout slow")
		if code != ExitFallback {
			t.Fatalf("diagnose: exit %d\n%s\n%s", code, out, errOut)
		}
		runID, _ := jsonObject(t, out)["run_id"].(string)
		down := testenv.ClosedURL(t)
		if prov == providertest.OpenAI {
			down += "/v1"
			env[openaiwire.EnvBaseURL] = down
		} else {
			env[ollamawire.EnvHost] = down
		}
		_, _, errOut = cli(t, env, "replay", runID, "--live-model")
		want := map[providertest.Provider]string{providertest.Ollama: "ollama serve", providertest.OpenAI: "model.url / OPENAI_BASE_URL"}[prov]
		if !strings.Contains(errOut, "hint: --live-model needs a reachable model: ") || !strings.Contains(errOut, want) || !strings.Contains(errOut, "(tried "+down+")") {
			t.Errorf("replay --live-model with %s down: stderr does not say %q and name %s:\n%s", prov, want, down, errOut)
		}
	})
}
