package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/registry"
	"github.com/superbiz/superbiz/pkg/tools"
)

// mcpSnippets are the JSON configuration snippets and the `claude mcp add`
// lines of the README's "Use from an AI client" section.
func mcpSnippets(t *testing.T) (jsonBlocks []string, claude []string) {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Use from an AI client\n")
	if !ok {
		t.Fatal(`README.md has no "## Use from an AI client" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	for _, m := range regexp.MustCompile("(?s)```json\n(.*?)```").FindAllStringSubmatch(section, -1) {
		jsonBlocks = append(jsonBlocks, m[1])
	}
	for _, line := range strings.Split(section, "\n") {
		if strings.HasPrefix(line, "claude mcp add ") && strings.Contains(line, " -- ") {
			claude = append(claude, line)
		}
	}
	return jsonBlocks, claude
}

// initializeOver runs `superbiz ARGS…` in-process with one MCP initialize
// request on stdin and returns what it wrote to stdout.
func initializeOver(t *testing.T, args []string) string {
	t.Helper()
	dir := t.TempDir()
	env := map[string]string{
		"HOME": dir, "XDG_DATA_HOME": filepath.Join(dir, "data"), "XDG_CONFIG_HOME": filepath.Join(dir, "config"),
		"XDG_CACHE_HOME": filepath.Join(dir, "cache"), "SUPERBIZ_DB": filepath.Join(dir, "superbiz.db"),
	}
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"readme","version":"1"}}}` + "\n"
	// stdin ends only after the answer is out, as a client hangs up only
	// after its answers: at the end of stdin the server stops.
	out := &lineWriter{line: make(chan struct{})}
	stdin := io.MultiReader(strings.NewReader(in), &waitReader{out.line})
	var errOut bytes.Buffer
	code := run(context.Background(), args, stdin, out, &errOut, func(k string) string { return env[k] })
	if code != 0 {
		t.Fatalf("superbiz %q: exit %d\n%s", args, code, errOut.String())
	}
	return out.b.String()
}

// lineWriter closes line once a whole line was written.
type lineWriter struct {
	mu   sync.Mutex
	b    bytes.Buffer
	line chan struct{}
	once sync.Once
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.b.Write(p)
	if bytes.IndexByte(w.b.Bytes(), '\n') >= 0 {
		w.once.Do(func() { close(w.line) })
	}
	return n, err
}

// waitReader ends (EOF) when done is closed, or after ten seconds.
type waitReader struct{ done chan struct{} }

func (r *waitReader) Read([]byte) (int, error) {
	select {
	case <-r.done:
	case <-time.After(10 * time.Second):
	}
	return 0, io.EOF
}

// The README's client configurations start a server that answers: every
// JSON snippet names the superbiz command with arguments that serve MCP on
// stdio, and so does every `claude mcp add … -- superbiz …` line.
func TestReadmeMCPClientSnippets(t *testing.T) {
	blocks, claude := mcpSnippets(t)
	if len(blocks) < 2 || len(claude) < 1 {
		t.Fatalf("want the Claude Desktop/Cursor and VS Code JSON and a claude mcp add line, got %d JSON blocks and %q", len(blocks), claude)
	}
	var argLists [][]string
	for _, b := range blocks {
		var cfg struct {
			MCPServers map[string]struct {
				Command string   `json:"command"`
				Args    []string `json:"args"`
			} `json:"mcpServers"`
			Servers map[string]struct {
				Type    string   `json:"type"`
				Command string   `json:"command"`
				Args    []string `json:"args"`
			} `json:"servers"`
		}
		if err := json.Unmarshal([]byte(b), &cfg); err != nil {
			t.Fatalf("README snippet is not JSON: %v\n%s", err, b)
		}
		n := 0
		for _, s := range cfg.MCPServers {
			if s.Command != "superbiz" {
				t.Errorf("mcpServers command %q, want superbiz", s.Command)
			}
			argLists = append(argLists, s.Args)
			n++
		}
		for _, s := range cfg.Servers {
			if s.Command != "superbiz" || s.Type != "stdio" {
				t.Errorf("servers entry %+v, want a stdio superbiz", s)
			}
			argLists = append(argLists, s.Args)
			n++
		}
		if n == 0 {
			t.Errorf("README snippet names no server:\n%s", b)
		}
	}
	for _, line := range claude {
		_, cmdline, _ := strings.Cut(line, " -- ")
		f := strings.Fields(cmdline)
		if len(f) < 2 || f[0] != "superbiz" {
			t.Errorf("%q does not start superbiz", line)
			continue
		}
		argLists = append(argLists, f[1:])
	}
	for _, args := range argLists {
		out := initializeOver(t, args)
		var resp struct {
			Result struct {
				ServerInfo struct{ Name string } `json:"serverInfo"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(strings.SplitN(out, "\n", 2)[0]), &resp); err != nil || resp.Result.ServerInfo.Name != "superbiz" {
			t.Errorf("superbiz %q answered initialize with %q (%v), want the superbiz server", args, out, err)
		}
	}
}

// The bind checks of --http: loopback needs no token, anything else does,
// and a named variable must hold one.
func TestMCPTokenRequiredOffLoopback(t *testing.T) {
	for _, tc := range []struct {
		http, tokenEnv string
		env            map[string]string
		code           int
		has            string
	}{
		{"0.0.0.0:0", "", nil, 2, "--token-env"},
		{":0", "", nil, 2, "--token-env"},
		{"10.1.2.3:0", "", nil, 2, "not a loopback address"},
		{"127.0.0.1:0", "T", nil, 2, "unset or empty"},
		{"", "T", nil, 2, "--http only"},
		{"127.0.0.1", "", nil, 2, "host:port"},
	} {
		code, _, stderr := cli(t, tc.env, "mcp", "--http", tc.http, "--token-env", tc.tokenEnv)
		if code != tc.code || !strings.Contains(stderr, tc.has) {
			t.Errorf("mcp --http %q --token-env %q: exit %d, stderr %q; want exit %d saying %q", tc.http, tc.tokenEnv, code, stderr, tc.code, tc.has)
		}
	}
	for _, host := range []string{"127.0.0.1", "::1", "localhost", "127.3.4.5"} {
		if !isLoopback(host) {
			t.Errorf("isLoopback(%q) = false", host)
		}
	}
	for _, host := range []string{"", "0.0.0.0", "::", "192.168.1.2", "example.com"} {
		if isLoopback(host) {
			t.Errorf("isLoopback(%q) = true", host)
		}
	}
}

// mcp --help names every evidence tool a registered source can add, and
// read_skill (it once omitted query_postgres: the list was typed by hand).
func TestMCPHelpNamesEveryTool(t *testing.T) {
	code, out, errOut := cli(t, map[string]string{"XDG_CONFIG_HOME": t.TempDir()}, "mcp", "--help")
	if code != ExitOK {
		t.Fatalf("mcp --help: exit %d, %s", code, errOut)
	}
	for _, s := range registry.Sources() {
		if n := s.Tool(); n != "" && !strings.Contains(out, n) {
			t.Errorf("mcp --help does not name %s (source %s)", n, s.Name())
		}
	}
	if !strings.Contains(out, tools.ReadSkillTool) {
		t.Error("mcp --help does not name read_skill")
	}
}
