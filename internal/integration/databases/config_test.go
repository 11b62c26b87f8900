package databases

import (
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/config/configtest"
	"github.com/superbiz/superbiz/pkg/tools/sqlquery"
)

const validDB = `
[[databases]]
name = "orders"
driver = "mysql"
dsn = "readonly:secret@tcp(127.0.0.1:3306)/orders"
`

// A [[databases]] entry's mistakes, from its tags (keys, drivers, bounds),
// from config's DSN check for the driver and from the rules the tags cannot
// state, are reported at load, naming the key and the file, never the password.
func TestConfigErrors(t *testing.T) {
	configtest.Errors(t, []config.Part{Source{}.Config()}, []configtest.Case{
		{Name: "empty dsn", TOML: "[[databases]]\nname = \"o\"\ndriver = \"mysql\"\ndsn = \"\"\n", Want: []string{`databases[0].dsn = "" in `, "empty"}},
		{Name: "missing dsn", TOML: "[[databases]]\nname = \"o\"\ndriver = \"mysql\"\n", Want: []string{`databases[0].dsn = "" in `, "empty"}},
		{Name: "unknown key in [[databases]]", TOML: "[[databases]]\nname = \"o\"\ndriver = \"sqlite\"\ndsn = \"o.db\"\npassword = \"hunter22\"\n", Want: []string{`unknown key "databases[0].password"`}, Not: []string{"hunter22"}},
		{Name: "duplicate database names", TOML: validDB + validDB, Want: []string{`databases[1].name = "orders" in `, "duplicate: databases[0] already uses this name"}, Not: []string{"secret"}},
		{Name: "missing driver", TOML: "[[databases]]\nname = \"o\"\ndsn = \"u:pw12345@tcp(h:1)/d\"\n", Want: []string{`databases[0].driver = "" in `, "must be one of mysql, postgres, sqlite"}, Not: []string{"pw12345"}},
		{Name: "bad driver", TOML: "[[databases]]\nname = \"o\"\ndriver = \"oracle\"\ndsn = \"oracle://u:pw12345@h/d\"\n", Want: []string{`databases[0].driver = "oracle" in `, "must be one of mysql, postgres, sqlite"}, Not: []string{"pw12345"}},
		{Name: "invalid postgres dsn hides password", TOML: "[[databases]]\nname = \"o\"\ndriver = \"postgres\"\ndsn = \"postgres://ro:Hunter2Secret@h:notaport/d\"\n", Want: []string{"databases[0].dsn in ", "not a valid PostgreSQL DSN"}, Not: []string{"Hunter2Secret", "Hunter2"}},
		{Name: "invalid mysql dsn hides password (no slash)", TOML: "[[databases]]\nname = \"o\"\ndriver = \"mysql\"\ndsn = \"readonly:Hunter2Secret@tcp(127.0.0.1:3306)\"\n", Want: []string{"databases[0].dsn in ", "not a valid MySQL DSN", "slash"}, Not: []string{"Hunter2Secret", "Hunter2"}},
		{Name: "invalid mysql dsn hides password (no tcp)", TOML: "[[databases]]\nname = \"o\"\ndriver = \"mysql\"\ndsn = \"readonly:Hunter2Secret@127.0.0.1:3306/orders\"\n", Want: []string{"databases[0].dsn in ", "not a valid MySQL DSN", "tcp(...)"}, Not: []string{"Hunter2Secret", "127.0.0.1:3306"}},
		{Name: "invalid mysql dsn hides password (bad param)", TOML: "[[databases]]\nname = \"o\"\ndriver = \"mysql\"\ndsn = \"ro:Hunter2Secret@tcp(h:3306)/o?parseTime=Hunter2Secret\"\n", Want: []string{"databases[0].dsn in ", "not a valid MySQL DSN"}, Not: []string{"Hunter2Secret"}},
		{Name: "invalid mysql dsn hides password (unclosed address)", TOML: "[[databases]]\nname = \"o\"\ndriver = \"mysql\"\ndsn = \"ro:Hunter2Secret@tcp(h:3306/o\"\n", Want: []string{"databases[0].dsn in ", "not a valid MySQL DSN"}, Not: []string{"Hunter2Secret"}},
		{Name: "sqlite in-memory refused", TOML: "[[databases]]\nname = \"o\"\ndriver = \"sqlite\"\ndsn = \":memory:\"\n", Want: []string{"databases[0].dsn in ", "in-memory"}},
		{Name: "sqlite with parameters refused", TOML: "[[databases]]\nname = \"o\"\ndriver = \"sqlite\"\ndsn = \"file:o.db?mode=rw\"\n", Want: []string{"databases[0].dsn in ", "remove the ?parameters"}},
		{Name: "max_rows over 100", TOML: "[[databases]]\nname = \"o\"\ndriver = \"sqlite\"\ndsn = \"o.db\"\nmax_rows = 500\n", Want: []string{"databases[0].max_rows = 500 in ", "between 1 and 100"}},
		{Name: "db timeout zero", TOML: "[[databases]]\nname = \"o\"\ndriver = \"sqlite\"\ndsn = \"o.db\"\ntimeout = \"0s\"\n", Want: []string{`databases[0].timeout = "0s" in `, "between 100ms and 10m"}},
	})
}

func TestValidateBuiltConfig(t *testing.T) {
	// cmd builds the demo config by filling the struct: Validate must catch
	// what Load would, without a file.
	c := config.Defaults(Source{}.Config())
	c.DBPath = "/tmp/x.db"
	SetEntries(&c, sqlquery.Database{Name: "o", Driver: sqlquery.DriverSQLite, MaxRows: 50, Timeout: time.Second})
	err := c.Validate()
	if err == nil {
		t.Fatal("Validate accepted an empty DSN")
	}
	for _, s := range []string{`databases[0].dsn = "": empty`} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error lacks %q: %v", s, err)
		}
	}
	dsn, err := sqlquery.NewDSN(sqlquery.DriverSQLite, "/tmp/orders.db")
	if err != nil {
		t.Fatal(err)
	}
	SetEntries(&c, sqlquery.Database{Name: "o", Driver: sqlquery.DriverSQLite, DSN: dsn, MaxRows: 50, Timeout: time.Second})
	if err := c.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
	SetEntries(&c, sqlquery.Database{Name: "o", Driver: sqlquery.DriverMySQL, DSN: dsn, MaxRows: 50, Timeout: time.Second})
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "was not checked for driver") {
		t.Errorf("driver/DSN mismatch not caught: %v", err)
	}
}
