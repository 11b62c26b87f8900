package specref

import (
	"flag"
	"os"
	"testing"

	"github.com/superbiz/superbiz/internal/config"
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
