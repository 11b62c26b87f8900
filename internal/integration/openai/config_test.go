package openai

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/config/configtest"
	"github.com/superbiz/superbiz/internal/doctor"
	ollamawire "github.com/superbiz/superbiz/pkg/model/ollama"
	adapter "github.com/superbiz/superbiz/pkg/model/openai"
)

// An openai provider needs the server's base URL where a client is built,
// not at load: a configuration without one loads (a command that never asks
// the model runs), and the client, and doctor's line, say how to give it.
func TestURLRequiredAtUse(t *testing.T) {
	cfg, _, err := configtest.Load(t, "[model]\nprovider = \"openai\"\n", nil, Provider{}.Config())
	if err != nil {
		t.Fatalf("an openai [model] without url does not load: %v", err)
	}
	_, err = Provider{}.Client(cfg.Model, cfg.Model.Name, time.Second)
	if err == nil {
		t.Fatal("a client was built with no server URL")
	}
	for _, want := range []string{"model.url is not set", "--url", adapter.EnvBaseURL} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error %q does not say %q", err, want)
		}
	}
	res := Provider{}.Doctor(context.Background(), cfg)
	if len(res) == 0 || res[0].Status != doctor.Fail || !strings.Contains(res[0].Detail, "model.url is not set") {
		t.Errorf("doctor's first line %+v, want a failure saying model.url is not set", res)
	}
}

// The key is read at load from the variable model.api_key_env names, and
// neither the JSON view nor the summary shows it; the summary says whether
// the variable is set.
func TestAPIKeyFromEnvironment(t *testing.T) {
	const file = "[model]\nprovider = \"openai\"\nurl = \"http://h:8000/v1\"\napi_key_env = \"VLLM_KEY\"\n"
	cfg, _, err := configtest.Load(t, file, map[string]string{ollamawire.EnvHost: "elsewhere:11434", "VLLM_KEY": "sk-Hunter2key"}, Provider{}.Config())
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
