package databases

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/doctor"
	"github.com/superbiz/superbiz/internal/integration"
	"github.com/superbiz/superbiz/internal/testenv"
	"github.com/superbiz/superbiz/pkg/tools/sqlquery"
)

// TestDatabasesPostgres: against the cluster .ci/postgres.sh starts, doctor
// says the superuser "can write" (a warning recommending pg_read_all_data),
// passes the SELECT-only and pg_read_all_data roles, and never prints a
// password; a mysql entry next to them still goes to query_mysql's check.
func TestDatabasesPostgres(t *testing.T) {
	testenv.SkipShort(t, "runs against a real PostgreSQL")
	envs := map[string]string{
		"admin":  "SUPERBIZ_TEST_POSTGRES_ADMIN_DSN",
		"ro":     "SUPERBIZ_TEST_POSTGRES_DSN",
		"reader": "SUPERBIZ_TEST_POSTGRES_READER_DSN",
	}
	c := config.Defaults(Source{}.Config())
	cfg := &c
	cfg.File = "superbiz.toml"
	var dbs []sqlquery.Database
	for _, name := range []string{"admin", "ro", "reader"} {
		raw := os.Getenv(envs[name])
		if raw == "" {
			testenv.Missing(t, envs[name]+" not set: source .ci/postgres.sh to run the PostgreSQL doctor check", ".ci/run must source .ci/postgres.sh")
		}
		dsn, err := sqlquery.NewDSN(sqlquery.DriverPostgres, raw)
		if err != nil {
			t.Fatal(err)
		}
		dbs = append(dbs, sqlquery.Database{Name: name, Driver: sqlquery.DriverPostgres, DSN: dsn, Timeout: 5 * time.Second})
	}
	closed := strings.TrimPrefix(testenv.ClosedURL(t), "http://")
	my, err := sqlquery.NewDSN(sqlquery.DriverMySQL, "ro:mysql-secret-9@tcp("+closed+")/shop")
	if err != nil {
		t.Fatal(err)
	}
	dbs = append(dbs, sqlquery.Database{Name: "legacy", Driver: sqlquery.DriverMySQL, DSN: my, Timeout: 5 * time.Second})
	SetEntries(cfg, dbs...)

	got := append(Postgres{}.Doctor(context.Background(), cfg, integration.Env{}), Source{}.Doctor(context.Background(), cfg, integration.Env{})...)
	want := map[string]doctor.Status{"database admin": doctor.Warn, "database ro": doctor.Pass, "database reader": doctor.Pass, "database legacy": doctor.Fail}
	if len(got) != len(want) {
		t.Fatalf("got %d results %+v, want %d", len(got), got, len(want))
	}
	for _, r := range got {
		if r.Status != want[r.Check] {
			t.Errorf("%s: status %d (%s; %s), want %d", r.Check, r.Status, r.Detail, r.Hint, want[r.Check])
		}
		for _, secret := range []string{"admin-secret", "ro-secret", "reader-secret", "mysql-secret-9"} {
			if strings.Contains(r.Detail+r.Hint, secret) {
				t.Errorf("%s: the password %s is printed: %s %s", r.Check, secret, r.Detail, r.Hint)
			}
		}
		if r.Check == "database admin" && (!strings.Contains(r.Detail, "can write") || !strings.Contains(r.Hint, "pg_read_all_data")) {
			t.Errorf("superuser: %s / %s, want can write and a pg_read_all_data hint", r.Detail, r.Hint)
		}
	}
}
