package sqlquery

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// PostgresRights is what doctor reads of a PostgreSQL role: its attributes,
// its memberships in the predefined roles that reach past reading, and the
// tables it may write.
type PostgresRights struct {
	Superuser, CreateRole, CreateDB, BypassRLS bool
	// Roles are the predefined roles held (directly or through others)
	// among pgRiskyRoles.
	Roles []string
	// WritableTables counts the tables outside the system schemas the role
	// may INSERT, UPDATE, DELETE or TRUNCATE; Writable names the first few.
	WritableTables int
	Writable       []string
}

// pgRiskyRoles are the predefined roles that let a member write, run
// programs or read files on the server, or stop other sessions.
var pgRiskyRoles = map[string]string{
	"pg_write_all_data":         "can write every table",
	"pg_execute_server_program": "can run programs on the server (COPY … TO PROGRAM)",
	"pg_write_server_files":     "can write files on the server",
	"pg_read_server_files":      "can read any file on the server",
	"pg_signal_backend":         "can cancel and terminate other sessions",
}

// pgRecommendation is the role doctor recommends.
const pgRecommendation = "use a role with pg_read_all_data or SELECT grants only"

// Warnings says, one line per finding, what the role can do beyond
// reading; none means a read-only role, the real boundary the guard and the
// READ ONLY transaction only back up. Every finding that lets it change
// data says "can write".
func (r PostgresRights) Warnings() []string {
	var w []string
	if r.Superuser {
		w = append(w, "the role is a superuser: it can write every table, run programs on the server (COPY … TO PROGRAM) and read its files; "+pgRecommendation)
	}
	if r.CreateRole {
		w = append(w, "the role has CREATEROLE: it can create roles and grant itself their rights, so it can write; "+pgRecommendation)
	}
	if r.CreateDB {
		w = append(w, "the role has CREATEDB: it can create databases; "+pgRecommendation)
	}
	if r.BypassRLS {
		w = append(w, "the role has BYPASSRLS: row-level security does not limit what it reads; "+pgRecommendation)
	}
	for _, role := range r.Roles {
		w = append(w, fmt.Sprintf("the role is a member of %s: it %s; %s", role, pgRiskyRoles[role], pgRecommendation))
	}
	if r.WritableTables > 0 {
		more := ""
		if r.WritableTables > len(r.Writable) {
			more = ", …"
		}
		w = append(w, fmt.Sprintf("the role can write: INSERT, UPDATE, DELETE or TRUNCATE on %d table(s) (%s%s); %s",
			r.WritableTables, strings.Join(r.Writable, ", "), more, pgRecommendation))
	}
	return w
}

// pgRightsQueries read PostgresRights; each is our own fixed statement.
const (
	pgAttributesQuery = "SELECT rolsuper, rolcreaterole, rolcreatedb, rolbypassrls FROM pg_catalog.pg_roles WHERE rolname = current_user"
	pgRolesQuery      = "SELECT g.rolname FROM pg_catalog.pg_roles g WHERE g.rolname IN ('pg_write_all_data', 'pg_execute_server_program', " +
		"'pg_write_server_files', 'pg_read_server_files', 'pg_signal_backend') AND pg_catalog.pg_has_role(current_user, g.oid, 'USAGE') ORDER BY g.rolname"
	pgWritableQuery = "SELECT n.nspname || '.' || c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace " +
		"WHERE c.relkind IN ('r', 'p', 'f') AND n.nspname <> 'information_schema' AND n.nspname NOT LIKE 'pg\\_%' " +
		"AND pg_catalog.has_table_privilege(c.oid, 'INSERT, UPDATE, DELETE, TRUNCATE') ORDER BY 1"
)

// pgWritableShown bounds the writable tables doctor names.
const pgWritableShown = 3

// postgresRights connects as the configured role and reads its rights.
func (h *handle) postgresRights(ctx context.Context) (PostgresRights, error) {
	conn, err := pgconn.ConnectConfig(ctx, h.pgcfg)
	if err != nil {
		return PostgresRights{}, &unavailableError{where: h.where(), err: err}
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var r PostgresRights
	attrs := conn.ExecParams(ctx, pgAttributesQuery, nil, nil, nil, nil).Read()
	if err := attrs.Err; err != nil {
		return r, fmt.Errorf("%s: read the role's attributes: %w", h.where(), err)
	}
	if len(attrs.Rows) != 1 {
		return r, fmt.Errorf("%s: the role's attributes: %d rows for current_user", h.where(), len(attrs.Rows))
	}
	row := attrs.Rows[0]
	r.Superuser, r.CreateRole, r.CreateDB, r.BypassRLS = pgTrue(row[0]), pgTrue(row[1]), pgTrue(row[2]), pgTrue(row[3])
	roles := conn.ExecParams(ctx, pgRolesQuery, nil, nil, nil, nil).Read()
	if err := roles.Err; err != nil {
		return r, fmt.Errorf("%s: read the role's memberships: %w", h.where(), err)
	}
	for _, row := range roles.Rows {
		if !r.Superuser { // a superuser is a member of every role
			r.Roles = append(r.Roles, string(row[0]))
		}
	}
	tables := conn.ExecParams(ctx, pgWritableQuery, nil, nil, nil, nil).Read()
	if err := tables.Err; err != nil {
		return r, fmt.Errorf("%s: read the role's table privileges: %w", h.where(), err)
	}
	r.WritableTables = len(tables.Rows)
	for i, row := range tables.Rows {
		if i == pgWritableShown {
			break
		}
		r.Writable = append(r.Writable, strconv.Quote(string(row[0])))
	}
	return r, nil
}

func pgTrue(v []byte) bool { return string(v) == "t" }

// pingPostgres opens a connection and runs SELECT 1.
func (h *handle) pingPostgres(ctx context.Context) error {
	conn, err := pgconn.ConnectConfig(ctx, h.pgcfg)
	if err != nil {
		return &unavailableError{where: h.where(), err: err}
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if err := conn.ExecParams(ctx, "SELECT 1", nil, nil, nil, nil).Read().Err; err != nil {
		return h.pgFailure(ctx, err)
	}
	return nil
}
