package databases

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/frozen"
	"github.com/superbiz/superbiz/pkg/tools"
	"github.com/superbiz/superbiz/pkg/tools/sqlquery"
)

// recording is a recorded.json of one PostgreSQL statement, its input
// indented and HTML-escaped as an encoder may write it.
const recording = `{
  "databases": [{"name": "shop", "driver": "postgres"}],
  "calls": [{
    "tool": "query_postgres",
    "input": {
      "database": "shop",
      "sql": "SELECT status FROM orders WHERE amount_cents \u003e 100",
      "max_rows": 20
    },
    "evidence_status": "EVIDENCE_FOUND",
    "result": {"database": "shop", "columns": ["status"], "rows": [["paid"]]}
  }]
}
`

// A pack's recording answers its databases' statements: the recorded
// observation for a statement canonically equal to a recorded one, however
// it is spaced or encoded; NOT_RECORDED for any other.
func TestRecordedTool(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, RecordedFile), []byte(recording), 0o600); err != nil {
		t.Fatal(err)
	}
	if sv, err := (Source{}).Replay(frozen.Replay{Dir: dir}); sv != nil || err != nil {
		t.Errorf("query_mysql serves a recording of PostgreSQL only: %v %v", sv, err)
	}
	sv, err := Postgres{}.Replay(frozen.Replay{Dir: dir})
	if err != nil || sv == nil || sv.Missing() != "" {
		t.Fatalf("served %v, %v", sv, err)
	}
	srv, err := sv.Start(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Defaults(Source{}.Config())
	if err := srv.Configure(&cfg); err != nil {
		t.Fatal(err)
	}
	_, pg := sqlquery.Split(Entries(&cfg))
	live, err := sqlquery.NewPostgres(pg)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	adapters := srv.(frozen.Wrapper).Wrap([]tools.Adapter{live})
	for _, tt := range []struct {
		sql, status, code string
	}{
		{"SELECT status FROM orders WHERE amount_cents > 100", string(tools.EvidenceFound), ""},
		{"select  status  from orders where amount_cents>100", string(tools.EvidenceFound), ""},
		{"SELECT status FROM orders WHERE amount_cents > 101", string(tools.StatusError), tools.CodeNotRecorded},
		{"SELECT count(*) FROM orders", string(tools.StatusError), tools.CodeNotRecorded},
	} {
		in, _ := json.Marshal(map[string]string{"database": "shop", "sql": tt.sql})
		c, err := adapters[0].Canonical(in)
		if err != nil {
			t.Fatalf("%s: %v", tt.sql, err)
		}
		out := adapters[0].Execute(context.Background(), tools.Call{Tool: sqlquery.PostgresToolName, Input: c.Input})
		if string(out.Status) != tt.status || out.ErrorCode != tt.code {
			t.Errorf("%s: %s %s (%v), want %s %s", tt.sql, out.Status, out.ErrorCode, out.Detail, tt.status, tt.code)
		}
	}
}

// A recording that is not eval pack's is the pack's error, naming the file.
func TestRecordingErrors(t *testing.T) {
	for _, tt := range []struct{ name, body, want string }{
		{"unknown member", `{"databases":[],"calls":[],"dsn":"x"}`, "unknown field"},
		{"sqlite", `{"databases":[{"name":"d","driver":"sqlite"}],"calls":[]}`, "databases[0].driver"},
		{"input", `{"databases":[],"calls":[{"tool":"query_mysql","input":[1],"evidence_status":"NO_EVIDENCE"}]}`, "calls[0].input"},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, RecordedFile), []byte(tt.body), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := (Source{}).Replay(frozen.Replay{Dir: dir}); err == nil || !strings.Contains(err.Error(), RecordedFile) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
	}
	// A name no configuration accepts is refused when the attempt adds it.
	cfg := config.Defaults(Source{}.Config())
	if err := addRecorded(&cfg, &Recording{Databases: []RecordedDatabase{{Name: "no such name!", Driver: sqlquery.DriverMySQL}}}); err == nil {
		t.Error("a bad database name was added")
	}
}

// A MySQL statement recorded on a database (its DSN naming a schema, which
// the recording keeps for the tool's schema-dependent rules) is
// canonicalised again with no server: the same statement, spaced and cased
// otherwise, gets the recorded answer.
func TestRecordedMySQL(t *testing.T) {
	dsn, err := sqlquery.NewDSN(sqlquery.DriverMySQL, "app:pw@tcp(127.0.0.1:1)/shop")
	if err != nil {
		t.Fatal(err)
	}
	db := NewEntry()
	db.Name, db.Driver, db.DSN = "billing", sqlquery.DriverMySQL, dsn
	orig, err := sqlquery.New([]sqlquery.Database{db})
	if err != nil {
		t.Fatal(err)
	}
	defer orig.Close()
	c, err := orig.Canonical(json.RawMessage(`{"database":"billing","sql":"SELECT id FROM invoices WHERE total > 10"}`))
	if err != nil {
		t.Fatal(err)
	}
	rec := &Recording{
		Databases: []RecordedDatabase{{Name: "billing", Driver: sqlquery.DriverMySQL, Schema: "shop"}},
		Calls:     []RecordedCall{{Tool: sqlquery.ToolName, Input: c.Input, EvidenceStatus: tools.EvidenceFound, Result: json.RawMessage(`{"rows":[[1]]}`)}},
	}
	cfg := config.Defaults(Source{}.Config())
	if err := addRecorded(&cfg, rec); err != nil {
		t.Fatal(err)
	}
	live, err := sqlquery.New(Entries(&cfg))
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	a := WithRecording([]tools.Adapter{live}, rec, sqlquery.ToolName)[0]
	again, err := a.Canonical(json.RawMessage(`{"database":"billing","sql":"select id  from invoices where total>10"}`))
	if err != nil {
		t.Fatal(err)
	}
	if out := a.Execute(context.Background(), tools.Call{Tool: sqlquery.ToolName, Input: again.Input}); out.Status != tools.EvidenceFound {
		t.Errorf("%s: %s %s (%v); recorded %s", again.Input, out.Status, out.ErrorCode, out.Detail, c.Input)
	}
}
