package openai_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/model/openai"
)

// An error whose code is an empty string is classified by its type: a 400
// typed model_not_found is MODEL_NOT_FOUND, not a bad request.
func TestErrorTypeWhenCodeEmpty(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		if strings.HasSuffix(r.URL.Path, "/models") {
			_, _ = io.WriteString(w, `{"object":"list","data":[{"id":"other","object":"model"}]}`)
			return
		}
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"error":{"message":"no such deployment","type":"model_not_found","code":""}}`)
	}))
	t.Cleanup(srv.Close)
	c, err := openai.New(openai.Options{URL: srv.URL + "/v1", Model: "m", RequestTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Chat(context.Background(), model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "q"}}})
	if model.KindOf(err) != model.ErrModelNotFound {
		t.Errorf("err = %v (kind %q), want MODEL_NOT_FOUND", err, model.KindOf(err))
	}
}
