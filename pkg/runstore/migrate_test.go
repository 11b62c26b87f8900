package runstore

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/superbiz/superbiz/pkg/runrecord"
)

// openRaw opens a bare SQLite file with the store's DSN but no migrations.
func openRaw(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", dsn(filepath.Join(t.TempDir(), "raw.db")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestEmbeddedMigrationsLoad(t *testing.T) {
	ms, err := loadMigrations(migrationFS)
	if err != nil {
		t.Fatalf("embedded migrations: %v", err)
	}
	if ms[0].name != "0001_init.sql" {
		t.Errorf("first migration = %s, want 0001_init.sql", ms[0].name)
	}
	v, err := SchemaVersion()
	if err != nil || v != len(ms) {
		t.Errorf("SchemaVersion = %d, %v; want %d", v, err, len(ms))
	}
}

func TestLoadMigrationsRejectsBadSets(t *testing.T) {
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	tests := []struct {
		name string
		fsys fstest.MapFS
		want string
	}{
		{"gap", fstest.MapFS{"migrations/0001_a.sql": file("SELECT 1"), "migrations/0003_c.sql": file("SELECT 1")}, "without gaps"},
		{"duplicate", fstest.MapFS{"migrations/0001_a.sql": file("SELECT 1"), "migrations/0001_b.sql": file("SELECT 1")}, "share number 1"},
		{"not from one", fstest.MapFS{"migrations/0002_b.sql": file("SELECT 1")}, "want 1"},
		{"bad name", fstest.MapFS{"migrations/init.sql": file("SELECT 1")}, "NNNN_description.sql"},
		{"three digits", fstest.MapFS{"migrations/001_a.sql": file("SELECT 1")}, "four digits"},
		{"zero", fstest.MapFS{"migrations/0000_a.sql": file("SELECT 1")}, "from 0001"},
		{"no description", fstest.MapFS{"migrations/0001_.sql": file("SELECT 1")}, "NNNN_description.sql"},
		{"empty", fstest.MapFS{"migrations/README": file("x")}, "no migrations"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadMigrations(tt.fsys)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("loadMigrations = %v, want error containing %q", err, tt.want)
			}
		})
	}
}

func TestMigrateInOrderOnceEach(t *testing.T) {
	ctx := context.Background()
	db := openRaw(t)
	// 0002 depends on 0001 and 0010 on 0009: applying out of order would fail.
	fsys := fstest.MapFS{}
	for i := 1; i <= 10; i++ {
		name := "migrations/" + leftPad(i) + "_step.sql"
		body := "CREATE TABLE t" + strconv.Itoa(i) + " (x INTEGER);"
		if i > 1 {
			body += "INSERT INTO t" + strconv.Itoa(i) + " SELECT count(*) FROM t" + strconv.Itoa(i-1) + ";"
		}
		body += "CREATE TABLE IF NOT EXISTS applied (n INTEGER); INSERT INTO applied VALUES (" + strconv.Itoa(i) + ");"
		fsys[name] = &fstest.MapFile{Data: []byte(body)}
	}
	for round := range 2 {
		if err := migrate(ctx, db, []Component{{Name: "steps", Migrations: fsys}}); err != nil {
			t.Fatalf("migrate round %d: %v", round, err)
		}
		var n, v int
		if err := db.QueryRowContext(ctx, "SELECT count(*) FROM applied").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if v, _ = componentVersion(ctx, db, "steps"); n != 10 || v != 10 {
			t.Errorf("after round %d: %d migrations applied, version %d recorded; want 10, 10", round, n, v)
		}
	}
	var order string
	if err := db.QueryRowContext(ctx, "SELECT group_concat(n) FROM (SELECT n FROM applied ORDER BY rowid)").Scan(&order); err != nil {
		t.Fatal(err)
	}
	if order != "1,2,3,4,5,6,7,8,9,10" {
		t.Errorf("applied order %s", order)
	}
}

func leftPad(i int) string { s := strconv.Itoa(i); return strings.Repeat("0", 4-len(s)) + s }

func TestMigrateFailureRollsBack(t *testing.T) {
	ctx := context.Background()
	db := openRaw(t)
	fsys := fstest.MapFS{
		"migrations/0001_ok.sql":     {Data: []byte("CREATE TABLE a (x INTEGER);")},
		"migrations/0002_broken.sql": {Data: []byte("CREATE TABLE b (x INTEGER); CREATE TABLE nonsense (")},
	}
	err := migrate(ctx, db, []Component{{Name: "steps", Migrations: fsys}})
	if err == nil || !strings.Contains(err.Error(), "0002_broken.sql") {
		t.Fatalf("migrate = %v, want an error naming 0002_broken.sql", err)
	}
	if v, _ := componentVersion(ctx, db, "steps"); v != 1 {
		t.Errorf("version %d recorded, want 1 (0001 kept, 0002 rolled back)", v)
	}
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema WHERE name = 'b'").Scan(&n); err != nil || n != 0 {
		t.Errorf("table b of the failed migration exists (%d, %v)", n, err)
	}
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	ctx := context.Background()
	s, path := openTemp(t)
	latest, err := SchemaVersion()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.ExecContext(ctx, "INSERT INTO schema_migrations VALUES ('runstore', ?, 'future.sql', 0)", latest+1); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(ctx, path)
	if err == nil {
		s2.Close()
		t.Fatal("Open accepted a schema newer than the binary")
	}
	for _, want := range []string{"newer than this superbiz knows", strconv.Itoa(latest + 1)} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	var ne *NewerError
	if !errors.As(err, &ne) || ne.Version != latest+1 || ne.Known != latest || strings.Contains(err.Error(), "--db") {
		t.Errorf("error %q: want a *NewerError of version %d (known %d) naming no flag", err, latest+1, latest)
	}
}

// A registered component's migrations are applied after the store's own and
// recorded under its name; reopening applies nothing again, a second
// component of the same name is refused, and Tables is handed out only to a
// registered component.
func TestOpenRegistersComponents(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "superbiz.db")
	comp := Component{Name: "extra", Migrations: fstest.MapFS{
		"migrations/0001_a.sql": {Data: []byte("CREATE TABLE extra_a (x INTEGER); CREATE TABLE IF NOT EXISTS extra_log (n INTEGER); INSERT INTO extra_log VALUES (1);")},
		"migrations/0002_b.sql": {Data: []byte("INSERT INTO extra_log VALUES (2);")},
	}}
	for round := range 2 {
		s, err := Open(ctx, path, comp)
		if err != nil {
			t.Fatalf("open round %d: %v", round, err)
		}
		var log string
		if err := s.db.QueryRowContext(ctx, "SELECT group_concat(n) FROM extra_log").Scan(&log); err != nil || log != "1,2" {
			t.Errorf("round %d: applied %q (%v), want 1,2", round, log, err)
		}
		if v, err := componentVersion(ctx, s.db, "extra"); err != nil || v != 2 {
			t.Errorf("round %d: extra at %d (%v), want 2", round, v, err)
		}
		tb, err := s.Tables("extra")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tb.ExecContext(ctx, "INSERT INTO extra_a VALUES (1)"); err != nil {
			t.Errorf("write through Tables: %v", err)
		}
		if _, err := s.Tables("other"); err == nil {
			t.Error("Tables handed out for an unregistered component")
		}
		s.Close()
	}
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Tables("extra"); err == nil {
		t.Error("Tables handed out for a component registered by an earlier Open only")
	}
	s.Close()
	for _, bad := range [][]Component{{comp, comp}, {{Name: coreName, Migrations: comp.Migrations}}, {{Name: " ", Migrations: comp.Migrations}}} {
		if s, err := Open(ctx, path, bad...); err == nil {
			s.Close()
			t.Errorf("Open accepted components %+v", bad)
		}
	}
}

// A file of an earlier release (one user_version sequence, knowledge
// tables included) is converted: its steps are recorded, none applied again.
func TestOpenConvertsLegacyFile(t *testing.T) {
	ctx := context.Background()
	for _, legacy := range []int{1, 3, 4} {
		db := openRaw(t)
		steps := []string{"migrations/0001_init.sql", "", "migrations/0002_knowledge_guard.sql", ""}
		for i, f := range steps[:legacy] {
			if f != "" {
				body, err := migrationFS.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := db.ExecContext(ctx, string(body)); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := db.ExecContext(ctx, "PRAGMA user_version = "+strconv.Itoa(i+1)); err != nil {
				t.Fatal(err)
			}
		}
		core := coreComponent()
		if err := migrate(ctx, db, []Component{core}); err != nil {
			t.Fatalf("legacy %d: %v", legacy, err)
		}
		var got string
		if err := db.QueryRowContext(ctx, "SELECT group_concat(component || ':' || version || ':' || name, ' ') FROM (SELECT * FROM schema_migrations ORDER BY component, version)").Scan(&got); err != nil {
			t.Fatal(err)
		}
		want := map[int]string{
			1: "runstore:1:0001_init.sql runstore:2:0002_knowledge_guard.sql runstore:3:0003_tool_call_intent.sql runstore:4:0004_invocation_detail.sql runstore:5:0005_timeline_intent.sql runstore:6:0006_run_number.sql",
			3: "knowledge:1:0002_knowledge.sql runstore:1:0001_init.sql runstore:2:0003_knowledge_guard.sql runstore:3:0003_tool_call_intent.sql runstore:4:0004_invocation_detail.sql runstore:5:0005_timeline_intent.sql runstore:6:0006_run_number.sql",
			4: "knowledge:1:0002_knowledge.sql knowledge:2:0004_knowledge_vectors.sql runstore:1:0001_init.sql runstore:2:0003_knowledge_guard.sql runstore:3:0003_tool_call_intent.sql runstore:4:0004_invocation_detail.sql runstore:5:0005_timeline_intent.sql runstore:6:0006_run_number.sql",
		}[legacy]
		if got != want {
			t.Errorf("legacy %d recorded %q, want %q", legacy, got, want)
		}
		if v, _ := userVersion(ctx, db); v != bookkeepingVersion {
			t.Errorf("legacy %d: user_version %d, want %d", legacy, v, bookkeepingVersion)
		}
	}
}

// coreUpTo is the store's own migrations up to version n, as an earlier
// release shipped them.
func coreUpTo(t *testing.T, n int) fstest.MapFS {
	t.Helper()
	ms, err := loadMigrations(migrationFS)
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{}
	for _, m := range ms[:n] {
		fsys["migrations/"+m.name] = &fstest.MapFile{Data: []byte(m.sql)}
	}
	return fsys
}

// Migration 3 rebuilds runs (the parent of every audit table) to widen its
// intent CHECK: on a file of the previous schema holding runs with tool
// invocations, model rounds and guard reviews, every row survives, the
// indexes are back, TOOL_CALL is accepted, and foreign keys are enforced
// on every connection afterwards.
func TestMigrationToolCallRebuildsRuns(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	old, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		t.Fatal(err)
	}
	if err := migrate(ctx, old, []Component{{Name: coreName, Migrations: coreUpTo(t, 2)}}); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO sessions (id, created_at, updated_at) VALUES ('s_1', 1, 1)`,
		`INSERT INTO runs (id, session_id, created_at, query, intent, status) VALUES ('r_1', 's_1', 1, 'why', 'DIAGNOSIS', 'SUCCESS')`,
		`INSERT INTO runs (id, session_id, created_at, query, intent, status, replay_of) VALUES ('r_2', 's_1', 2, 'why', 'DIAGNOSIS', 'RUNNING', 'r_1')`,
		`INSERT INTO tool_invocations (run_id, seq, tool_call_id, tool, kind, status, started_at) VALUES ('r_1', 1, 'call_1', 'query_logs', 'EVIDENCE', 'COMPLETED', 1)`,
		`INSERT INTO model_rounds (run_id, seq, purpose, request, started_at) VALUES ('r_1', 1, 'DIAGNOSIS', '{}', 1)`,
		`INSERT INTO guard_reviews (run_id, seq, guard, verdict, created_at) VALUES ('r_1', 1, 'KNOWLEDGE', 'PASS', 1)`,
	} {
		if _, err := old.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if _, err := old.ExecContext(ctx, `INSERT INTO runs (id, session_id, created_at, query, intent, status) VALUES ('r_3', 's_1', 3, 'x', 'TOOL_CALL', 'RUNNING')`); err == nil {
		t.Fatal("the previous schema accepted intent TOOL_CALL: this test does not start from it")
	}
	old.Close()

	s, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("open the previous schema's file: %v", err)
	}
	defer s.Close()
	for table, want := range map[string]int{"runs": 2, "tool_invocations": 1, "model_rounds": 1, "guard_reviews": 1, "sessions": 1} {
		var n int
		if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM "+table).Scan(&n); err != nil || n != want {
			t.Errorf("%s holds %d rows (%v) after the migration, want %d", table, n, err, want)
		}
	}
	var replayOf string
	if err := s.db.QueryRowContext(ctx, `SELECT replay_of FROM runs WHERE id = 'r_2'`).Scan(&replayOf); err != nil || replayOf != "r_1" {
		t.Errorf("r_2's replay_of = %q (%v), want r_1", replayOf, err)
	}
	var indexes string
	if err := s.db.QueryRowContext(ctx, `SELECT group_concat(name, ' ') FROM (SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'runs' AND sql IS NOT NULL ORDER BY name)`).Scan(&indexes); err != nil {
		t.Fatal(err)
	}
	if indexes != "runs_created_at runs_number runs_replay_of runs_running runs_session_created_at" {
		t.Errorf("indexes of runs after the migration: %q", indexes)
	}
	if err := s.CreateRun(ctx, NewRun{ID: "r_4", SessionID: "s_1", Query: "query_logs {}", Intent: runrecord.IntentToolCall}); err != nil {
		t.Errorf("a TOOL_CALL run after the migration: %v", err)
	}
	// Every pooled connection enforces foreign keys again: hold them all
	// at once so the one the migration used is among them.
	conns := make([]*sql.Conn, MaxOpenConns)
	for i := range conns {
		c, err := s.db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns[i] = c
	}
	for i, c := range conns {
		var on int
		if err := c.QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&on); err != nil || on != 1 {
			t.Errorf("connection %d: foreign_keys = %d (%v), want 1", i, on, err)
		}
		if _, err := c.ExecContext(ctx, `INSERT INTO tool_invocations (run_id, seq, tool_call_id, tool, kind, status, started_at) VALUES ('r_missing', 1, 'c', 't', 'EVIDENCE', 'COMPLETED', 1)`); err == nil {
			t.Errorf("connection %d: an invocation of a missing run was stored", i)
		}
		c.Close()
	}
}

// A migration that leaves a row without its parent is rolled back by the
// foreign key check, and the connection it ran on enforces foreign keys
// again.
func TestMigrationForeignKeyCheckRollsBack(t *testing.T) {
	ctx := context.Background()
	db := openRaw(t)
	db.SetMaxOpenConns(1)
	fsys := fstest.MapFS{
		"migrations/0001_tables.sql": {Data: []byte("CREATE TABLE p (id INTEGER PRIMARY KEY); CREATE TABLE c (p INTEGER REFERENCES p (id));")},
		"migrations/0002_orphan.sql": {Data: []byte("INSERT INTO c VALUES (7);")},
	}
	err := migrate(ctx, db, []Component{{Name: "fk", Migrations: fsys}})
	if err == nil || !strings.Contains(err.Error(), "refers to a missing row of p") {
		t.Fatalf("migrate = %v, want the foreign key check's refusal", err)
	}
	var n, on int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM c").Scan(&n); err != nil || n != 0 {
		t.Errorf("c holds %d rows (%v) after the rolled-back migration", n, err)
	}
	if err := db.QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&on); err != nil || on != 1 {
		t.Errorf("foreign_keys = %d (%v) after the migration, want 1", on, err)
	}
}

// Migration 4 gives tool_invocations a column for every member of the
// audit record and spells cancellation CANCELLED: on a file of the
// previous schema, an invocation stored before reads back (read-only and
// unmigrated, or migrated) with its members empty and its old CANCELED code
// (and a direct tool call's) as CANCELLED, and one stored after keeps its
// detail, evaluation, tally and account of an empty window.
func TestMigrationInvocationDetail(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	old, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		t.Fatal(err)
	}
	if err := migrate(ctx, old, []Component{{Name: coreName, Migrations: coreUpTo(t, 3)}}); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO sessions (id, created_at, updated_at) VALUES ('s_1', 1, 1)`,
		`INSERT INTO runs (id, session_id, created_at, query, intent, status, error_code) VALUES ('r_1', 's_1', 1, 'why', 'DIAGNOSIS', 'RUNNING', '')`,
		`INSERT INTO runs (id, session_id, created_at, query, intent, status, error_code) VALUES ('r_2', 's_1', 2, 'query_logs {}', 'TOOL_CALL', 'FAILED', 'CANCELED')`,
		`INSERT INTO tool_invocations (run_id, seq, tool_call_id, tool, kind, status, evidence_status, error_code, observation, started_at, duration_ms)
			VALUES ('r_1', 1, 'call_1', 'query_logs', 'EVIDENCE', 'COMPLETED', 'ERROR', 'CANCELED', '{"evidence_status":"ERROR","error_code":"CANCELED"}', 1000, 7)`,
	} {
		if _, err := old.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if _, err := old.ExecContext(ctx, `UPDATE tool_invocations SET detail = 'x'`); err == nil {
		t.Fatal("the previous schema has a detail column: this test does not start from it")
	}
	old.Close()

	// Read-only, the file is not migrated but reads as it will be.
	ro, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatalf("read-only open of the previous schema's file: %v", err)
	}
	rd, err := ro.GetRun(ctx, "r_1")
	if err != nil {
		t.Fatalf("read-only: %v", err)
	}
	if len(rd.Invocations) != 1 || rd.Invocations[0].ErrorCode != "CANCELLED" || rd.Invocations[0].Detail != "" {
		t.Errorf("read-only, the old invocation reads %+v, want error code CANCELLED and no detail", rd.Invocations)
	}
	if tc, err := ro.GetRun(ctx, "r_2"); err != nil || tc.ErrorCode != "CANCELLED" {
		t.Errorf("read-only, the tool call run's error code reads %+v (%v), want CANCELLED", tc, err)
	}
	ro.Close()

	s, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("open the previous schema's file: %v", err)
	}
	defer s.Close()
	var stored string
	if err := s.db.QueryRowContext(ctx, `SELECT error_code FROM tool_invocations WHERE run_id = 'r_1' AND seq = 1`).Scan(&stored); err != nil || stored != "CANCELLED" {
		t.Errorf("the migrated row holds error code %q (%v), want CANCELLED", stored, err)
	}
	after := runrecord.Invocation{
		ToolCallID: "call_2", Tool: "query_mysql", Kind: runrecord.KindEvidence, Status: runrecord.InvocationCompleted,
		EvidenceStatus: "ERROR", ErrorCode: "NOT_ALLOWED", Evaluated: "call_1", Evaluation: "NO_GAIN",
		Detail: "SELECT * FROM mysql.user reads a credential table", EmptyWindow: "app.log holds 09:00-10:00", Tally: "0 rows",
	}
	if _, err := s.AppendToolInvocation(ctx, "r_1", after); err != nil {
		t.Fatal(err)
	}
	d, err := s.GetRun(ctx, "r_1")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Invocations) != 2 {
		t.Fatalf("%d invocations, want the old one and the new one", len(d.Invocations))
	}
	before := d.Invocations[0]
	if before.ErrorCode != "CANCELLED" || before.Detail != "" || before.Tally != "" || before.Duration != 7*time.Millisecond {
		t.Errorf("the invocation stored before reads %+v, want error code CANCELLED, no detail, duration 7ms", before)
	}
	if string(before.Observation) != `{"evidence_status":"ERROR","error_code":"CANCELED"}` {
		t.Errorf("the observation the model was shown changed: %s", before.Observation)
	}
	got := d.Invocations[1]
	if got.Detail != after.Detail || got.Evaluated != after.Evaluated || got.Evaluation != after.Evaluation ||
		got.EmptyWindow != after.EmptyWindow || got.Tally != after.Tally {
		t.Errorf("the invocation stored after reads %+v, want every member of %+v", got, after)
	}
	tc, err := s.GetRun(ctx, "r_2")
	if err != nil {
		t.Fatal(err)
	}
	if tc.ErrorCode != "CANCELLED" {
		t.Errorf("the tool call run's error code reads %q, want CANCELLED", tc.ErrorCode)
	}
}

// Migration 6 numbers the runs already stored by creation time (then
// insertion order); read-only, a file before it reads the numbers it will
// get, and resolves them; after it, a new run takes the next number.
func TestMigrationRunNumbers(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	old, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		t.Fatal(err)
	}
	if err := migrate(ctx, old, []Component{{Name: coreName, Migrations: coreUpTo(t, 5)}}); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO sessions (id, created_at, updated_at) VALUES ('s_1', 1, 1)`,
		`INSERT INTO runs (id, session_id, created_at, query, status) VALUES ('r_late', 's_1', 30, 'q', 'SUCCESS')`,
		`INSERT INTO runs (id, session_id, created_at, query, status) VALUES ('r_early', 's_1', 10, 'q', 'SUCCESS')`,
		`INSERT INTO runs (id, session_id, created_at, query, status) VALUES ('r_tie_a', 's_1', 20, 'q', 'SUCCESS')`,
		`INSERT INTO runs (id, session_id, created_at, query, status) VALUES ('r_tie_b', 's_1', 20, 'q', 'SUCCESS')`,
	} {
		if _, err := old.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	old.Close()
	want := map[string]int64{"r_early": 1, "r_tie_a": 2, "r_tie_b": 3, "r_late": 4}
	check := func(s *Store, how string) {
		t.Helper()
		runs, err := s.ListRuns(ctx, ListFilter{})
		if err != nil {
			t.Fatalf("%s: %v", how, err)
		}
		for _, r := range runs {
			if want[r.ID] != r.Number {
				t.Errorf("%s: %s is number %d, want %d", how, r.ID, r.Number, want[r.ID])
			}
		}
		if id, err := s.ResolveRun(ctx, "2"); err != nil || id != "r_tie_a" {
			t.Errorf("%s: run 2 is %q (%v), want r_tie_a", how, id, err)
		}
	}
	ro, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	check(ro, "read-only before migration 6")
	ro.Close()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	check(s, "after migration 6")
	mustRun(t, s, NewRun{ID: "r_new", SessionID: "s_1"})
	if id, err := s.ResolveRun(ctx, "5"); err != nil || id != "r_new" {
		t.Errorf("a run stored after the migration is %q (%v), want number 5", id, err)
	}
}
