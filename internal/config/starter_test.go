package config

import (
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/fixture"
)

// The starter file `config init` writes loads as the defaults: its
// uncommented values are the defaults, so writing it changes nothing.
func TestStarterLoadsAsDefaults(t *testing.T) {
	w := newWorkspace(t)
	file := fixture.WriteFile(t, DefaultFile(w.env.get), Starter())
	if file != filepath.Join(w.configHome, "superbiz", "config.toml") {
		t.Fatalf("DefaultFile = %q, want under $XDG_CONFIG_HOME", file)
	}
	found, err := FindFile(LoadOptions{WorkDir: w.wd, Getenv: w.env.get})
	if err != nil || found != file {
		t.Fatalf("FindFile = %q, %v; want %q", found, err, file)
	}
	cfg, err := w.load(Overrides{}, "")
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	def := Defaults()
	if !reflect.DeepEqual(cfg.Model, def.Model) || cfg.Budget != def.Budget {
		t.Errorf("starter model %+v budget %+v, want the defaults %+v %+v", cfg.Model, cfg.Budget, def.Model, def.Budget)
	}
	if len(logsOf(cfg))+len(databasesOf(cfg))+len(metricsOf(cfg)) != 0 {
		t.Errorf("starter configures a source: %v", cfg.Summary())
	}
}

// The starter file loads whichever provider the person picks: by
// uncommenting either provider's lines in [model], or by choosing the
// provider and its URL in the environment without editing the file. (The
// file once set host uncommented, so provider = "openai" did not load:
// "model.host has no meaning for model.provider = openai".)
func TestStarterEitherProvider(t *testing.T) {
	block := func(provider string) string {
		var out []string
		in := ""
		for line := range strings.Lines(Starter()) {
			switch {
			case strings.HasPrefix(line, "# The model server: Ollama"):
				in = ProviderOllama
			case strings.HasPrefix(line, "# ... or any OpenAI-compatible"):
				in = ProviderOpenAI
			case !strings.HasPrefix(line, "#"):
				in = ""
			}
			if in == provider && regexp.MustCompile(`^# [a-z_]+ = `).MatchString(line) {
				line = strings.TrimPrefix(line, "# ")
			}
			out = append(out, line)
		}
		return strings.Join(out, "")
	}
	for _, tt := range []struct {
		name, file string
		env        map[string]string
		provider   string
		url        string
	}{
		{"ollama uncommented", block(ProviderOllama), nil, ProviderOllama, "http://127.0.0.1:11434"},
		{"openai uncommented", block(ProviderOpenAI), nil, ProviderOpenAI, "http://127.0.0.1:8000/v1"},
		{"openai from the environment", Starter(), map[string]string{EnvProvider: ProviderOpenAI, envBaseURL: "http://10.0.0.5:8000/v1"}, ProviderOpenAI, "http://10.0.0.5:8000/v1"},
		{"provider = openai added", strings.Replace(Starter(), "[model]\n", "[model]\nprovider = \"openai\"\nurl = \"http://127.0.0.1:8000/v1\"\n", 1), nil, ProviderOpenAI, "http://127.0.0.1:8000/v1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorkspace(t)
			for k, v := range tt.env {
				w.env[k] = v
			}
			fixture.WriteFile(t, filepath.Join(w.wd, "superbiz.toml"), tt.file)
			cfg, err := w.load(Overrides{}, "")
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if cfg.Model.Provider != tt.provider || cfg.Model.Endpoint() != tt.url {
				t.Errorf("provider %q at %q, want %q at %q", cfg.Model.Provider, cfg.Model.Endpoint(), tt.provider, tt.url)
			}
		})
	}
}
