// Package e2e runs the built superbiz binary, as a user would, against the
// protocol-faithful Ollama test server (internal/model/ollamatest), the built-in
// demo workspace and a temporary run store. The package tests only what the
// process does: exit codes, stdout, stderr, the requests the model server
// received and what the run store holds afterwards.
package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/demo"
	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/internal/testenv"
)

// suite holds what TestMain prepares once for every test: the binary and a
// demo workspace already materialized under demoTmp, so that parallel
// processes never race to write it.
var suite struct {
	bin     string
	demoTmp string
}

func TestMain(m *testing.M) {
	os.Exit(mainWithSetup(m))
}

func mainWithSetup(m *testing.M) int {
	flag.Parse()
	if testing.Short() {
		return m.Run() // every test skips in newEnv: nothing to build
	}
	dir, err := os.MkdirTemp("", "superbiz-e2e-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: create temp dir: %v\n", err)
		return 1
	}
	defer os.RemoveAll(dir)
	suite.bin = filepath.Join(dir, "superbiz")
	build := exec.Command("go", "build", "-o", suite.bin, "github.com/superbiz/superbiz")
	build.Env = testenv.BuildEnv() // without CI's -race: the binary a user builds
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: build the binary: %v\n", err)
		return 1
	}
	// The binary materializes the demo under $XDG_CACHE_HOME/superbiz/demo; doing it
	// once here keeps concurrent test processes from writing it together.
	suite.demoTmp = filepath.Join(dir, "tmp")
	if err := os.MkdirAll(suite.demoTmp, 0o755); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cache := func(k string) string { return map[string]string{"XDG_CACHE_HOME": suite.demoTmp}[k] }
	if _, err := demo.Materialize(ctx, demo.DefaultDir(cache)); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: materialize the demo workspace: %v\n", err)
		return 1
	}
	return m.Run()
}

// env is the clean process environment of one test's invocations: nothing
// leaks in from the test process but PATH.
type env struct {
	dir  string
	vars map[string]string
}

// newEnv gives a test its own HOME, XDG directories and run store, pointing
// the model at host. Several invocations with one env share the store.
func newEnv(t testing.TB, host string) *env {
	t.Helper()
	testenv.SkipShort(t, "builds and runs the superbiz binary")
	dir := t.TempDir()
	return &env{dir: dir, vars: map[string]string{
		"PATH":            os.Getenv("PATH"),
		"HOME":            dir,
		"XDG_DATA_HOME":   filepath.Join(dir, "data"),
		"XDG_CONFIG_HOME": filepath.Join(dir, "config"),
		"SUPERBIZ_DB":     filepath.Join(dir, "superbiz.db"),
		"TMPDIR":          suite.demoTmp,
		"XDG_CACHE_HOME":  suite.demoTmp,
		"OLLAMA_HOST":     host,
		"NO_COLOR":        "1",
	}}
}

func (e *env) environ() []string {
	var out []string
	for k, v := range e.vars {
		out = append(out, k+"="+v)
	}
	return out
}

// result is one finished process.
type result struct {
	args           []string
	code           int
	stdout, stderr string
}

func (r result) String() string {
	return fmt.Sprintf("superbiz %q: exit %d\n--- stdout\n%s\n--- stderr\n%s", r.args, r.code, r.stdout, r.stderr)
}

// command prepares the binary with e's environment and stdin not a terminal.
func (e *env) command(ctx context.Context, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	c := exec.CommandContext(ctx, suite.bin, args...)
	c.Env = e.environ()
	c.Dir = e.dir
	c.Stdin = nil // /dev/null: not a terminal, no TUI
	var out, errOut bytes.Buffer
	c.Stdout, c.Stderr = &out, &errOut
	return c, &out, &errOut
}

// run executes the binary to completion (at most a minute).
func (e *env) run(t testing.TB, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, out, errOut := e.command(ctx, args...)
	err := c.Run()
	r := result{args: args, stdout: out.String(), stderr: errOut.String()}
	if err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatalf("run superbiz %q: %v", args, err)
		}
	}
	r.code = c.ProcessState.ExitCode()
	return r
}

// runExit runs the binary like run and stops the test unless it exits want.
func (e *env) runExit(t testing.TB, want int, args ...string) result {
	t.Helper()
	r := e.run(t, args...)
	if r.code != want {
		t.Fatalf("%s: exit %d, want %d\n%s", strings.Join(args, " "), r.code, want, r)
	}
	return r
}

// diagnoseOutput is `diagnose -o json` (docs/SPEC.md#diagnose--o-json).
type diagnoseOutput struct {
	SessionID      string          `json:"session_id"`
	RunID          string          `json:"run_id"`
	Intent         string          `json:"intent"`
	Status         string          `json:"status"`
	ReleaseOutcome string          `json:"release_outcome"`
	StopReason     string          `json:"stop_reason"`
	Answer         string          `json:"answer"`
	Result         json.RawMessage `json:"result"`
	Checks         []struct {
		Tool           string `json:"tool"`
		EvidenceStatus string `json:"evidence_status"`
		ErrorCode      string `json:"error_code"`
		Summary        string `json:"summary"`
		EmptyWindow    string `json:"empty_window"`
	} `json:"checks"`
	Usage struct {
		ModelCalls       int   `json:"model_calls"`
		ToolCalls        int   `json:"tool_calls"`
		PromptTokens     int   `json:"prompt_tokens"`
		CompletionTokens int   `json:"completion_tokens"`
		Bytes            int   `json:"bytes"`
		DurationMS       int64 `json:"duration_ms"`
	} `json:"usage"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Model    string  `json:"model"`
	Provider string  `json:"provider"`
	Note     *string `json:"note"`
	// Timeline is the timeline the run's build_timeline call built, null
	// when it made none (docs/SPEC.md#diagnose--o-json).
	Timeline json.RawMessage `json:"timeline"`
}

// published is the part of the PublishedResult the tests check.
type published struct {
	Query      string `json:"query"`
	Conclusion *struct {
		Summary    string `json:"summary"`
		RootCause  string `json:"root_cause"`
		Confidence string `json:"confidence"`
	} `json:"conclusion"`
	Findings []struct {
		Type    string   `json:"type"`
		Claim   string   `json:"claim"`
		Sources []string `json:"sources"`
	} `json:"findings"`
	KnowledgeRefs []struct {
		DocID  string `json:"doc_id"`
		Source string `json:"source"`
	} `json:"knowledge_refs"`
}

// decodeOutput parses stdout as exactly one JSON object, strictly.
func decodeOutput(t *testing.T, r result) diagnoseOutput {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	dec.DisallowUnknownFields()
	var out diagnoseOutput
	if err := dec.Decode(&out); err != nil {
		t.Fatalf("stdout is not one diagnose JSON object: %v\n%s", err, r)
	}
	if dec.More() {
		t.Fatalf("stdout holds more than one JSON value\n%s", r)
	}
	return out
}

// newServer starts a test Ollama server that is closed, and whose script
// misuse is reported, when the test ends.
func newServer(t testing.TB) *ollamatest.Server {
	t.Helper()
	return ollamatest.New(t)
}
