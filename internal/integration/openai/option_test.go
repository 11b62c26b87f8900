package openai

import (
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/config"
)

// The adapter names only its Options field (pkg/ names no flag); the
// provider says it in the CLI's words, as before issue 35.
func TestOptionErrorsInTheCLIWords(t *testing.T) {
	m := config.Defaults().Model
	u, err := config.ParseHost("http://127.0.0.1:8000/v1")
	if err != nil {
		t.Fatal(err)
	}
	m.URL = u
	_, err = Provider{}.Client(m, " ", time.Minute)
	if want := "openai: model name is empty: set model.name (or --model / SUPERBIZ_MODEL) to the id the server's /models lists"; err == nil || err.Error() != want {
		t.Errorf("empty name: %v, want %q", err, want)
	}
}
