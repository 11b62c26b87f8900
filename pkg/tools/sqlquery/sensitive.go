package sqlquery

import (
	"strings"
	"sync"

	"github.com/superbiz/superbiz/pkg/egress"
	"vitess.io/vitess/go/vt/sqlparser"
)

// Why a table, or some of its columns, may not be read: the account's
// password hashes and stored credentials, and the statements other sessions
// run (they carry literal values: SET PASSWORD, CREATE USER … IDENTIFIED BY,
// an application's tokens in a WHERE clause). These reads are refused by
// default whatever the account may do, consistent with SHOW GRANTS output
// being masked before it is shown.
const (
	whyPasswordHashes    = "holds account password hashes (authentication_string)"
	whyStoredCredentials = "holds stored connection passwords"
	whyStatementLog      = "holds other sessions' statement text"
	whyNotListed         = "is not on the list of mysql schema tables without credentials or statement text"
	whyStatementColumns  = "other sessions' statement text"
	whyDefinitions       = "stored object definitions, whose routine, view, trigger or event bodies can hold credentials"
)

// definitionColumns are the information_schema tables that show stored
// object definitions, with the columns that hold the body; names,
// schemas, timing and the other columns stay readable.
var definitionColumns = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"routines": {"routine_definition"},
		"views":    {"view_definition"},
		"triggers": {"action_statement", "action_condition"},
		"events":   {"event_definition"},
	}
})

// mysqlSchemaReadable are the mysql schema tables a diagnosis may read: the
// statistics, time zone, help and privilege tables (grants are shown by SHOW
// GRANTS too; none of these hold a password or a statement). Every other
// mysql table is refused: the schema holds credentials, logs of statements
// and stored routine bodies, and a table added by a later server version is
// refused until it is listed here.
var mysqlSchemaReadable = sync.OnceValue(func() map[string]bool {
	return setOf(
		"innodb_table_stats", "innodb_index_stats", "table_stats", "column_stats", "index_stats",
		"time_zone", "time_zone_name", "time_zone_transition", "time_zone_transition_type", "time_zone_leap_second",
		"help_topic", "help_category", "help_relation", "help_keyword",
		"db", "tables_priv", "columns_priv", "procs_priv", "proxies_priv", "roles_mapping",
		"role_edges", "default_roles", "global_grants",
	)
})

// mysqlSchemaWhy names the reason for the mysql tables known to hold secrets.
var mysqlSchemaWhy = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"user":                whyPasswordHashes,
		"global_priv":         whyPasswordHashes,
		"password_history":    whyPasswordHashes,
		"servers":             whyStoredCredentials,
		"slave_master_info":   whyStoredCredentials,
		"replica_master_info": whyStoredCredentials,
		"general_log":         whyStatementLog,
		"slow_log":            whyStatementLog,
		"innodb_ddl_log":      whyStatementLog,
	}
})

// statementColumns are the tables that show other sessions' statements, with
// the columns that hold the text. The other columns (user, host, state, time,
// counters) are what a diagnosis needs and stay readable; naming one of these
// columns anywhere in the statement, or a star, is refused.
var statementColumns = sync.OnceValue(func() map[string]map[string][]string {
	return map[string]map[string][]string{
		"information_schema": {
			"processlist":      {"info", "info_binary"},
			"innodb_trx":       {"trx_query"},
			"query_cache_info": {"statement_text"},
		},
		"performance_schema": {
			"threads":                        {"processlist_info"},
			"processlist":                    {"info"},
			"prepared_statements_instances":  {"sql_text"},
			"events_statements_current":      {"sql_text", "digest_text", "query_sample_text"},
			"events_statements_history":      {"sql_text", "digest_text", "query_sample_text"},
			"events_statements_history_long": {"sql_text", "digest_text", "query_sample_text"},
		},
	}
})

// statementTablePrefixes extends statementColumns() to table families.
var statementTablePrefixes = sync.OnceValue(func() map[string]map[string][]string {
	return map[string]map[string][]string{
		"performance_schema": {"events_statements_summary_": {"digest_text", "query_sample_text"}},
		"sys": {
			"processlist":             {"current_statement", "last_statement"},
			"session":                 {"current_statement", "last_statement"},
			"statement":               {"query", "digest_text", "query_sample_text"},
			"innodb_lock_waits":       {"waiting_query", "blocking_query"},
			"schema_table_lock_waits": {"waiting_query", "blocking_query"},
		},
	}
})

// sensitiveRef is one table of the statement that needs care.
type sensitiveRef struct {
	table   string   // schema.name as written to the user
	why     string   // table-level refusal reason; "" when only columns are sensitive
	columns []string // columns that may not be named or expanded by a star
	holds   string   // what the columns hold, for the refusal
}

// tableRef classifies one table read by the statement; schema is the
// default schema of the connection, used for an unqualified name.
func tableRef(t sqlparser.TableName, schema string) (sensitiveRef, bool) {
	q := strings.ToLower(t.Qualifier.String())
	if q == "" {
		q = strings.ToLower(schema)
	}
	name := strings.ToLower(t.Name.String())
	full := q + "." + name
	switch q {
	case "mysql":
		if mysqlSchemaReadable()[name] {
			return sensitiveRef{}, false
		}
		why, ok := mysqlSchemaWhy()[name]
		if !ok {
			why = whyNotListed
		}
		return sensitiveRef{table: full, why: why}, true
	case "information_schema", "performance_schema", "sys":
		if cols, ok := definitionColumns()[name]; ok && q == "information_schema" {
			return sensitiveRef{table: full, columns: cols, holds: whyDefinitions}, true
		}
		if cols, ok := statementColumns()[q][name]; ok {
			return sensitiveRef{table: full, columns: cols, holds: whyStatementColumns}, true
		}
		bare := strings.TrimPrefix(name, "x$")
		for prefix, cols := range statementTablePrefixes()[q] {
			if strings.HasPrefix(bare, prefix) {
				return sensitiveRef{table: full, columns: cols, holds: whyStatementColumns}, true
			}
		}
	}
	return sensitiveRef{}, false
}

// checkSensitive refuses reads of credential tables and of other sessions'
// statement text. It sees every table the statement reads (joins, subqueries,
// unions, CTEs), qualified or not; column-level tables are refused when the
// statement names one of their text columns anywhere (select list, WHERE,
// ORDER BY, a derived table), expands a star, joins NATURAL or USING the
// column: every way the text could reach a result or be probed.
func checkSensitive(stmt sqlparser.Statement, schema string) error {
	var refs []sensitiveRef
	columns := map[string]bool{}
	star, natural := false, false
	_ = sqlparser.Walk(func(node sqlparser.SQLNode) (bool, error) {
		switch n := node.(type) {
		case *sqlparser.AliasedTableExpr:
			if t, ok := n.Expr.(sqlparser.TableName); ok {
				if r, ok := tableRef(t, schema); ok {
					refs = append(refs, r)
				}
			}
		case *sqlparser.ColName:
			columns[n.Name.Lowered()] = true
		case *sqlparser.StarExpr:
			star = true
		case *sqlparser.JoinTableExpr:
			switch n.Join {
			case sqlparser.NaturalJoinType, sqlparser.NaturalLeftJoinType, sqlparser.NaturalRightJoinType:
				natural = true
			}
		case *sqlparser.JoinCondition:
			for _, c := range n.Using {
				columns[c.Lowered()] = true
			}
		}
		return true, nil
	}, stmt)
	for _, r := range refs {
		if r.why != "" {
			return refuse(ReasonNotAllowed, egress.Sprintf("%s %s; reading it is not allowed", r.table, r.why))
		}
		for _, c := range r.columns {
			if columns[c] {
				return refuse(ReasonNotAllowed, egress.Sprintf("column %s of %s holds %s; reading it is not allowed; name the other columns you need", c, r.table, r.holds))
			}
		}
		if star {
			return refuse(ReasonNotAllowed, egress.Sprintf("a * over %s would return %s (%s): name the columns you need", r.table, strings.Join(r.columns, ", "), r.holds))
		}
		if natural {
			return refuse(ReasonNotAllowed, egress.Sprintf("a NATURAL join with %s compares %s (%s): join ON named columns", r.table, strings.Join(r.columns, ", "), r.holds))
		}
	}
	return nil
}
