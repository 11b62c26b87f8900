package config

import (
	"strings"
	"testing"

	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/tools/metrics"
	"github.com/superbiz/superbiz/pkg/tools/sqlquery"
)

// Policy gathers every credential the configuration holds, wherever it
// sits, and masks each in text read back later; a short one is left alone.
func TestPolicyHoldsConfiguredCredentials(t *testing.T) {
	mysqlDSN, err := sqlquery.NewDSN(sqlquery.DriverMySQL, "app:MysqlPw4Amber@tcp(db:3306)/shop")
	if err != nil {
		t.Fatal(err)
	}
	pgDSN, err := sqlquery.NewDSN(sqlquery.DriverPostgres, "postgres://ro:PgPass5Coral@db:5432/shop")
	if err != nil {
		t.Fatal(err)
	}
	def := Defaults(sourceShares...)
	c := &def
	c.Model.APIKey = NewSecret("sk-ModelKey6Slate")
	SetTable(c, "metrics", []metrics.Source{
		{Name: "m", Secret: NewSecret("MetricsTok7Plum")},
		{Name: "n", HTTPAuth: HTTPAuth{BearerTokenEnv: "AM_TOKEN"}},
	})
	// a table a share declares: its DSNs' passwords are credentials too
	SetTable(c, "databases", []sqlquery.Database{{Name: "a", DSN: mysqlDSN}, {Name: "b", DSN: pgDSN}})
	env := map[string]string{"AM_TOKEN": "AlertTok8Jade", "SHORT": "abc"}
	p := c.Policy(func(k string) string { return env[k] })
	secrets := []string{"MysqlPw4Amber", "PgPass5Coral", "sk-ModelKey6Slate", "MetricsTok7Plum", "AlertTok8Jade"}
	got := p.Text("stored: " + strings.Join(secrets, " ") + " ordinary words").String()
	for _, s := range secrets {
		if strings.Contains(got, s) {
			t.Errorf("%s not masked: %q", s, got)
		}
	}
	if !strings.Contains(got, "ordinary words") || strings.Count(got, egress.Marker) != len(secrets) {
		t.Errorf("got %q", got)
	}
	var none Config
	if got := none.Policy(func(string) string { return "" }).Text("abc MysqlPw4Amber").String(); got != "abc MysqlPw4Amber" {
		t.Errorf("an empty configuration masked %q", got)
	}
}
