package registry

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/goldenfile"
	"github.com/superbiz/superbiz/pkg/model"
)

// Every provider's hints, for every kind of model failure (with the HTTP
// statuses a hint is picked by), when the server is down and when the
// embedding model fails, are the golden file: what a person reads after a
// failed run or doctor line.
func TestProviderHints(t *testing.T) {
	failures := []*model.Error{nil}
	for _, kind := range []model.ErrorKind{model.ErrUnreachable, model.ErrModelNotFound, model.ErrToolsNotSupported, model.ErrBadRequest,
		model.ErrTimeout, model.ErrCancelled, model.ErrProtocol, model.ErrServer} {
		failures = append(failures, &model.Error{Kind: kind})
	}
	for _, status := range []int{401, 403, 429} {
		failures = append(failures, &model.Error{Kind: model.ErrBadRequest, Status: status}, &model.Error{Kind: model.ErrServer, Status: status})
	}
	var b strings.Builder
	for _, p := range Providers() {
		cfg := Defaults()
		cfg.Model.Provider = p.Name()
		u, err := config.ParseHost("http://model.example:8000/v1")
		if err != nil {
			t.Fatal(err)
		}
		cfg.Model.Host, cfg.Model.URL = u, u
		fmt.Fprintf(&b, "## %s\nserver: %s\n", p.Name(), p.ServerHint(&cfg))
		for _, me := range failures {
			name := "nil"
			if me != nil {
				name = fmt.Sprintf("%s %d", me.Kind, me.Status)
			}
			fmt.Fprintf(&b, "%s: %s\n", name, p.Hint(&cfg, me))
		}
		for _, kind := range []model.ErrorKind{model.ErrUnreachable, model.ErrTimeout, model.ErrServer, model.ErrProtocol, model.ErrModelNotFound} {
			err := &model.Error{Kind: kind, Err: errors.New("x")}
			fmt.Fprintf(&b, "embed %s: %s\n", kind, p.EmbedHint("embedder", "http://model.example:8000/v1", err))
		}
	}
	goldenfile.Check(t, "hints.golden", []byte(b.String()))
}
