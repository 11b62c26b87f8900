package timeline

import (
	"testing"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/config/configtest"
)

// A [timeline] table's mistakes that its tags state (its keys, the shape
// of [[timeline.metrics]]) are reported at load, naming the key and the
// file, with the key meant when one is near.
func TestConfigErrors(t *testing.T) {
	configtest.Errors(t, []config.Part{Source{}.Config()}, []configtest.Case{
		{Name: "unknown key in an entry", TOML: "[[timeline.metrics]]\nname = \"up\"\nquery = \"up\"\nservices = \"x\"\n", Want: []string{`unknown key "timeline.metrics[0].services"`, `did you mean "timeline.metrics[0].service"?`}},
		{Name: "unknown key in [timeline]", TOML: "[timeline]\nmetric = 1\n", Want: []string{`unknown key "timeline.metric"`, `did you mean "timeline.metrics"?`}},
		{Name: "metrics as a table", TOML: "[timeline.metrics]\nname = \"up\"\n", Want: []string{"timeline.metrics in ", "must be an array of tables ([[timeline.metrics]])"}},
		{Name: "entry without a name", TOML: "[[timeline.metrics]]\nquery = \"up\"\n", Want: []string{`timeline.metrics[0].name = "" in `, "missing: every [[timeline.metrics]] entry needs its name"}},
		{Name: "entry with an empty name", TOML: "[[timeline.metrics]]\nname = \"\"\nquery = \"up\"\n", Want: []string{`timeline.metrics[0].name = "" in `, "missing: every [[timeline.metrics]] entry needs its name"}},
		{Name: "entry without a query", TOML: "[[timeline.metrics]]\nname = \"checkout p99\"\n", Want: []string{`timeline.metrics[0].query = "" in `, `missing: the [[timeline.metrics]] entry "checkout p99" needs its query`}},
		{Name: "second entry without either", TOML: example + "\n[[timeline.metrics]]\nservice = \"x\"\n", Want: []string{`timeline.metrics[1].name = "" in `, `timeline.metrics[1].query = "" in `, "every [[timeline.metrics]] entry needs its query"}, Not: []string{"timeline.metrics[0]"}},
	})
}

// The table loads into the folder's Table and is read back by Metrics.
func TestMetricsLoad(t *testing.T) {
	cfg, _, err := configtest.Load(t, example, nil, Source{}.Config())
	if err != nil {
		t.Fatal(err)
	}
	ms := Metrics(cfg)
	if len(ms) != 1 || ms[0].Name != "checkout p99 latency" || ms[0].Query == "" || ms[0].Source != "" {
		t.Errorf("Metrics = %+v, want the example's one entry", ms)
	}
}
