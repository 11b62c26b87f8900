package knowledge

import (
	"context"
	"database/sql"
	"embed"
	"io/fs"
)

// SchemaName is the name the knowledge tables are registered under with the
// run store, which records their migrations under it.
const SchemaName = "knowledge"

// migrationFS holds the history of the kb_* tables: migrations/NNNN_name.sql,
// applied in number order by the run store that registers them.
//
//go:embed migrations/*.sql
var migrationFS embed.FS

// Migrations are the kb_* table migrations (migrations/NNNN_description.sql),
// for the caller that registers the knowledge tables with the run store.
func Migrations() fs.FS { return migrationFS }

// Tables is what the index needs of the database holding the kb_* tables:
// statements and transactions (runstore.Tables in the binary), never the
// pool itself. Transactions not ReadOnly must take the write lock up front.
type Tables interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	BeginTx(ctx context.Context, opts *sql.TxOptions) (*sql.Tx, error)
}
