package ollama

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/pkg/model"
	adapter "github.com/superbiz/superbiz/pkg/model/ollama"
)

// The adapter names only its Options field (pkg/ names no flag); the
// provider says it in the CLI's words, as before issue 35.
func TestOptionErrorsInTheCLIWords(t *testing.T) {
	m := config.Defaults().Model
	_, err := Provider{}.Client(m, " ", time.Minute)
	if want := "ollama: model name is empty: set model.name (or --model / SUPERBIZ_MODEL), e.g. qwen3:8b"; err == nil || err.Error() != want {
		t.Errorf("empty name: %v, want %q", err, want)
	}
	_, err = adapter.New(adapter.Options{Host: "ftp://x", Model: "m", NumCtx: 1, RequestTimeout: time.Second})
	var oe *model.OptionError
	if !errors.As(err, &oe) || oe.Option != "Host" || strings.Contains(err.Error(), "--") {
		t.Errorf("adapter.New with a bad host: %v, want a *model.OptionError on Host naming no flag", err)
	}
}
