package demo

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver, registered as "sqlite"
)

// buildDB creates the orders database at path from the embedded schema and
// the generated rows, in one transaction, replacing any previous file. It is
// written to a temporary name without journal or fsync (a crash leaves no
// completion marker, so the next Materialize rebuilds it) and renamed at the end.
func buildDB(ctx context.Context, path string, ds *dataset) (err error) {
	schema, err := content.ReadFile("workspace/orders.sql")
	if err != nil {
		return fmt.Errorf("read demo schema: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".orders.db.*.tmp")
	if err != nil {
		return fmt.Errorf("create demo database: %w", err)
	}
	tmp := f.Name()
	if err := f.Close(); err != nil {
		return fmt.Errorf("create demo database: %w", err)
	}
	db, err := sql.Open("sqlite", "file:"+tmp+"?_pragma=journal_mode(OFF)&_pragma=synchronous(OFF)")
	if err != nil {
		return fmt.Errorf("create demo database: %w", err)
	}
	defer func() {
		if cerr := db.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("close demo database: %w", cerr)
		}
		if err == nil {
			err = os.Rename(tmp, path)
		}
		if err != nil {
			err = errors.Join(err, removeIfExists(tmp))
		}
	}()
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, string(schema)); err != nil {
		return fmt.Errorf("create demo schema: %w", err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("fill demo database: %w", err)
	}
	if err := fill(ctx, tx, ds); err != nil {
		return errors.Join(fmt.Errorf("fill demo database: %w", err), tx.Rollback())
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("fill demo database: %w", err)
	}
	return nil
}

func fill(ctx context.Context, tx *sql.Tx, ds *dataset) error {
	insert := func(query string, n int, args func(i int) []any) error {
		stmt, err := tx.PrepareContext(ctx, query)
		if err != nil {
			return err
		}
		for i := 0; i < n; i++ {
			if _, err := stmt.ExecContext(ctx, args(i)...); err != nil {
				return errors.Join(fmt.Errorf("row %d: %w", i, err), stmt.Close())
			}
		}
		return stmt.Close()
	}
	if err := insert(`INSERT INTO orders (id, user_id, amount_cents, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`, len(ds.orders), func(i int) []any {
		o := ds.orders[i]
		return []any{o.id, o.userID, o.amountCents, o.status, o.created.Format(sqlTime), o.updated.Format(sqlTime)}
	}); err != nil {
		return fmt.Errorf("insert orders: %w", err)
	}
	if err := insert(`INSERT INTO payments (id, order_id, provider, status, latency_ms, created_at) VALUES (?, ?, ?, ?, ?, ?)`, len(ds.payments), func(i int) []any {
		p := ds.payments[i]
		return []any{p.id, p.orderID, p.provider, p.status, p.latencyMs, p.created.Format(sqlTime)}
	}); err != nil {
		return fmt.Errorf("insert payments: %w", err)
	}
	if err := insert(`INSERT INTO slow_queries (id, ts, duration_ms, rows_examined, sql_text, db) VALUES (?, ?, ?, ?, ?, ?)`, len(ds.slow), func(i int) []any {
		q := ds.slow[i]
		return []any{q.id, q.ts.Format(sqlTime), q.durationMs, q.rowsExamined, q.sql, DatabaseName}
	}); err != nil {
		return fmt.Errorf("insert slow queries: %w", err)
	}
	return nil
}

func removeIfExists(name string) error {
	if err := os.Remove(name); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}
