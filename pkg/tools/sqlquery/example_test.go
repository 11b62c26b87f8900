package sqlquery_test

import (
	"fmt"

	"github.com/superbiz/superbiz/pkg/tools/sqlquery"
)

// A data source name keeps its password out of every printed form; only
// Reveal, for the one place that opens the connection, gives it back.
func ExampleNewDSN() {
	dsn, err := sqlquery.NewDSN(sqlquery.DriverMySQL, "readonly:hunter2@tcp(db.internal:3306)/orders")
	if err != nil {
		panic(err)
	}
	fmt.Println(dsn)
	fmt.Printf("%#v\n", dsn)
	// Output:
	// readonly:***@tcp(db.internal:3306)/orders
	// sqlquery.DSN("readonly:***@tcp(db.internal:3306)/orders")
}
