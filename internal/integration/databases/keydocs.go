package databases

import "github.com/superbiz/superbiz/internal/config"

// keyDocs describe the table's keys in docs/SPEC.md's generated Keys table.
func keyDocs() map[string]config.KeyDoc {
	return map[string]config.KeyDoc{
		"databases[].name":     {Default: "required", Accepted: "as `logs[].name`; unique"},
		"databases[].driver":   {Default: "required", Accepted: "`mysql` (MySQL and MariaDB) or `sqlite`, read by `query_mysql`; `postgres`, read by `query_postgres`"},
		"databases[].dsn":      {Default: "required", Accepted: "go-sql-driver DSN for `mysql`, a libpq URL (`postgres://user:password@host:5432/db?sslmode=require`) or keyword DSN (`host=… user=… password=… dbname=…`) for `postgres` (`sslmode`, `sslrootcert` and the other libpq parameters pass through; the TLS files it names must be readable at load), a file path for `sqlite`; its password (and a `postgres` `sslpassword`) never appears in output, logs, prompts or the run store"},
		"databases[].max_rows": {Accepted: ": cap on every answer from this database"},
		"databases[].timeout":  {Accepted: ": limit of one statement"},
	}
}
