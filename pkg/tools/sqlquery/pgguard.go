package sqlquery

import (
	"fmt"
	"strings"
	"sync"

	pgq "github.com/pganalyze/pg_query_go/v6"
	"github.com/superbiz/superbiz/pkg/egress"
	pgquery "github.com/wasilibs/go-pgquery"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// PostgresChecked is an admitted PostgreSQL statement: its kind, its parse
// tree, and libpg_query's deparse of that tree, which is the only text ever
// sent to the server.
type PostgresChecked struct {
	Kind     Kind
	Rendered string
	tree     *pgq.ParseResult
}

// CheckPostgres is query_postgres's first read-only layer: a pure function
// that parses sql with libpg_query (PostgreSQL's own grammar) and admits
// exactly one SELECT, VALUES, TABLE, SHOW or EXPLAIN (without ANALYZE) whose
// whole tree is made of node types known to be side-effect free, calling only
// allowlisted built-in functions and operators and casting only to built-in
// types, and reading no credential or other sessions' statement text. It
// returns the deparsed statement; anything else, including anything the
// parser cannot read, is a *Refusal.
func CheckPostgres(sql string) (string, error) {
	c, err := checkPostgres(sql)
	if err != nil {
		return "", err
	}
	return c.Rendered, nil
}

func checkPostgres(sql string) (*PostgresChecked, error) {
	if err := checkText(sql); err != nil {
		return nil, err
	}
	tree, err := safePGParse(sql)
	if err != nil {
		return nil, refuse(ReasonUnparsable, egress.Sprintf("%s", firstLine(err.Error())))
	}
	if n := len(tree.GetStmts()); n != 1 {
		return nil, refuse(ReasonUnparsable, egress.Sprintf("exactly one statement is admitted, got %d", n))
	}
	stmt := tree.GetStmts()[0].GetStmt()
	kind, err := admitPGTop(stmt)
	if err != nil {
		return nil, err
	}
	if err := walkPG(stmt.ProtoReflect()); err != nil {
		return nil, err
	}
	if err := checkPGSensitive(stmt); err != nil {
		return nil, err
	}
	rendered, err := safePGDeparse(tree)
	if err != nil {
		return nil, refuse(ReasonUnparsable, egress.Sprintf("%v", err))
	}
	return &PostgresChecked{Kind: kind, Rendered: rendered, tree: tree}, nil
}

// safePGParse parses with libpg_query, turning a panic of the WebAssembly
// runtime into an error: what the parser cannot read is refused, never a crash.
func safePGParse(sql string) (tree *pgq.ParseResult, err error) {
	defer func() {
		if r := recover(); r != nil {
			tree, err = nil, fmt.Errorf("the PostgreSQL parser failed on this input: %v", r)
		}
	}()
	pgParserLoaded()
	return pgquery.Parse(sql)
}

// pgParserLoaded makes the first parse of the process happen once: it
// compiles libpg_query's WebAssembly (about 3 s on an idle 2-core machine),
// and go-pgquery compiles a new instance for every parse that finds none
// free, so calls arriving meanwhile wait for this one instead of each
// compiling their own.
var pgParserLoaded = sync.OnceFunc(func() { _, _ = pgquery.Parse("SELECT 1") })

func safePGDeparse(tree *pgq.ParseResult) (out string, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = "", fmt.Errorf("the PostgreSQL deparser failed on this statement: %v", r)
		}
	}()
	out, err = pgquery.Deparse(tree)
	if err != nil {
		return "", fmt.Errorf("deparse the admitted statement: %w", err)
	}
	return out, nil
}

// admitPGTop admits the statement kinds: SELECT (VALUES and TABLE parse as
// SELECT too), SHOW of a setting not named like a secret, and EXPLAIN of a
// SELECT without ANALYZE.
func admitPGTop(stmt *pgq.Node) (Kind, error) {
	switch {
	case stmt.GetSelectStmt() != nil:
		return KindSelect, nil
	case stmt.GetVariableShowStmt() != nil:
		name := stmt.GetVariableShowStmt().GetName()
		if egress.SecretName(name) || pgSecretSettings()[strings.ToLower(name)] {
			return "", refuse(ReasonNotAllowed, egress.Sprintf("setting %s is named like a secret; reading it is not allowed", name))
		}
		return KindShow, nil
	case stmt.GetExplainStmt() != nil:
		ex := stmt.GetExplainStmt()
		for _, o := range ex.GetOptions() {
			name := strings.ToLower(o.GetDefElem().GetDefname())
			if name == "analyze" || name == "analyse" {
				return "", refuse(ReasonExplainKind, egress.Sprintf("EXPLAIN ANALYZE executes the statement"))
			}
			if name == "verbose" && pgOptionOn(o.GetDefElem()) {
				return "", refuse(ReasonNotAllowed, egress.Sprintf("EXPLAIN VERBOSE prints %s; reading it is not allowed; EXPLAIN without VERBOSE shows the plan", whyPGBodies))
			}
			if name == "verbose" {
				continue
			}
			if !pgExplainOptions()[name] {
				return "", refuse(ReasonExplainKind, egress.Sprintf("EXPLAIN option %s is not admitted", name))
			}
		}
		if ex.GetQuery().GetSelectStmt() == nil {
			return "", refuse(ReasonExplainKind, egress.Sprintf("EXPLAIN is admitted only for SELECT, not %s", pgStmtName(ex.GetQuery())))
		}
		return KindExplain, nil
	}
	return "", refuse(ReasonStatementKind, egress.Sprintf("%s is not a read: only SELECT, VALUES, TABLE, SHOW and EXPLAIN are admitted", pgStmtName(stmt)))
}

// pgOptionOn reports whether an EXPLAIN option is switched on: bare
// (VERBOSE) or with a value other than false, off or 0.
func pgOptionOn(d *pgq.DefElem) bool {
	arg := d.GetArg()
	if arg == nil {
		return true
	}
	if b := arg.GetBoolean(); b != nil {
		return b.GetBoolval()
	}
	if i := arg.GetInteger(); i != nil {
		return i.GetIval() != 0
	}
	v := strings.ToLower(arg.GetString_().GetSval())
	return v != "false" && v != "off" && v != "0" && v != "no"
}

// pgSecretSettings are server settings whose value can hold a secret
// although their name does not say so to redact.IsSecretKey.
var pgSecretSettings = sync.OnceValue(func() map[string]bool {
	return setOf("ssl_passphrase_command", "primary_conninfo", "archive_command", "restore_command",
		"archive_cleanup_command", "recovery_end_command")
})

// pgExplainOptions are the EXPLAIN options that only change how the plan is
// shown; ANALYZE (which runs the statement) is refused before this list,
// VERBOSE (which prints view and SQL-function bodies, literals included, as
// each node's output) is refused as NOT_ALLOWED.
var pgExplainOptions = sync.OnceValue(func() map[string]bool {
	return setOf("costs", "settings", "format", "summary", "generic_plan")
})

// pgStmtName names a statement node for a refusal: "InsertStmt" → "INSERT".
func pgStmtName(n *pgq.Node) string {
	if n == nil || n.GetNode() == nil {
		return "an empty statement"
	}
	m := n.ProtoReflect()
	od := m.WhichOneof(m.Descriptor().Oneofs().Get(0))
	if od == nil {
		return "an empty statement"
	}
	name := string(od.Message().Name())
	return strings.ToUpper(strings.TrimSuffix(name, "Stmt"))
}

// walkPG visits every message of the tree and refuses any message type not
// known to be side-effect free: a node type the guard has not reviewed, from
// this parser version or a later one, fails closed.
func walkPG(m protoreflect.Message) error {
	if err := visitPG(m); err != nil {
		return err
	}
	var err error
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Kind() != protoreflect.MessageKind && fd.Kind() != protoreflect.GroupKind {
			return true
		}
		switch {
		case fd.IsList():
			l := v.List()
			for i := 0; i < l.Len() && err == nil; i++ {
				err = walkPG(l.Get(i).Message())
			}
		case fd.IsMap():
			err = refuse(ReasonConstruct, egress.Sprintf("%s is not admitted in a read-only query", fd.Message().Name()))
		default:
			err = walkPG(v.Message())
		}
		return err == nil
	})
	return err
}

// visitPG judges one message of the tree.
func visitPG(m protoreflect.Message) error {
	switch n := m.Interface().(type) {
	case *pgq.SelectStmt:
		if n.GetIntoClause() != nil {
			return refuse(ReasonInto, egress.Sprintf("SELECT … INTO creates a table: it is not admitted"))
		}
		if len(n.GetLockingClause()) > 0 {
			return refuse(ReasonLock, egress.Sprintf("locking read (FOR UPDATE / FOR SHARE) is not admitted"))
		}
		return nil
	case *pgq.FuncCall:
		name, ok := pgBuiltinName(n.GetFuncname())
		if !ok {
			return refuse(ReasonFunction, egress.Sprintf("function %s() is not a built-in: user-defined and other schemas' functions may write", pgDottedName(n.GetFuncname())))
		}
		if why, ok := pgNotAllowedFunctions()[name]; ok {
			return refuse(ReasonNotAllowed, egress.Sprintf("%s() returns %s; reading it is not allowed", name, why))
		}
		if !pgFunctions()[name] {
			return refuse(ReasonFunction, egress.Sprintf("function %s() is not on the allowlist of side-effect-free functions", name))
		}
		return nil
	case *pgq.TypeName:
		name, ok := pgBuiltinName(n.GetNames())
		if !ok || !pgTypes()[name] {
			return refuse(ReasonConstruct, egress.Sprintf("type %s is not on the list of built-in types a cast may name (a user-defined type or cast runs its own functions)", pgDottedName(n.GetNames())))
		}
		return nil
	case *pgq.A_Expr:
		if !pgExprKinds()[n.GetKind()] {
			return refuse(ReasonConstruct, egress.Sprintf("expression %s is not admitted", strings.TrimPrefix(n.GetKind().String(), "AEXPR_")))
		}
		name, ok := pgOperatorName(n.GetName())
		if !ok || !pgOperators()[name] {
			return refuse(ReasonFunction, egress.Sprintf("operator %s is not on the allowlist of built-in operators (a user-defined operator runs its own function)", pgDottedName(n.GetName())))
		}
		return nil
	case *pgq.SortBy:
		if len(n.GetUseOp()) > 0 {
			if name, ok := pgOperatorName(n.GetUseOp()); !ok || !pgOperators()[name] {
				return refuse(ReasonFunction, egress.Sprintf("ORDER BY … USING %s is not on the allowlist of built-in operators", pgDottedName(n.GetUseOp())))
			}
		}
		return nil
	case *pgq.SubLink:
		if len(n.GetOperName()) > 0 {
			if name, ok := pgOperatorName(n.GetOperName()); !ok || !pgOperators()[name] {
				return refuse(ReasonFunction, egress.Sprintf("operator %s is not on the allowlist of built-in operators", pgDottedName(n.GetOperName())))
			}
		}
		return nil
	case *pgq.ParamRef:
		return refuse(ReasonConstruct, egress.Sprintf("bind parameters ($%d) are not admitted: write literal values", n.GetNumber()))
	case *pgq.CommonTableExpr:
		if n.GetCtequery().GetSelectStmt() == nil {
			return refuse(ReasonStatementKind, egress.Sprintf("a WITH query that runs %s is not admitted (a data-modifying CTE)", pgStmtName(n.GetCtequery())))
		}
		return nil
	case *pgq.RangeVar:
		if n.GetCatalogname() != "" {
			return refuse(ReasonConstruct, egress.Sprintf("a table name qualified by a database (%s) is not admitted", n.GetCatalogname()))
		}
		return nil
	}
	name := string(m.Descriptor().Name())
	if pgNodes()[name] {
		return nil
	}
	return refuse(ReasonConstruct, egress.Sprintf("%s is not admitted in a read-only query", name))
}

// pgNodes lists the parse-tree message types known to be side-effect free.
// Everything that is not listed here or judged in visitPG is refused:
// INSERT/UPDATE/DELETE/MERGE, DDL, COPY, DO, CALL, PREPARE/EXECUTE, SET,
// LOCK, LISTEN/NOTIFY, transaction control, SELECT INTO, locking clauses,
// TABLESAMPLE, column definition lists of functions in FROM, XML
// expressions and every node a later parser version adds.
var pgNodes = sync.OnceValue(func() map[string]bool {
	return setOf(
		// wrappers and statements admitted at the top
		"Node", "List", "RawStmt", "VariableShowStmt", "ExplainStmt", "DefElem",
		// query parts
		"ResTarget", "ColumnRef", "A_Star", "A_Const", "String", "Integer", "Float", "Boolean", "BitString",
		"RangeSubselect", "RangeFunction", "JoinExpr", "Alias", "WithClause", "SortBy", "WindowDef",
		"GroupingSet", "GroupingFunc", "SubLink", "A_Indirection", "A_Indices", "A_ArrayExpr", "RowExpr",
		"TypeCast", "CollateClause", "BoolExpr", "NullTest", "BooleanTest", "CaseExpr", "CaseWhen",
		"CoalesceExpr", "MinMaxExpr", "SQLValueFunction",
	)
})

// pgExprKinds are the A_Expr kinds admitted; each names its operator, which
// must be a built-in (see pgOperators).
var pgExprKinds = sync.OnceValue(func() map[pgq.A_Expr_Kind]bool {
	return map[pgq.A_Expr_Kind]bool{
		pgq.A_Expr_Kind_AEXPR_OP: true, pgq.A_Expr_Kind_AEXPR_OP_ANY: true, pgq.A_Expr_Kind_AEXPR_OP_ALL: true,
		pgq.A_Expr_Kind_AEXPR_DISTINCT: true, pgq.A_Expr_Kind_AEXPR_NOT_DISTINCT: true, pgq.A_Expr_Kind_AEXPR_NULLIF: true,
		pgq.A_Expr_Kind_AEXPR_IN: true, pgq.A_Expr_Kind_AEXPR_LIKE: true, pgq.A_Expr_Kind_AEXPR_ILIKE: true,
		pgq.A_Expr_Kind_AEXPR_SIMILAR: true, pgq.A_Expr_Kind_AEXPR_BETWEEN: true, pgq.A_Expr_Kind_AEXPR_NOT_BETWEEN: true,
		pgq.A_Expr_Kind_AEXPR_BETWEEN_SYM: true, pgq.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM: true,
	}
})

// pgOperators are the built-in operators admitted (comparison, arithmetic,
// text, pattern, array, JSON, network and range operators); the grammar names
// BETWEEN and LIKE forms by their own words or operator names.
var pgOperators = sync.OnceValue(func() map[string]bool {
	return setOf(
		"=", "<>", "!=", "<", ">", "<=", ">=", "+", "-", "*", "/", "%", "^", "|/", "||/", "@", "&", "|", "#", "~",
		"<<", ">>", "||", "~~", "!~~", "~~*", "!~~*", "!~", "~*", "!~*", "@>", "<@", "&&", "->", "->>", "#>",
		"#>>", "?", "?|", "?&", "<<=", ">>=", "-|-", "&<", "&>", "@@", "^@",
		"between", "not between", "between symmetric", "not between symmetric",
	)
})

// pgFunctions are the built-in functions admitted: aggregates, window
// functions, date, text, math, JSON, array and catalog-inspection functions
// that neither write, nor wait, nor read files, large objects, other
// databases, function or view bodies or other sessions' statements. Absent
// on purpose: nextval/setval, pg_sleep*, pg_read_file/pg_ls_dir/lo_*,
// dblink*, pg_terminate_backend/pg_cancel_backend, pg_reload_conf,
// set_config, current_setting (SHOW reads settings, by a name the guard checks), pg_advisory_*, txid_current, pg_get_functiondef/viewdef,
// pg_stat_get_activity, query_to_xml and every user-defined function.
var pgFunctions = sync.OnceValue(func() map[string]bool {
	return setOf(
		// aggregates
		"count", "sum", "avg", "min", "max", "bool_and", "bool_or", "every", "string_agg", "array_agg",
		"stddev", "stddev_pop", "stddev_samp", "variance", "var_pop", "var_samp", "percentile_cont",
		"percentile_disc", "mode", "json_agg", "jsonb_agg", "json_object_agg", "jsonb_object_agg", "bit_and",
		"bit_or", "corr", "covar_pop", "covar_samp", "regr_slope", "regr_intercept",
		// window functions
		"row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile", "lag", "lead",
		"first_value", "last_value", "nth_value",
		// date and time
		"now", "clock_timestamp", "statement_timestamp", "transaction_timestamp", "timeofday", "date_trunc",
		"date_part", "extract", "age", "to_char", "to_date", "to_timestamp", "to_number", "make_date",
		"make_time", "make_timestamp", "make_timestamptz", "make_interval", "justify_days", "justify_hours",
		"justify_interval", "date_bin", "isfinite", "timezone", "overlaps",
		// text
		"lower", "upper", "initcap", "length", "char_length", "character_length", "octet_length", "bit_length",
		"substring", "substr", "position", "strpos", "replace", "translate", "trim", "btrim", "ltrim", "rtrim",
		"lpad", "rpad", "concat", "concat_ws", "left", "right", "split_part", "starts_with", "reverse",
		"format", "quote_ident", "quote_literal", "quote_nullable", "md5", "ascii", "chr", "overlay",
		"regexp_replace", "regexp_match", "regexp_matches", "regexp_split_to_array", "regexp_like",
		"regexp_count", "string_to_array", "array_to_string", "encode", "decode", "to_hex", "normalize",
		"similar_to_escape", "like_escape",
		// math
		"abs", "ceil", "ceiling", "floor", "round", "trunc", "mod", "power", "pow", "sqrt", "cbrt", "exp", "ln",
		"log", "log10", "sign", "pi", "div", "greatest", "least", "width_bucket", "gcd", "lcm", "scale",
		// arrays and JSON
		"array_length", "array_lower", "array_upper", "array_ndims", "array_dims", "array_position",
		"array_positions", "array_remove", "array_replace", "array_append", "array_prepend", "array_cat",
		"cardinality", "unnest", "generate_series", "generate_subscripts", "json_build_object",
		"jsonb_build_object", "json_build_array", "jsonb_build_array", "json_extract_path",
		"json_extract_path_text", "jsonb_extract_path", "jsonb_extract_path_text", "json_array_length",
		"jsonb_array_length", "json_typeof", "jsonb_typeof", "jsonb_pretty", "json_each", "jsonb_each",
		"json_each_text", "jsonb_each_text", "json_object_keys", "jsonb_object_keys",
		"json_array_elements", "jsonb_array_elements", "json_array_elements_text",
		"jsonb_array_elements_text", "jsonb_path_query", "jsonb_path_exists", "jsonb_path_match",
		"jsonb_strip_nulls", "jsonb_set", "jsonb_insert",
		// network
		"host", "hostmask", "masklen", "netmask", "network", "family", "inet_same_family", "inet_merge",
		// catalog, sizes and lock waits (read the catalogs, write nothing)
		"pg_blocking_pids", "pg_safe_snapshot_blocking_pids", "pg_backend_pid", "pg_postmaster_start_time",
		"pg_conf_load_time", "pg_is_in_recovery", "pg_last_wal_receive_lsn", "pg_last_wal_replay_lsn",
		"pg_last_xact_replay_timestamp", "pg_current_wal_lsn", "pg_wal_lsn_diff", "pg_size_pretty",
		"pg_size_bytes", "pg_relation_size", "pg_total_relation_size", "pg_table_size", "pg_indexes_size",
		"pg_database_size", "pg_tablespace_size", "pg_column_size", "pg_typeof", "format_type",
		"to_regclass", "to_regtype", "to_regproc", "to_regnamespace", "to_regrole", "pg_get_userbyid",
		"pg_encoding_to_char", "pg_table_is_visible", "pg_get_indexdef", "pg_get_constraintdef",
		"pg_get_expr", "pg_get_keywords", "pg_get_serial_sequence", "obj_description", "col_description",
		"shobj_description", "has_table_privilege", "has_column_privilege", "has_schema_privilege",
		"has_database_privilege", "has_sequence_privilege", "pg_has_role", "pg_jit_available",
		"pg_xact_commit_timestamp", "pg_xact_status", "pg_current_snapshot", "pg_snapshot_xmin",
		"pg_snapshot_xmax", "pg_visible_in_snapshot", "mxid_age",
		"current_database", "current_schema", "current_schemas", "version",
		"inet_client_addr", "inet_client_port", "inet_server_addr", "inet_server_port",
		"pg_tablespace_location", "pg_relation_filenode", "pg_partition_root", "pg_partition_ancestors",
		"pg_partition_tree", "pg_index_column_has_property", "pg_indexam_has_property",
		"pg_index_has_property", "num_nulls", "num_nonnulls", "row_to_json", "to_json", "to_jsonb",
		"array_to_json", "coalesce", "nullif",
	)
})

// pgNotAllowedFunctions are built-ins refused as credential or statement
// reads (NOT_ALLOWED) rather than as unknown functions: they return
// function, view, rule or trigger bodies, or other sessions' statements.
var pgNotAllowedFunctions = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"pg_get_functiondef":           whyPGBodies,
		"pg_get_function_sqlbody":      whyPGBodies,
		"pg_get_viewdef":               whyPGBodies,
		"pg_get_ruledef":               whyPGBodies,
		"pg_get_triggerdef":            whyPGBodies,
		"pg_stat_get_activity":         whyPGStatementText,
		"pg_stat_get_backend_activity": whyPGStatementText,
		"pg_stat_statements":           whyPGStatementText,
		"current_query":                whyPGStatementText,
	}
})

// pgTypes are the built-in types a cast (x::type, CAST(x AS type)) may name.
var pgTypes = sync.OnceValue(func() map[string]bool {
	return setOf(
		"bool", "boolean", "int2", "int4", "int8", "smallint", "integer", "int", "bigint", "numeric", "decimal",
		"float4", "float8", "real", "double precision", "text", "varchar", "bpchar", "char", "character",
		"character varying", "name", "date", "time", "timetz", "timestamp", "timestamptz", "interval", "json",
		"jsonb", "uuid", "bytea", "inet", "cidr", "macaddr", "oid", "regclass", "regtype", "regproc",
		"regnamespace", "regrole", "xid", "xid8", "pg_lsn", "bit", "varbit", "money", "tsvector", "tsquery",
		"int4range", "int8range", "numrange", "tsrange", "tstzrange", "daterange",
	)
})

// pgBuiltinName is the name, exactly as PostgreSQL will look it up, of a
// possibly qualified name (a function, type or operator) that may be a
// built-in: unqualified (the session pins the search path to pg_catalog
// alone, so nothing else can win) or qualified by pg_catalog. A name in any
// other schema is user-defined; a quoted name keeps its case ("Lower" is not
// lower, and is no built-in).
func pgBuiltinName(names []*pgq.Node) (string, bool) {
	parts := make([]string, 0, len(names))
	for _, n := range names {
		s := n.GetString_()
		if s == nil {
			return "", false
		}
		parts = append(parts, s.GetSval())
	}
	switch {
	case len(parts) == 1:
		return parts[0], true
	case len(parts) == 2 && parts[0] == "pg_catalog":
		return parts[1], true
	}
	return "", false
}

// pgOperatorName is pgBuiltinName for an operator, in lower case: the
// grammar names BETWEEN and its kin by upper-case words.
func pgOperatorName(names []*pgq.Node) (string, bool) {
	name, ok := pgBuiltinName(names)
	return strings.ToLower(name), ok
}

// pgDottedName writes a possibly qualified name for a refusal.
func pgDottedName(names []*pgq.Node) string {
	parts := make([]string, 0, len(names))
	for _, n := range names {
		parts = append(parts, n.GetString_().GetSval())
	}
	return strings.Join(parts, ".")
}
