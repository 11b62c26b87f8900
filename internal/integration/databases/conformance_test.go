package databases_test

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/superbiz/superbiz/internal/conformance"
	"github.com/superbiz/superbiz/internal/integration/databases"
	"github.com/superbiz/superbiz/internal/testenv"
)

// sqlFixture stands a SQL source up on the server whose DSN the variable
// holds (.ci/mariadb.sh, .ci/postgres.sh).
func sqlFixture(driver, variable, script string) func(t *testing.T) conformance.Fixture {
	return func(t *testing.T) conformance.Fixture {
		testenv.SkipShort(t, "runs against a real "+driver+" server")
		dsn := os.Getenv(variable)
		if dsn == "" {
			testenv.Missing(t, variable+" not set: source "+script, ".ci/run must source "+script)
		}
		return conformance.Fixture{
			Config:  fmt.Sprintf("[[databases]]\nname = \"shop\"\ndriver = %q\ndsn = %q\n", driver, dsn),
			Call:    json.RawMessage(`{"database":"shop","sql":"SELECT 'conformance-marker-7f3' AS m"}`),
			Marker:  "conformance-marker-7f3",
			Empty:   json.RawMessage(`{"database":"shop","sql":"SELECT 'conformance-marker-7f3' AS m FROM (SELECT 1 AS x) AS t WHERE t.x = 0"}`),
			NameKey: "database",
		}
	}
}

// query_mysql on the MariaDB server CI starts.
func TestConformance(t *testing.T) {
	conformance.Run(t, databases.Source{}, sqlFixture("mysql", "SUPERBIZ_TEST_MYSQL_DSN", ".ci/mariadb.sh"))
}

// query_postgres on the PostgreSQL cluster CI starts, as a SELECT-only role.
func TestConformancePostgres(t *testing.T) {
	conformance.Run(t, databases.Postgres{}, sqlFixture("postgres", "SUPERBIZ_TEST_POSTGRES_READER_DSN", ".ci/postgres.sh"))
}
