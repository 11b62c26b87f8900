package sqlquery

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/superbiz/superbiz/internal/reliability"
	"github.com/superbiz/superbiz/pkg/tools"
)

// pgEnvMonitor is the pg_monitor role .ci/postgres.sh exports.
const pgEnvMonitor = "SUPERBIZ_TEST_POSTGRES_MONITOR_DSN"

// pgCanaries are the secrets the fixture and .ci/postgres.sh plant, and
// what a user function that won over a built-in would answer.
var pgCanaries = []string{
	"HunterTwoAlpaca9", "huntertwoalpaca9", "HUNTERTWOALPACA9", "VaultSecretIndigo4", "ArchivePassCobalt7", "RestoreTokenOrchid5",
	"ReplPassMagenta3", "PassphraseSaffron8", "SrvOptionSecret5", "UmOptionSecret6", "ViewLiteralSecret2",
	"tulip-harbor", "pg-fixture-pass-1", "424242", "user code ran",
	// reversed, as reverse(setting) would show them
	"7tlaboCssaPevihcrA", "3atnegaMssaPlpeR",
}

// pgRoles are the three roles issue 34's probe used.
var pgRoles = []struct{ name, env string }{
	{"superuser", pgEnvAdmin}, {"select-only", pgEnvRO}, {"pg_monitor", pgEnvMonitor},
}

// pgFindCanary returns the first canary in s, "" when none.
func pgFindCanary(s string) string {
	for _, c := range pgCanaries {
		if strings.Contains(s, c) {
			return c
		}
	}
	return ""
}

// Whole rows, settings in every shape, values quoted in error texts, user
// functions named like built-ins and view literals in plans (issue 34
// §4-§6, §8, §9): on a superuser, the SELECT-only role and a pg_monitor
// role, no planted secret reaches a result or an error, whatever the
// outcome.
func TestPostgresLeakCorpus(t *testing.T) {
	corpus := loadCorpus(t, "postgres/leaks.sql")
	for _, role := range pgRoles {
		t.Run(role.name, func(t *testing.T) {
			answered, leaked := corpusLeaks(t, postgresTool(t, role.env, 5*time.Second), corpus, pgFindCanary, "the "+role.name)
			reliability.Record(t, reliability.SectionSQL, "postgres leak corpus, "+role.name, map[string]any{
				"tried": len(corpus), "answered": answered, "leaked": leaked,
			})
		})
	}
}

// Views built on refused catalogs are refused by what the server says they
// are built on, on every role (issue 34 §7).
func TestPostgresServerRefusedFamilies(t *testing.T) {
	corpus := loadCorpus(t, "postgres/server_refused.sql")
	for _, role := range pgRoles {
		t.Run(role.name, func(t *testing.T) {
			tool := postgresTool(t, role.env, 5*time.Second)
			for _, q := range corpus {
				out := execute(t, tool, q, 20)
				if out.ErrorCode != tools.CodeNotAllowed {
					b, _ := json.Marshal(out.Result)
					t.Errorf("%q: got %s/%s (%v) %s, want NOT_ALLOWED", q, out.Status, out.ErrorCode, out.Detail, b)
				}
			}
		})
	}
}

// A row over the read limit is refused from its length header, before its
// body is read: a 64 MiB cell costs the client far less than its size and
// fails with an error naming the limit; a cell under it is read and cut.
func TestPostgresRowBytesBounded(t *testing.T) {
	tool := postgresTool(t, pgEnvRO, 30*time.Second)
	execute(t, tool, "SELECT 1", 1) // the parser loads once, outside the measure
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	out := execute(t, tool, "SELECT lpad('x', 64 * 1024 * 1024, 'x')", 1)
	runtime.ReadMemStats(&after)
	if out.ErrorCode != tools.CodeInvalidInput || !strings.Contains(out.Detail.Error(), "read limit") {
		t.Fatalf("64 MiB cell: got %s/%s (%v), want INVALID_INPUT naming the read limit", out.Status, out.ErrorCode, out.Detail)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 32<<20 {
		t.Errorf("reading a 64 MiB cell allocated %d bytes", grew)
	}
	out = execute(t, tool, "SELECT lpad('x', 2 * 1024 * 1024, 'ab') AS big, 1 AS n", 1)
	res, ok := out.Result.(Result)
	if !ok || len(res.Rows) != 1 || len(res.Rows[0][0].(string)) > MaxCellBytes || res.Rows[0][1] != json.Number("1") {
		t.Fatalf("2 MiB cell: %s/%s (%v) %+v", out.Status, out.ErrorCode, out.Detail, out.Result)
	}
}

func TestPGMaskQuoted(t *testing.T) {
	stmt := `SELECT password::int, nope FROM users WHERE name = 'it''s'`
	for _, tt := range []struct{ in, want string }{
		{`invalid input syntax for type integer: "HunterTwoAlpaca9"`, `invalid input syntax for type integer: "[REDACTED]"`},
		{`column "nope" does not exist`, `column "nope" does not exist`},
		{`relation "USERS" does not exist`, `relation "USERS" does not exist`},
		{`relation "huntertwoalpaca9" does not exist`, `relation "[REDACTED]" does not exist`},
		{`value "a""b" is bad`, `value "[REDACTED]" is bad`},
		{`empty "" stays`, `empty "" stays`},
		{`unterminated "HunterTwo`, `unterminated "[REDACTED]`},
		{`no quotes at all`, `no quotes at all`},
	} {
		if got := pgMaskQuoted(tt.in, stmt, '"'); got != tt.want {
			t.Errorf("%q: got %q, want %q", tt.in, got, tt.want)
		}
	}
	// The server quotes a value without escaping its quotes: masked to the
	// message's last quote.
	for _, tt := range []struct{ in, want string }{
		{`invalid input syntax for type integer: "{"level":"INFO","api_keys":["Cnry02"]}"`, `invalid input syntax for type integer: "[REDACTED]"`},
		{`invalid input syntax for type json: "a "b" c" at "nope"`, `invalid input syntax for type json: "[REDACTED]"`},
		{`column "nope" of relation "x" does not exist`, `column "nope" of relation "[REDACTED]" does not exist`},
		{`value "a""b" is bad`, `value "[REDACTED]" is bad`},
		{`unterminated "HunterTwo`, `unterminated "[REDACTED]`},
	} {
		if got := pgMaskServerQuoted(tt.in, stmt); got != tt.want {
			t.Errorf("server %q: got %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := pgMaskPlanLiterals(`Filter: ((note <> 'ViewLiteralSecret2'::text) AND (name = 'it''s'))`, stmt); got != `Filter: ((note <> '[REDACTED]'::text) AND (name = 'it''s'))` {
		t.Errorf("plan: %q", got)
	}
}

// The server's error is masked and keeps its SQLSTATE; other errors pass.
func TestPGMaskError(t *testing.T) {
	pe := &pgconn.PgError{Severity: "ERROR", Code: "22P02", Message: `invalid input syntax for type integer: "HunterTwoAlpaca9"`, Detail: "Token \"HunterTwoAlpaca9\"", Where: "HunterTwoAlpaca9"}
	err := pgMaskError(fmt.Errorf("wrapped: %w", pe), "SELECT password::int FROM users")
	if strings.Contains(err.Error(), "HunterTwo") || !strings.Contains(err.Error(), "wrapped: ERROR: invalid input syntax for type integer") || pgCode(err) != "22P02" {
		t.Fatalf("masked: %v (code %s)", err, pgCode(err))
	}
	var got *pgconn.PgError
	if !errors.As(err, &got) || got.Detail != "" || got.Where != "" {
		t.Fatalf("detail and where kept: %+v", got)
	}
	// Unquoted shapes pass the egress door's policy on top.
	pe = &pgconn.PgError{Severity: "ERROR", Code: "08001", Message: "could not connect: host=primary.test password=ReplPassMagenta3"}
	if err := pgMaskError(pe, "SELECT 1"); strings.Contains(err.Error(), "ReplPassMagenta3") || !strings.Contains(err.Error(), "could not connect") {
		t.Fatalf("door: %v", err)
	}
	plain := errors.New("plain")
	if pgMaskError(plain, "x") != plain || pgMaskError(nil, "x") != nil {
		t.Fatal("a non-server error changed")
	}
}

// The result types are judged by what the server says they hold: a
// composite with a secret-named member, a row type holding one, arrays of
// them; an anonymous record by whether the statement's relations carry one.
func TestPGTypeSecrets(t *testing.T) {
	conn := pgAdmin(t)
	oid := func(q string) uint32 {
		n, err := strconv.ParseUint(pgValue(t, conn, q), 10, 32)
		if err != nil {
			t.Fatal(err)
		}
		return uint32(n)
	}
	cred, vault, vaults, orders := oid("SELECT 'credential'::regtype::oid"), oid("SELECT 'vault'::regtype::oid"),
		oid("SELECT '_vault'::regtype::oid"), oid("SELECT 'orders'::regtype::oid")
	got, err := pgTypeSecrets(context.Background(), conn, []uint32{cred, vault, vaults, orders, pgtype.TextOID, pgtype.RecordOID}, &pgResolution{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[uint32]bool{cred: true, vault: true, vaults: true, orders: false, pgtype.RecordOID: false}
	for o, w := range want {
		if got[o] != w {
			t.Errorf("type %d: secret %t, want %t (%v)", o, got[o], w, got)
		}
	}
	if got, _ := pgTypeSecrets(context.Background(), conn, []uint32{pgtype.RecordOID}, &pgResolution{anySecret: true}); !got[pgtype.RecordOID] {
		t.Errorf("a record over a secret-carrying relation is not secret: %v", got)
	}
}
