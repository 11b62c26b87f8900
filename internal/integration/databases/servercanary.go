package databases

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/superbiz/superbiz/internal/canary"
	"github.com/superbiz/superbiz/internal/integration"
	"github.com/superbiz/superbiz/internal/localserver"
)

// The variables the canary hooks read the test servers from (.ci/mariadb.sh
// and .ci/postgres.sh export them): an account that may create and drop
// the canary databases, and the read-only account the tool reads them as.
const (
	EnvMySQLAdmin    = "SUPERBIZ_TEST_MYSQL_ADMIN_DSN"
	EnvMySQL         = "SUPERBIZ_TEST_MYSQL_DSN"
	EnvPostgresAdmin = "SUPERBIZ_TEST_POSTGRES_ADMIN_DSN"
	EnvPostgres      = "SUPERBIZ_TEST_POSTGRES_READER_DSN"
)

// canaryTimeout bounds planting in and dropping a server's canary database.
const canaryTimeout = 30 * time.Second

// serverDSNs reads the admin and reader DSNs of a test server; an unset one
// is an error wrapping localserver.ErrMissing naming the script.
func serverDSNs(admin, reader, script string) (string, string, error) {
	a, r := os.Getenv(admin), os.Getenv(reader)
	if a == "" || r == "" {
		return "", "", fmt.Errorf("%w: %s and %s are not set (source %s)", localserver.ErrMissing, admin, reader, script)
	}
	return a, r, nil
}

// canaryDatabase is a fresh database name, canary_ and 12 hex digits: the
// suite never plants into a database other tests read (their checksums).
func canaryDatabase() (string, error) {
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("name the canary database: %w", err)
	}
	return "canary_" + hex.EncodeToString(b), nil
}

// plantMariaDB creates a canary database on the MariaDB server CI starts
// and plants lines in a TEXT cell, a BLOB cell, a JSON document and the
// value of a key/value row whose key names a secret, and each line's bare
// secret in a password column, also read through a view that renames it
// (only the column's name and the view's body make those secrets); the
// TOML entry reads it as the read-only account, stop drops it.
func plantMariaDB(entry string, lines []string) (toml string, stop func() error, err error) {
	adminDSN, readerDSN, err := serverDSNs(EnvMySQLAdmin, EnvMySQL, ".ci/mariadb.sh")
	if err != nil {
		return "", nil, err
	}
	name, err := canaryDatabase()
	if err != nil {
		return "", nil, err
	}
	withDB := func(dsn, db string) (string, error) {
		c, err := mysql.ParseDSN(dsn)
		if err != nil {
			return "", fmt.Errorf("plant canaries: MariaDB DSN: %w", err)
		}
		c.DBName = db
		return c.FormatDSN(), nil
	}
	admin, err := withDB(adminDSN, "")
	if err != nil {
		return "", nil, err
	}
	reader, err := withDB(readerDSN, name)
	if err != nil {
		return "", nil, err
	}
	db, err := sql.Open("mysql", admin)
	if err != nil {
		return "", nil, fmt.Errorf("plant canaries: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), canaryTimeout)
	defer cancel()
	stop = func() error {
		ctx, cancel := context.WithTimeout(context.Background(), canaryTimeout)
		defer cancel()
		_, err := db.ExecContext(ctx, "DROP DATABASE IF EXISTS `"+name+"`")
		return errors.Join(err, db.Close())
	}
	exec := func(q string, args ...any) error {
		if _, err := db.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("plant canaries in MariaDB: %w", err)
		}
		return nil
	}
	if err := exec("CREATE DATABASE `" + name + "` CHARACTER SET utf8mb4"); err != nil {
		return "", nil, errors.Join(err, db.Close())
	}
	for _, q := range []string{
		"CREATE TABLE `" + name + "`.notes (id INT PRIMARY KEY, body TEXT, raw BLOB, doc JSON)",
		"CREATE TABLE `" + name + "`.settings (name VARCHAR(64), value TEXT)",
		"CREATE TABLE `" + name + "`.vault (id INT PRIMARY KEY, password TEXT)",
		"CREATE VIEW `" + name + "`.vault_view AS SELECT id, password AS pw FROM `" + name + "`.vault",
	} {
		if err := exec(q); err != nil {
			return "", nil, errors.Join(err, stop())
		}
	}
	for i, l := range lines {
		doc, err := json.Marshal(map[string]any{"note": l, "n": i})
		if err != nil {
			return "", nil, errors.Join(err, stop())
		}
		if err := exec("INSERT INTO `"+name+"`.notes VALUES (?, ?, ?, ?)", i, l, []byte(l), string(doc)); err != nil {
			return "", nil, errors.Join(err, stop())
		}
		if err := exec("INSERT INTO `"+name+"`.settings VALUES (?, ?)", fmt.Sprintf("smtp_password_%d", i), l); err != nil {
			return "", nil, errors.Join(err, stop())
		}
	}
	for i, secret := range canary.Secrets(lines) {
		if err := exec("INSERT INTO `"+name+"`.vault VALUES (?, ?)", i, secret); err != nil {
			return "", nil, errors.Join(err, stop())
		}
	}
	return fmt.Sprintf("[[databases]]\nname = %q\ndriver = \"mysql\"\ndsn = %q\n", entry, reader), stop, nil
}

// plantPostgres creates a canary database on the PostgreSQL cluster CI
// starts and plants lines in a text cell, a bytea cell, a jsonb and a json
// document and the value of a key/value row whose key names a secret; the
// TOML entry reads it as the pg_read_all_data role, stop drops it.
func plantPostgres(entry string, lines []string) (toml string, stop func() error, err error) {
	adminDSN, readerDSN, err := serverDSNs(EnvPostgresAdmin, EnvPostgres, ".ci/postgres.sh")
	if err != nil {
		return "", nil, err
	}
	name, err := canaryDatabase()
	if err != nil {
		return "", nil, err
	}
	withDB := func(dsn string) (string, error) {
		u, err := url.Parse(dsn)
		if err != nil {
			return "", fmt.Errorf("plant canaries: PostgreSQL DSN: %w", err)
		}
		u.Path = "/" + name
		return u.String(), nil
	}
	canaryAdmin, err := withDB(adminDSN)
	if err != nil {
		return "", nil, err
	}
	reader, err := withDB(readerDSN)
	if err != nil {
		return "", nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), canaryTimeout)
	defer cancel()
	server, err := pgconn.Connect(ctx, adminDSN)
	if err != nil {
		return "", nil, fmt.Errorf("plant canaries in PostgreSQL: %w", err)
	}
	stop = func() error {
		ctx, cancel := context.WithTimeout(context.Background(), canaryTimeout)
		defer cancel()
		_, err := server.Exec(ctx, `DROP DATABASE IF EXISTS "`+name+`" WITH (FORCE)`).ReadAll()
		return errors.Join(err, server.Close(ctx))
	}
	if _, err := server.Exec(ctx, `CREATE DATABASE "`+name+`"`).ReadAll(); err != nil {
		return "", nil, errors.Join(fmt.Errorf("plant canaries in PostgreSQL: %w", err), server.Close(ctx))
	}
	db, err := pgconn.Connect(ctx, canaryAdmin)
	if err != nil {
		return "", nil, errors.Join(fmt.Errorf("plant canaries in PostgreSQL: %w", err), stop())
	}
	defer db.Close(ctx)
	if _, err := db.Exec(ctx, `CREATE TABLE notes (id INT PRIMARY KEY, body TEXT, raw BYTEA, doc JSONB, j JSON);
		CREATE TABLE settings (name TEXT, value TEXT)`).ReadAll(); err != nil {
		return "", nil, errors.Join(fmt.Errorf("plant canaries in PostgreSQL: %w", err), stop())
	}
	for i, l := range lines {
		doc, err := json.Marshal(map[string]any{"note": l, "n": i})
		if err != nil {
			return "", nil, errors.Join(err, stop())
		}
		args := [][]byte{[]byte(fmt.Sprint(i)), []byte(l), []byte(l), doc, doc}
		if rr := db.ExecParams(ctx, "INSERT INTO notes VALUES ($1::int, $2, convert_to($3, 'UTF8'), $4::jsonb, $5::json)", args, nil, nil, nil).Read(); rr.Err != nil {
			return "", nil, errors.Join(fmt.Errorf("plant canaries in PostgreSQL: %w", rr.Err), stop())
		}
		kv := [][]byte{[]byte(fmt.Sprintf("smtp_password_%d", i)), []byte(l)}
		if rr := db.ExecParams(ctx, "INSERT INTO settings VALUES ($1, $2)", kv, nil, nil, nil).Read(); rr.Err != nil {
			return "", nil, errors.Join(fmt.Errorf("plant canaries in PostgreSQL: %w", rr.Err), stop())
		}
	}
	return fmt.Sprintf("[[databases]]\nname = %q\ndriver = \"postgres\"\ndsn = %q\n", entry, reader), stop, nil
}

// sqlCall is a query_mysql or query_postgres input reading database.
func sqlCall(database, statement string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"database": database, "sql": statement, "max_rows": 100})
	return b
}

// cellCalls are the calls reading every planted cell of database, and, with
// a quoting statement (a format taking the row's id), one call per line whose
// error the server writes quoting the cell.
func cellCalls(database string, n int, quoting string) []json.RawMessage {
	out := []json.RawMessage{
		sqlCall(database, "SELECT * FROM notes ORDER BY id"),
		sqlCall(database, "SELECT name, value FROM settings"),
	}
	for i := 0; quoting != "" && i < n; i++ {
		out = append(out, sqlCall(database, fmt.Sprintf(quoting, i)))
	}
	return out
}

// The statements that make each server quote a planted cell in an error:
// PostgreSQL's cast (`invalid input syntax for type integer: "…"`), and
// MariaDB's recursive CTE whose INT column the cell is stored into
// (`Incorrect integer value: '…' for column …`; a plain cast is only a
// warning there).
const (
	pgQuoting      = "SELECT body::int FROM notes WHERE id = %d"
	mariadbQuoting = "WITH RECURSIVE c(n, d) AS (SELECT 1, 0 UNION ALL SELECT body, d + 1 FROM c JOIN notes ON notes.id = %d WHERE d < 1) SELECT n FROM c"
	// vaultQuoting quotes a bare secret of the password column.
	vaultQuoting = "WITH RECURSIVE c(n, d) AS (SELECT 1, 0 UNION ALL SELECT password, d + 1 FROM c JOIN vault ON vault.id = %d WHERE d < 1) SELECT n FROM c"
)

// vaultCalls read the bare secrets of plantMariaDB's password column: by
// the column, through the view that renames it, and quoted by the server
// in an error, one call per line.
func vaultCalls(database string, n int) []json.RawMessage {
	out := []json.RawMessage{
		sqlCall(database, "SELECT id, password FROM vault ORDER BY id"),
		sqlCall(database, "SELECT id, pw FROM vault_view ORDER BY id"),
	}
	for i := range n {
		out = append(out, sqlCall(database, fmt.Sprintf(vaultQuoting, i)))
	}
	return out
}

// PlantCanaries creates a database of its own on the PostgreSQL cluster CI
// starts (.ci/postgres.sh) and plants lines in every cell type (text,
// bytea, jsonb, json, a key/value row); the calls read them back as the
// pg_read_all_data role, and make the server quote each text cell in an
// error. Stop drops the database.
func (Postgres) PlantCanaries(_ string, lines []string) (p integration.Planted, err error) {
	toml, stop, err := plantPostgres("canary", lines)
	if err != nil {
		return p, err
	}
	return integration.Planted{Config: toml, Calls: cellCalls("canary", len(lines), pgQuoting), Stop: stop}, nil
}
