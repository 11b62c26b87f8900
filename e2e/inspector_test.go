package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/testenv"
)

// inspectorVersion is the MCP Inspector .ci/run installs (keep them equal).
const inspectorVersion = "2.12.0"

// envInspector names the Inspector CLI binary; .ci/run sets it after
// installing the pinned package into its cache directory.
const envInspector = "SUPERBIZ_MCP_INSPECTOR"

// inspectorBin is the MCP Inspector CLI: $SUPERBIZ_MCP_INSPECTOR, else
// mcp-inspector on PATH; missing, the test skips locally and fails under CI.
func inspectorBin(t *testing.T) string {
	t.Helper()
	if p := os.Getenv(envInspector); p != "" {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if p, err := exec.LookPath("mcp-inspector"); err == nil {
		return p
	}
	testenv.Missing(t, "the MCP Inspector CLI (npm @modelcontextprotocol/inspector@"+inspectorVersion+") is not installed",
		".ci/run installs it and sets "+envInspector)
	return ""
}

// inspect runs the Inspector CLI against `superbiz --demo mcp` under e and
// decodes the JSON it prints. The Inspector passes the server a minimal
// environment, so e's variables are given with -e.
func inspect(t *testing.T, e *env, args ...string) map[string]any {
	t.Helper()
	v, _ := inspectErr(t, e, args...)
	return v
}

// inspectErr is inspect that also gives what the Inspector said on stderr.
func inspectErr(t *testing.T, e *env, args ...string) (map[string]any, string) {
	t.Helper()
	bin := inspectorBin(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cl := []string{"--cli"}
	for _, kv := range e.environ() {
		cl = append(cl, "-e", kv)
	}
	cl = append(cl, suite.bin, "--demo", "mcp")
	cl = append(cl, args...)
	c := exec.CommandContext(ctx, bin, cl...)
	c.Env, c.Dir = e.environ(), e.dir
	var stderr strings.Builder
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		t.Fatalf("mcp-inspector %q: %v\nstdout:\n%s\nstderr:\n%s", args, err, out, stderr.String())
	}
	var v map[string]any
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("mcp-inspector %q printed no JSON object: %v\n%s", args, err, out)
	}
	return v, stderr.String()
}

// The MCP Inspector, an outside client, against the built binary:
// tools/list, a tools/call of query_logs and of diagnose (with the test
// model server) and resources/list.
func TestMCPInspector(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	e := newEnv(t, srv.URL())
	inspectorBin(t)

	// --strict: every tool's input and output schema passes the
	// Inspector's portability check with no finding at all.
	list, lint := inspectErr(t, e, "--method", "tools/list", "--strict")
	if strings.Contains(lint, "Warning") || strings.Contains(lint, "Error") {
		t.Errorf("tools/list --strict reports schema findings:\n%s", lint)
	}
	var names []string
	for _, tl := range list["tools"].([]any) {
		names = append(names, tl.(map[string]any)["name"].(string))
	}
	for _, want := range []string{"diagnose", "query_logs", "query_mysql", "lookup_knowledge", "read_skill", "runs_list", "run_show"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools/list %v lacks %s", names, want)
		}
	}

	logs := inspect(t, e, "--method", "tools/call", "--tool-name", "query_logs",
		"--tool-arg", "service=payment-service", "--tool-arg", "level=ERROR", "--tool-arg", "since=1h")
	sc, _ := logs["structuredContent"].(map[string]any)
	if logs["isError"] == true || sc["evidence_status"] != "EVIDENCE_FOUND" {
		t.Errorf("tools/call query_logs: %v", logs)
	}

	srv.Script(append(paymentTurns(), text(draftText(t, "payment-timeout")), verdict("SUPPORTED"))...)
	diag := inspect(t, e, "--method", "tools/call", "--tool-name", "diagnose", "--tool-arg", "query="+queryPayment)
	sc, _ = diag["structuredContent"].(map[string]any)
	if diag["isError"] == true || sc["release_outcome"] != "SUCCESS" || sc["run_id"] == "" {
		t.Errorf("tools/call diagnose: %v", diag)
	}

	res := inspect(t, e, "--method", "resources/list")
	var uris []string
	for _, r := range res["resources"].([]any) {
		uris = append(uris, r.(map[string]any)["uri"].(string))
	}
	if !slices.ContainsFunc(uris, func(u string) bool { return strings.HasPrefix(u, "superbiz://runbooks/") }) ||
		!slices.Contains(uris, "superbiz://skills/diagnose-payment-timeout") {
		t.Errorf("resources/list %v lacks the runbooks or the playbooks", uris)
	}
	// A runbook is named by its path inside the configured root: the demo's
	// root is runbooks/, and its name is not repeated in the URI.
	const book = "superbiz://runbooks/en/mysql-connection-pool.md"
	if !slices.Contains(uris, book) {
		t.Errorf("resources/list %v lacks %s", uris, book)
	}
	for _, u := range uris {
		if strings.HasPrefix(u, "superbiz://runbooks/runbooks/") {
			t.Errorf("runbook URI %s repeats the root's folder", u)
		}
	}
	read := inspect(t, e, "--method", "resources/read", "--uri", book)
	contents, _ := read["contents"].([]any)
	if len(contents) != 1 || !strings.Contains(fmt.Sprint(contents[0]), "connection") {
		t.Errorf("resources/read %s: %v", book, read)
	}
}

// .ci/run installs the Inspector version this test pins: one version, or
// CI would test a client nobody chose.
func TestInspectorVersionPinnedInCI(t *testing.T) {
	raw, err := os.ReadFile("../.ci/run")
	if err != nil {
		t.Fatalf("read .ci/run: %v", err)
	}
	if !strings.Contains(string(raw), "\ninspector_version="+inspectorVersion+"\n") {
		t.Errorf(".ci/run does not install @modelcontextprotocol/inspector %s (inspector_version=%s)", inspectorVersion, inspectorVersion)
	}
}
