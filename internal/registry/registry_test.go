package registry

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/model/providertest"
)

// SourcesOf names, per tool, the sources its integration says a call read:
// the runbooks a lookup returned, the log source, database or metrics
// source the input named or the result reports; nothing more for a tool no
// source owns. Eval's evidence grader matches these names. Every
// registered source's own call is checked by internal/conformance's suite
// (the call through the boundary), so no list here names them all.
func TestSourcesOf(t *testing.T) {
	for _, tt := range []struct {
		tool, input, obs string
		want             []string
	}{
		{"lookup_knowledge", `{"query":"tls"}`, `{"result":{"documents":[{"source":"tls.md"},{"source":"certs.md"}]}}`, []string{"lookup_knowledge", "lookup_knowledge:tls.md", "lookup_knowledge:certs.md"}},
		{"query_logs", `{"source":"app"}`, `{"result":{"source":"app"}}`, []string{"query_logs", "query_logs:app", "query_logs:app"}},
		{"query_logs", `{}`, `{"result":{"source":"nginx"}}`, []string{"query_logs", "query_logs:nginx"}},
		{"query_mysql", `{"database":"orders","sql":"select 1"}`, `{"result":{"database":"orders"}}`, []string{"query_mysql", "query_mysql:orders", "query_mysql:orders"}},
		{"query_postgres", `{"database":"billing","sql":"select 1"}`, `{"result":{"database":"billing"}}`, []string{"query_postgres", "query_postgres:billing", "query_postgres:billing"}},
		{"query_metrics", `{"source":"prom"}`, `{"error":{"code":"TIMEOUT"}}`, []string{"query_metrics", "query_metrics:prom"}},
		{"query_redis", `{"view":"slowlog"}`, `{"result":{"source":"cache","view":"slowlog"}}`, []string{"query_redis", "query_redis:cache"}},
		{"query_kubernetes", `{"view":"pods"}`, `{"result":{"source":"prod","view":"pods"}}`, []string{"query_kubernetes", "query_kubernetes:prod"}},
		{"build_timeline", `{"since":"1h"}`, `{"result":{"coverage":[{"detector":"alerts","source":"alertmanager","status":"read"},{"detector":"error_burst","source":"app","status":"partial"},{"detector":"new_error","source":"app","status":"read"},{"detector":"restart","source":"nginx","status":"failed"},{"detector":"k8s_deploy","source":"prod","status":"read"},{"detector":"k8s_warning","source":"prod","status":"empty"}]}}`, []string{"build_timeline", "build_timeline:alertmanager", "query_logs:app", "query_kubernetes:prod"}},
		{"read_skill", `{"name":"x"}`, `{"result":{"source":"not evidence"}}`, []string{"read_skill"}},
		{"query_logs", `not json`, `not json`, []string{"query_logs"}},
	} {
		got := SourcesOf(tt.tool, json.RawMessage(tt.input), json.RawMessage(tt.obs))
		if !slices.Equal(got, tt.want) {
			t.Errorf("SourcesOf(%s, %s, %s) = %q, want %q", tt.tool, tt.input, tt.obs, got, tt.want)
		}
	}
}

// A tool no source owns has no setup text; every registered source's own
// is TestConformance's.
func TestSetup(t *testing.T) {
	if got := Setup("no_such_tool"); got != "" {
		t.Errorf("Setup(no_such_tool) = %q, want none", got)
	}
	if got := Setup(""); got != "" {
		t.Errorf("Setup(\"\") = %q, want none", got)
	}
}

// The registered providers are exactly model.provider's values, so a
// provider the configuration accepts is always one the registry builds.
func TestProvidersMatchTheConfigEnum(t *testing.T) {
	f, ok := reflect.TypeFor[config.Model]().FieldByName("Provider")
	if !ok {
		t.Fatal("config.Model has no Provider field")
	}
	var names []string
	for _, p := range Providers() {
		names = append(names, p.Name())
	}
	if got, want := strings.Join(names, ","), f.Tag.Get("enum"); got != want {
		t.Errorf("registered providers %q, model.provider accepts %q", got, want)
	}
}

// ModelClient builds the configured provider's client, on the URL that
// provider reads (model.host or model.url), for every provider.
func TestModelClientFollowsTheProvider(t *testing.T) {
	providertest.Each(t, func(t *testing.T, prov providertest.Provider) {
		srv := providertest.Start(t, prov)
		cfg := config.Defaults()
		u, err := config.ParseHost(srv.URL())
		if err != nil {
			t.Fatal(err)
		}
		cfg.Model.Provider = string(prov)
		if prov == providertest.OpenAI {
			cfg.Model.URL = u
		} else {
			cfg.Model.Host = u
		}
		c, err := ModelClient(&cfg)
		if err != nil {
			t.Fatal(err)
		}
		if c.Host() != srv.URL() {
			t.Errorf("client of %s talks to %s, want %s", prov, c.Host(), srv.URL())
		}
		has, err := c.HasModel(t.Context())
		if err != nil || !has {
			t.Errorf("HasModel = %v, %v on the %s server", has, err, prov)
		}
	})
}
