package logs

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/schema"
	"github.com/superbiz/superbiz/pkg/tools"
)

// The schema the model receives states exactly the bounds decodeInput
// enforces: a tag edited without its constant (or the reverse) fails here.
func TestInputSchemaBounds(t *testing.T) {
	want := map[string]int64{
		"limit.minimum": 1,
		"limit.maximum": maxLimit,
		"limit.default": defaultLimit,
	}
	if err := schema.CheckBounds(newTool(t, Source{Name: "app", Paths: []string{"/x"}}).Definition().Parameters, want); err != nil {
		t.Fatal(err)
	}
}

// The enums: source lists the configured names in order (injected per
// configuration), level exactly the levels decodeInput admits.
func TestInputSchemaEnums(t *testing.T) {
	tool := newTool(t, Source{Name: "app", Paths: []string{"/x"}}, Source{Name: `gw "edge"`, Paths: []string{"/y"}})
	var s struct {
		Properties map[string]struct {
			Enum []string `json:"enum"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(tool.Definition().Parameters, &s); err != nil {
		t.Fatal(err)
	}
	if got := s.Properties["source"].Enum; !slices.Equal(got, []string{"app", `gw "edge"`}) {
		t.Errorf("source enum %q", got)
	}
	levels := s.Properties["level"].Enum
	if len(levels) == 0 {
		t.Fatal("level has no enum")
	}
	// every level a log may carry: admitted exactly when the schema lists it
	for _, lv := range []string{"ERROR", "WARN", "INFO", "DEBUG", "TRACE", "FATAL", "WARNING", "CRITICAL", "NOTICE"} {
		_, err := tool.decodeInput([]byte(`{"source":"app","since":"1h","level":"` + lv + `"}`))
		if listed := slices.Contains(levels, lv); listed != (err == nil) {
			t.Errorf("level %q: in the schema enum %v, admitted by decodeInput %v (%v)", lv, listed, err == nil, err)
		}
	}
}

// The since range is stated in words, in the since description and the
// tool's: both must say the range decodeInput enforces.
func TestInputSchemaDescriptions(t *testing.T) {
	def := newTool(t, Source{Name: "app", Paths: []string{"/x"}}).Definition()
	var s struct {
		Properties map[string]struct {
			Description string `json:"description"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(def.Parameters, &s); err != nil {
		t.Fatal(err)
	}
	if d, want := s.Properties["since"].Description, tools.FormatDuration(minSince)+" to "+tools.FormatDuration(maxSince); !strings.Contains(d, want) {
		t.Errorf("since description %q does not say %q", d, want)
	}
	if want := `"` + tools.FormatDuration(minSince) + `" to "` + tools.FormatDuration(maxSince) + `"`; !strings.Contains(def.Description, want) {
		t.Errorf("tool description does not say %s", want)
	}
}
