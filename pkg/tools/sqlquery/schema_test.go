package sqlquery

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/superbiz/superbiz/internal/schema"
)

// The schema the model receives states exactly the bounds Canonical
// enforces: a tag edited without its constant (or the reverse) fails here.
func TestInputSchemaBounds(t *testing.T) {
	tool, err := New([]Database{{Name: "orders", Driver: DriverSQLite, DSN: testDSN(t, DriverSQLite, "/nonexistent.db")}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{
		"sql.maxLength":    MaxSQLBytes,
		"max_rows.minimum": 1,
		"max_rows.maximum": MaxRowsLimit,
		"max_rows.default": DefaultMaxRows,
	}
	if err := schema.CheckBounds(tool.Definition().Parameters, want); err != nil {
		t.Fatal(err)
	}
}

// The database enum is the configured names in configuration order, added
// to the generated schema per configuration; sql stays the one required member.
func TestInputSchemaDatabases(t *testing.T) {
	tool, err := New([]Database{
		{Name: "orders", Driver: DriverSQLite, DSN: testDSN(t, DriverSQLite, "/nonexistent.db")},
		{Name: `billing "eu"`, Driver: DriverSQLite, DSN: testDSN(t, DriverSQLite, "/other.db")},
	})
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Required   []string `json:"required"`
		Properties map[string]struct {
			Enum []string `json:"enum"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(tool.Definition().Parameters, &s); err != nil {
		t.Fatal(err)
	}
	if got := s.Properties["database"].Enum; !slices.Equal(got, tool.Names()) {
		t.Errorf("database enum %q, configured %q", got, tool.Names())
	}
	if !slices.Equal(s.Required, []string{"sql"}) {
		t.Errorf("required %q", s.Required)
	}
}
