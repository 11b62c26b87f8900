package databases

import (
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/config/configtest"
	"github.com/superbiz/superbiz/pkg/tools/logs"
)

// The rules of [[databases]] entries that the tags cannot state are
// reported at load, naming the key and the file, never the password.
func TestConfigErrors(t *testing.T) {
	configtest.Errors(t, []config.Part{Source{}.Config()}, []configtest.Case{
		{Name: "empty dsn", TOML: "[[databases]]\nname = \"o\"\ndriver = \"mysql\"\ndsn = \"\"\n", Want: []string{`databases[0].dsn = "" in `, "empty"}},
		{Name: "missing dsn", TOML: "[[databases]]\nname = \"o\"\ndriver = \"mysql\"\n", Want: []string{`databases[0].dsn = "" in `, "empty"}},
	})
}

func TestValidateBuiltConfig(t *testing.T) {
	// cmd builds the demo config by filling the struct: Validate must catch
	// what Load would, without a file.
	c := config.Defaults(Source{}.Config())
	c.DBPath = "/tmp/x.db"
	c.Logs = []config.LogSource{{Name: "app", Backend: logs.BackendFiles, Paths: []string{"/x/*.log"}, Format: "xml", Timezone: "UTC", Location: time.UTC, MaxWindow: time.Hour}}
	c.Databases = []config.Database{{Name: "o", Driver: config.DriverSQLite, MaxRows: 50, Timeout: time.Second}}
	err := c.Validate()
	if err == nil {
		t.Fatal("Validate accepted a bad format and an empty DSN")
	}
	for _, s := range []string{`logs[0].format = "xml": must be one of`, `databases[0].dsn = "": empty`} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error lacks %q: %v", s, err)
		}
	}
	dsn, err := config.NewDSN(config.DriverSQLite, "/tmp/orders.db")
	if err != nil {
		t.Fatal(err)
	}
	c.Logs[0].Format = config.FormatJSON
	c.Databases[0].DSN = dsn
	if err := c.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
	c.Databases[0].Driver = config.DriverMySQL
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "was not checked for driver") {
		t.Errorf("driver/DSN mismatch not caught: %v", err)
	}
}
