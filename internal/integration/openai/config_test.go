package openai

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/config/configtest"
)

// An openai provider needs the server's base URL.
func TestConfigErrors(t *testing.T) {
	configtest.Errors(t, []config.Part{Provider{}.Config()}, []configtest.Case{
		{Name: "url required", TOML: "[model]\nprovider = \"openai\"\n", Want: []string{`model.url in`, `is required with model.provider = "openai"`}},
	})
}

// The key is read at load from the variable model.api_key_env names, and
// neither the JSON view nor the summary shows it; the summary says whether
// the variable is set.
func TestAPIKeyFromEnvironment(t *testing.T) {
	const file = "[model]\nprovider = \"openai\"\nurl = \"http://h:8000/v1\"\napi_key_env = \"VLLM_KEY\"\n"
	cfg, _, err := configtest.Load(t, file, map[string]string{config.EnvOllamaHost: "elsewhere:11434", "VLLM_KEY": "sk-Hunter2key"}, Provider{}.Config())
	if err != nil {
		t.Fatalf("OLLAMA_HOST with openai: %v", err)
	}
	b, _ := json.Marshal(cfg)
	summary := strings.Join(cfg.Summary(), "\n")
	if cfg.Model.APIKey.Reveal() != "sk-Hunter2key" || strings.Contains(string(b)+summary, "Hunter2key") {
		t.Errorf("key %q, or shown in %s", cfg.Model.APIKey.Reveal(), b)
	}
	if !strings.Contains(summary, "model: qwen3:8b at http://h:8000/v1 (provider openai, key $VLLM_KEY set,") {
		t.Errorf("summary lacks the model line with the key's variable:\n%s", summary)
	}
	cfg, _, err = configtest.Load(t, file, nil, Provider{}.Config())
	if err != nil || !cfg.Model.APIKey.IsZero() || !strings.Contains(cfg.String(), "key $VLLM_KEY unset") {
		t.Errorf("unset key: %v, key set %t, summary:\n%s", err, !cfg.Model.APIKey.IsZero(), cfg)
	}
}
