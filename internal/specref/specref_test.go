package specref

import (
	"encoding/json"
	"flag"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/registry"
	"github.com/superbiz/superbiz/pkg/model"
)

// update rewrites docs/SPEC.md's generated tables: go test ./internal/specref -update.
var update = flag.Bool("update", false, "rewrite docs/SPEC.md's generated tables")

const specFile = "../../docs/SPEC.md"

// docs/SPEC.md's reference tables are what the declarations generate: a
// key, its default, its range or an exit code changed in the code without
// SPEC fails here (-update regenerates them).
func TestSpecTablesAreGenerated(t *testing.T) {
	doc, err := os.ReadFile(specFile)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Apply(doc)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) == string(doc) {
		return
	}
	if *update {
		if err := os.WriteFile(specFile, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("docs/SPEC.md's generated tables differ from the code: run go test ./internal/specref -update and commit the result")
}

// A key the code declares without a KeyDoc is refused by name, so a new
// source's keys cannot reach SPEC undocumented.
func TestKeysNeedTheirDocs(t *testing.T) {
	if _, err := Keys(); err != nil {
		t.Fatalf("Keys: %v", err)
	}
	own := config.OwnDocs()
	if _, ok := own["budget.deadline"]; !ok {
		t.Fatal("config.OwnDocs lost budget.deadline")
	}
}

// A tool's input table comes from its schema and its InputDocs: a member
// without a text, a text naming no member, and a bound, default or enum
// value the schema states but the text does not are refused by name.
func TestToolInputsNeedTheirDocs(t *testing.T) {
	def := model.Tool{Name: "query_x", Parameters: json.RawMessage(`{"type":"object","properties":{
		"source":{"type":"string"},"view":{"type":"string","enum":["pods","nodes"]},
		"limit":{"type":"integer","minimum":1,"maximum":100,"default":20}},"required":["view"]}`)}
	good := map[string]string{"source": "a configured source", "view": "`pods` or `nodes`", "limit": "1 to 100, default 20"}
	body, probs := inputTable(def, good)
	if len(probs) > 0 {
		t.Fatalf("problems %q", probs)
	}
	if want := "| `view` | string | required; `pods` or `nodes` |\n"; !strings.Contains(body, want) {
		t.Errorf("table\n%s\nlacks %q", body, want)
	}
	for _, tt := range []struct {
		name string
		docs map[string]string
		want string
	}{
		{"member without a text", map[string]string{"source": "x", "view": "`pods` or `nodes`"}, "query_x.limit has no InputDocs text"},
		{"text for no member", map[string]string{"source": "x", "view": "`pods` `nodes`", "limit": "1 100 20", "since": "x"}, `InputDocs name "since"`},
		{"bound unstated", map[string]string{"source": "x", "view": "`pods` or `nodes`", "limit": "1 to 100"}, "query_x.limit: the schema states 20"},
		{"enum value unstated", map[string]string{"source": "x", "view": "`pods`", "limit": "1 to 100, default 20"}, `enum value "nodes"`},
	} {
		_, probs := inputTable(def, tt.docs)
		if !strings.Contains(strings.Join(probs, "\n"), tt.want) {
			t.Errorf("%s: problems %q, want one saying %q", tt.name, probs, tt.want)
		}
	}
	secs, err := ToolInputs()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range registry.Sources() {
		if s.Tool() != "" && !slices.ContainsFunc(secs, func(x Section) bool { return x.Name == inputSection(s.Tool()) }) {
			t.Errorf("no input table for %s", s.Tool())
		}
	}
}
