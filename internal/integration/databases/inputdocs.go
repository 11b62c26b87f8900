package databases

// InputDocs are docs/SPEC.md's rules of query_mysql's input members beyond
// what its schema generates (internal/specref writes the table).
func (Source) InputDocs() map[string]string {
	return map[string]string{
		"database": "a configured database; optional when only one is configured",
		"sql":      "one read-only statement (SELECT, SHOW, DESCRIBE, EXPLAIN); at most 4096 bytes, valid UTF-8",
		"max_rows": "1–100, default 20; also capped by the database's `max_rows`",
	}
}

// InputDocs are docs/SPEC.md's rules of query_postgres's input members beyond
// what its schema generates (internal/specref writes the table).
func (Postgres) InputDocs() map[string]string {
	return map[string]string{
		"database": "a configured PostgreSQL database; optional when only one is configured",
		"sql":      "one read-only PostgreSQL statement: `SELECT` (joins, aggregates, window functions, CTEs, subqueries, set operations), `VALUES`, `TABLE`, `SHOW`, or `EXPLAIN` without `ANALYZE`; at most 4096 bytes, valid UTF-8",
		"max_rows": "1–100, default 20; also capped by the database's `max_rows`",
	}
}
