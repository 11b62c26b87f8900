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
