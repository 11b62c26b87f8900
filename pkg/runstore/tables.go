package runstore

import (
	"context"
	"database/sql"
	"fmt"
)

// Tables is the handle a registered component does its own work through:
// statements and transactions on the store's pool, so they keep its write
// discipline (BEGIN IMMEDIATE, busy timeout, WAL), and nothing that closes or
// reconfigures the pool. Transactions are BEGIN IMMEDIATE (they take the
// write lock) unless begun with sql.TxOptions{ReadOnly: true}.
type Tables struct {
	db *sql.DB
}

// Tables hands the component registered at Open under name its handle; a
// name not registered (its migrations not applied) is an error.
func (s *Store) Tables(name string) (*Tables, error) {
	if !s.components[name] {
		return nil, fmt.Errorf("run store %s: component %q was not registered at Open", s.path, name)
	}
	return &Tables{db: s.db}, nil
}

// ExecContext runs a statement that returns no rows.
func (t *Tables) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return t.db.ExecContext(ctx, query, args...)
}

// QueryContext runs a query that returns rows.
func (t *Tables) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return t.db.QueryContext(ctx, query, args...)
}

// QueryRowContext runs a query that returns at most one row.
func (t *Tables) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return t.db.QueryRowContext(ctx, query, args...)
}

// BeginTx starts a transaction, a write one (BEGIN IMMEDIATE) unless
// opts.ReadOnly.
func (t *Tables) BeginTx(ctx context.Context, opts *sql.TxOptions) (*sql.Tx, error) {
	return t.db.BeginTx(ctx, opts)
}
