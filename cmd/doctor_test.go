package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/internal/testenv"
	"github.com/superbiz/superbiz/pkg/runstore"
)

// doctorEnv gives doctor an empty working directory (no ./superbiz.toml)
// and private XDG directories, so nothing from the machine is read, and
// points it at host.
func doctorEnv(t *testing.T, host string) (map[string]string, string) {
	t.Helper()
	dir := t.TempDir()
	t.Chdir(dir)
	return map[string]string{
		"XDG_CONFIG_HOME": filepath.Join(dir, "xdg-config"),
		"XDG_DATA_HOME":   filepath.Join(dir, "xdg-data"),
		"OLLAMA_HOST":     host,
	}, dir
}

// line returns the output line of one check, or fails the test.
func line(t *testing.T, out, mark, check string) string {
	t.Helper()
	re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(mark) + ` +` + regexp.QuoteMeta(check) + `  .*$`)
	l := re.FindString(out)
	if l == "" {
		t.Fatalf("no %q line for check %q in:\n%s", mark, check, out)
	}
	return l
}

// hintAfter returns the hint line that follows the line of check.
func hintAfter(t *testing.T, out, check string) string {
	t.Helper()
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if strings.Contains(l, " "+check+"  ") && i+1 < len(lines) && strings.Contains(lines[i+1], "hint: ") {
			return strings.TrimSpace(lines[i+1])
		}
	}
	t.Fatalf("no hint under check %q in:\n%s", check, out)
	return ""
}

func TestDoctorUnreachableHost(t *testing.T) {
	host := testenv.ClosedURL(t)
	env, dir := doctorEnv(t, host)
	code, out, errOut := cli(t, env, "doctor")
	if code != ExitFailed {
		t.Errorf("exit %d, want %d", code, ExitFailed)
	}
	line(t, out, "ok  ", "config")
	if l := line(t, out, "ok  ", "config"); !strings.Contains(l, "defaults (no config file)") {
		t.Errorf("config line %q does not say defaults are used", l)
	}
	if l := line(t, out, "ok  ", "run store"); !strings.Contains(l, filepath.Join(dir, "xdg-data", "superbiz", "superbiz.db")) {
		t.Errorf("run store line %q does not name the default file", l)
	}
	if l := line(t, out, "FAIL", "ollama"); !strings.Contains(l, "unreachable") {
		t.Errorf("ollama line %q does not say unreachable", l)
	}
	want := "hint: start Ollama with `ollama serve` or set --host/OLLAMA_HOST (tried " + host + ")"
	if h := hintAfter(t, out, "ollama"); h != want {
		t.Errorf("hint %q, want %q", h, want)
	}
	line(t, out, "skip", "model")
	line(t, out, "skip", "tool calling")
	if l := line(t, out, "warn", "knowledge"); !strings.Contains(l, filepath.Join(dir, "runbooks")+" does not exist") {
		t.Errorf("knowledge line %q", l)
	}
	if errOut != "superbiz: doctor: 1 of 7 checks failed\n" {
		t.Errorf("stderr %q", errOut)
	}
}

func TestDoctorModelChecks(t *testing.T) {
	tests := []struct {
		name   string
		models []ollamatest.Model
		model  string
		code   int
		mark   map[string]string
		detail map[string]string // the check's detail; %s is the server's URL
		hint   map[string]string
	}{
		{
			name:   "tools-capable model",
			models: []ollamatest.Model{{Name: "qwen3:8b", Capabilities: []string{"completion", "tools", "thinking"}}},
			code:   ExitOK,
			mark:   map[string]string{"ollama": "ok  ", "model": "ok  ", "tool calling": "ok  "},
		},
		{
			name:   "model without tools",
			models: []ollamatest.Model{{Name: "gemma:2b", Capabilities: []string{"completion"}}},
			model:  "gemma:2b",
			code:   ExitFailed,
			mark:   map[string]string{"ollama": "ok  ", "model": "ok  ", "tool calling": "FAIL"},
			hint:   map[string]string{"tool calling": "hint: pull a model with tool support (`ollama pull qwen3:8b`) and choose it with --model / SUPERBIZ_MODEL"},
		},
		{
			// The usual suggestion is the model that just failed: name another.
			name:   "suggested model without tools",
			models: []ollamatest.Model{{Name: "qwen3:8b", Capabilities: []string{"completion"}}},
			code:   ExitFailed,
			mark:   map[string]string{"ollama": "ok  ", "model": "ok  ", "tool calling": "FAIL"},
			hint:   map[string]string{"tool calling": "hint: pull a model with tool support (`ollama pull llama3.1:8b`) and choose it with --model / SUPERBIZ_MODEL"},
		},
		{
			name: "pulled models with tools",
			models: []ollamatest.Model{
				{Name: "gemma:2b", Capabilities: []string{"completion"}},
				{Name: "phi3:mini", Capabilities: []string{"completion"}},
				{Name: "llama3.1:8b", Capabilities: []string{"completion", "tools"}},
				{Name: "qwen3:8b", Capabilities: []string{"completion", "tools", "thinking"}},
			},
			model: "gemma:2b",
			code:  ExitFailed,
			mark:  map[string]string{"ollama": "ok  ", "model": "ok  ", "tool calling": "FAIL"},
			hint:  map[string]string{"tool calling": "hint: choose a pulled model with tool support with --model / SUPERBIZ_MODEL: llama3.1:8b, qwen3:8b"},
		},
		{
			name:   "missing model",
			models: []ollamatest.Model{{Name: "qwen3:8b", Capabilities: []string{"completion", "tools"}}, {Name: "gemma:2b", Capabilities: []string{"completion"}}},
			model:  "llama3.1:70b",
			code:   ExitFailed,
			mark:   map[string]string{"ollama": "ok  ", "model": "FAIL", "tool calling": "skip"},
			detail: map[string]string{"model": "llama3.1:70b is not pulled on %s (pulled: qwen3:8b, gemma:2b)"},
			hint:   map[string]string{"model": "hint: run `ollama pull llama3.1:70b`, or choose a pulled model with --model / SUPERBIZ_MODEL"},
		},
		{
			name:   "missing model, nothing pulled",
			models: []ollamatest.Model{},
			model:  "llama3.1:70b",
			code:   ExitFailed,
			mark:   map[string]string{"ollama": "ok  ", "model": "FAIL", "tool calling": "skip"},
			detail: map[string]string{"model": "llama3.1:70b is not pulled on %s (pulled: none)"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := ollamatest.New(t, ollamatest.WithModels(tt.models...))
			env, _ := doctorEnv(t, srv.URL())
			args := []string{"doctor"}
			if tt.model != "" {
				args = append(args, "--model", tt.model)
			}
			code, out, errOut := cli(t, env, args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr %q\n%s", code, tt.code, errOut, out)
			}
			for check, mark := range tt.mark {
				line(t, out, mark, check)
			}
			for check, detail := range tt.detail {
				if want := fmt.Sprintf(detail, srv.URL()); !strings.Contains(out, want+"\n") {
					t.Errorf("%s detail is not %q:\n%s", check, want, out)
				}
			}
			for check, hint := range tt.hint {
				if h := hintAfter(t, out, check); h != hint {
					t.Errorf("%s hint %q, want %q", check, h, hint)
				}
			}
			if tt.code == ExitOK && errOut != "" {
				t.Errorf("stderr %q, want nothing", errOut)
			}
			if n := srv.ChatCount(); n != 0 {
				t.Errorf("doctor sent %d chat requests; it must only read", n)
			}
		})
	}
}

func TestDoctorJSON(t *testing.T) {
	env, _ := doctorEnv(t, testenv.ClosedURL(t))
	code, out, _ := cli(t, env, "doctor", "-o", "json")
	if code != ExitFailed {
		t.Errorf("exit %d, want %d", code, ExitFailed)
	}
	var got []map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("doctor -o json is not a JSON array: %v\n%s", err, out)
	}
	checks := map[string]map[string]any{}
	for _, c := range got {
		if len(c) != 5 {
			t.Errorf("check object %v must have exactly check, status, ok, detail, hint", c)
		}
		checks[c["check"].(string)] = c
	}
	if c := checks["ollama"]; c == nil || c["ok"] != false || c["status"] != "fail" || !strings.Contains(c["hint"].(string), "ollama serve") {
		t.Errorf("ollama check %v", c)
	}
	if c := checks["config"]; c == nil || c["ok"] != true {
		t.Errorf("config check %v", c)
	}
}

func TestDoctorSources(t *testing.T) {
	srv := ollamatest.New(t)
	env, dir := doctorEnv(t, srv.URL())
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("runbooks/mysql-pool.md", "# MySQL pool exhausted\n")
	write("logs/app.log", `{"ts":"2026-03-14T14:01:00Z","level":"ERROR","msg":"timeout"}`+"\n")
	write("archive/a.log", `{"ts":"2026-03-14T14:01:00Z","level":"ERROR","msg":"timeout"}`+"\n")
	write("archive/b.log.gz", "\x1f\x8bgarbage")
	write("archive/c.log", strings.Repeat("\x00\x01\x02\x03ELF", 1000))
	st, err := runstore.Open(context.Background(), filepath.Join(dir, "orders.db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	write("superbiz.toml", `
[knowledge]
paths = ["runbooks", "missing-runbooks"]

[[logs]]
name = "app"
paths = ["logs/*.log"]

[[logs]]
name = "archive"
paths = ["archive/*"]

[[logs]]
name = "gateway"
paths = ["gateway/*.log", "gateway/*.log.gz"]

[[databases]]
name = "orders"
driver = "sqlite"
dsn = "orders.db"
`)
	code, out, errOut := cli(t, env, "doctor")
	if code != ExitFailed {
		t.Errorf("exit %d, want %d", code, ExitFailed)
	}
	if l := line(t, out, "ok  ", "config"); !strings.Contains(l, filepath.Join(dir, "superbiz.toml")) {
		t.Errorf("config line %q does not name the file", l)
	}
	if l := line(t, out, "ok  ", "knowledge"); !strings.Contains(l, filepath.Join(dir, "runbooks")+": 1 Markdown file") {
		t.Errorf("knowledge line %q", l)
	}
	if l := line(t, out, "FAIL", "knowledge"); !strings.Contains(l, filepath.Join(dir, "missing-runbooks")+" does not exist") {
		t.Errorf("knowledge line %q", l)
	}
	line(t, out, "ok  ", "logs app")
	if l := line(t, out, "warn", "logs archive"); !strings.Contains(l, "3 file(s) match, 2 would be skipped") {
		t.Errorf("archive line %q", l)
	}
	for _, want := range []string{filepath.Join(dir, "archive", "b.log.gz") + ": gzip header is invalid", filepath.Join(dir, "archive", "c.log") + ": binary data"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor does not say %q:\n%s", want, out)
		}
	}
	line(t, out, "FAIL", "logs gateway")
	if h := hintAfter(t, out, "logs gateway"); !strings.Contains(h, "log source gateway") {
		t.Errorf("gateway hint %q", h)
	}
	line(t, out, "ok  ", "database orders")
	if errOut != "superbiz: doctor: 2 of 12 checks failed\n" {
		t.Errorf("stderr %q", errOut)
	}
}

func TestDoctorBadConfig(t *testing.T) {
	tests := []struct {
		name string
		toml string
		args []string
		want string
	}{
		{"unknown key", "[model]\nnam = \"qwen3:8b\"\n", nil, `unknown key "model.nam"`},
		{"missing explicit file", "", []string{"--config", "nope.toml"}, "nope.toml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, dir := doctorEnv(t, testenv.ClosedURL(t))
			if tt.toml != "" {
				if err := os.WriteFile(filepath.Join(dir, "superbiz.toml"), []byte(tt.toml), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			code, out, errOut := cli(t, env, append([]string{"doctor"}, tt.args...)...)
			if code != ExitUsage {
				t.Errorf("exit %d, want %d", code, ExitUsage)
			}
			if l := line(t, out, "FAIL", "config"); !strings.Contains(l, tt.want) {
				t.Errorf("config line %q does not say %q", l, tt.want)
			}
			if strings.Contains(out, "ollama") {
				t.Errorf("doctor went on past a broken configuration:\n%s", out)
			}
			if errOut != "superbiz: doctor: the configuration does not load\n" {
				t.Errorf("stderr %q", errOut)
			}
		})
	}
}

func TestDoctorUnreachableMySQLNeverShowsPassword(t *testing.T) {
	srv := ollamatest.New(t)
	env, dir := doctorEnv(t, srv.URL())
	addr := strings.TrimPrefix(testenv.ClosedURL(t), "http://")
	cfg := "[knowledge]\npaths = []\n\n[[databases]]\nname = \"shop\"\ndriver = \"mysql\"\ndsn = \"ro:hunter2secret@tcp(" + addr + ")/shop\"\ntimeout = \"2s\"\n"
	if err := os.WriteFile(filepath.Join(dir, "superbiz.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"text", "json"} {
		code, out, errOut := cli(t, env, "doctor", "-o", format)
		if code != ExitFailed {
			t.Errorf("%s: exit %d, want %d\n%s%s", format, code, ExitFailed, out, errOut)
		}
		if strings.Contains(out+errOut, "hunter2secret") {
			t.Errorf("%s: the DSN password leaked:\n%s%s", format, out, errOut)
		}
		if format == "text" {
			line(t, out, "FAIL", "database shop")
		}
	}
}
