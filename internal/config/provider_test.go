package config

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/fixture"
)

// model.provider: flag > $SUPERBIZ_PROVIDER > file > default, each origin named.
func TestProviderPrecedence(t *testing.T) {
	for _, tt := range []struct {
		file, env, flag string
		want, origin    string
	}{
		{want: "ollama"},
		{file: "openai", want: "openai"},
		{file: "openai", env: "ollama", want: "ollama", origin: "$SUPERBIZ_PROVIDER"},
		{file: "openai", env: "ollama", flag: "openai", want: "openai", origin: "--provider"},
		{env: "openai", want: "openai", origin: "$SUPERBIZ_PROVIDER"},
	} {
		w := newWorkspace(t)
		// The base URL comes from the environment, which no provider refuses.
		w.env[envBaseURL] = "http://10.0.0.8:8000/v1"
		if tt.file != "" {
			fixture.WriteFile(t, filepath.Join(w.wd, "superbiz.toml"), "[model]\nprovider = \""+tt.file+"\"\n")
		}
		if tt.env != "" {
			w.env[EnvProvider] = tt.env
		}
		var ov Overrides
		if tt.flag != "" {
			ov.Provider = ptr(tt.flag)
		}
		cfg, err := w.load(ov, "")
		if err != nil {
			t.Fatalf("%+v: %v", tt, err)
		}
		if cfg.Model.Provider != tt.want || cfg.Origin("model.provider") != tt.origin {
			t.Errorf("%+v: provider %q from %q", tt, cfg.Model.Provider, cfg.Origin("model.provider"))
		}
	}
}

// $OPENAI_BASE_URL overrides model.url, is validated like model.host and its password never shown.
func TestOpenAIBaseURL(t *testing.T) {
	w := newWorkspace(t)
	fixture.WriteFile(t, filepath.Join(w.wd, "superbiz.toml"), "[model]\nprovider = \"openai\"\nurl = \"http://file:8000/v1\"\n")
	cfg, err := w.load(Overrides{}, "")
	if err != nil || cfg.Model.URL.Reveal() != "http://file:8000/v1" {
		t.Fatalf("file url: %v %v", cfg, err)
	}
	w.env[envBaseURL] = "https://u:Hunter2pw@gw.example:4000/v1/"
	cfg, err = w.load(Overrides{}, "")
	if err != nil || cfg.Model.URL.Reveal() != "https://u:Hunter2pw@gw.example:4000/v1" || cfg.Origin("model.url") != "$OPENAI_BASE_URL" {
		t.Fatalf("env url: %v %v", cfg, err)
	}
	b, _ := json.Marshal(cfg)
	if out := strings.Join(cfg.Summary(), "\n") + string(b); strings.Contains(out, "Hunter2pw") || !strings.Contains(out, "gw.example:4000/v1") {
		t.Errorf("summary/JSON show the password or not the URL: %s", out)
	}
	w.env[envBaseURL] = "http://u:Hunter2pw@gw.example:4000/v1?x=1"
	_, err = w.load(Overrides{}, "")
	if err == nil || !strings.Contains(err.Error(), "$OPENAI_BASE_URL") || !strings.Contains(err.Error(), "query") || strings.Contains(err.Error(), "Hunter2pw") {
		t.Errorf("bad env url: %v", err)
	}
}

// A key with no meaning for the chosen provider is an error naming it.
func TestProviderKeys(t *testing.T) {
	for _, tt := range []struct {
		file string
		env  map[string]string
		ov   Overrides
		says []string
	}{
		{file: "[model]\nprovider = \"openai\"\nurl = \"http://h:8000/v1\"\nhost = \"h:11434\"\nnum_ctx = 4096\nthink = true\n",
			says: []string{`model.host in `, `has no meaning for model.provider = "openai" (it applies to "ollama" only)`, "model.num_ctx in", "model.think in"}},
		{file: "[model]\nurl = \"http://h:8000/v1\"\nstream = false\nstructured = \"none\"\napi_key_env = \"K\"\n",
			says: []string{`model.url in `, `has no meaning for model.provider = "ollama"`, "model.stream in", "model.structured in", "model.api_key_env in"}},
		{file: "[model]\nprovider = \"openai\"\nurl = \"http://h:8000/v1\"\n", ov: Overrides{Host: ptr("h:1")},
			says: []string{`model.host (from --host): has no meaning`}},
		{env: map[string]string{EnvProvider: "anthropic"}, says: []string{"$SUPERBIZ_PROVIDER", "anthropic", "must be one of ollama, openai"}},
		{file: "[model]\nprovider = \"openai\"\nurl = \"http://h:8000/v1\"\napi_key_env = \"not a name\"\n", says: []string{"model.api_key_env", "must name an environment variable"}},
	} {
		w := newWorkspace(t)
		fixture.WriteFile(t, filepath.Join(w.wd, "superbiz.toml"), tt.file)
		for k, v := range tt.env {
			w.env[k] = v
		}
		_, err := w.load(tt.ov, "")
		for _, s := range tt.says {
			if err == nil || !strings.Contains(err.Error(), s) {
				t.Errorf("file %q: error %v does not say %q", tt.file, err, s)
			}
		}
	}
	// The other provider's environment is ambient: it is ignored.
	w := newWorkspace(t)
	fixture.WriteFile(t, filepath.Join(w.wd, "superbiz.toml"), "[model]\nprovider = \"openai\"\nurl = \"http://h:8000/v1\"\napi_key_env = \"VLLM_KEY\"\n")
	w.env[envHost] = "elsewhere:11434"
	if _, err := w.load(Overrides{}, ""); err != nil {
		t.Fatalf("OLLAMA_HOST with openai: %v", err)
	}
}
