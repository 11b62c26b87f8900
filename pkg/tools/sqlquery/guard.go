package sqlquery

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/superbiz/superbiz/pkg/egress"
	"vitess.io/vitess/go/vt/sqlparser"
)

// MaxSQLBytes bounds the statement the model may send (docs/SPEC.md#query_mysql).
const MaxSQLBytes = 4096

// parserVersion is the MySQL version the parser emulates: version comments
// /*!NNNNN … */ up to it are expanded into the tree (and so walked), later
// ones are dropped, exactly as such a server would treat them.
const parserVersion = "8.0.40"

// Dialect selects the server-specific parts of the guard and of execution.
type Dialect int

// The dialects a configured database can speak.
const (
	MySQL Dialect = iota
	MariaDB
	SQLite
)

// String names the dialect for errors and the audit.
func (d Dialect) String() string {
	switch d {
	case MySQL:
		return "mysql"
	case MariaDB:
		return "mariadb"
	case SQLite:
		return "sqlite"
	}
	return fmt.Sprintf("dialect(%d)", int(d))
}

// Reason classifies why the guard refused a statement, so tests and the audit
// can tell a bypass attempt from a typo without parsing messages.
type Reason string

// The refusal reasons; every one of them fails closed.
const (
	ReasonEmpty         Reason = "empty"          // no statement at all
	ReasonTooLong       Reason = "too_long"       // over MaxSQLBytes
	ReasonUnparsable    Reason = "unparsable"     // the parser could not read it (or read more than one statement)
	ReasonStatementKind Reason = "statement_kind" // not SELECT, SHOW, DESCRIBE or EXPLAIN
	ReasonShowKind      Reason = "show_kind"      // a SHOW variant outside the diagnostic allowlist
	ReasonExplainKind   Reason = "explain_kind"   // EXPLAIN ANALYZE (executes) or EXPLAIN of a non-read
	ReasonInto          Reason = "into"           // INTO OUTFILE / DUMPFILE / @var
	ReasonLock          Reason = "locking_read"   // FOR UPDATE, FOR SHARE, LOCK IN SHARE MODE
	ReasonComment       Reason = "comment"        // an optimizer hint or other comment kept in the tree
	ReasonVariable      Reason = "variable"       // user variable or variable assignment
	ReasonFunction      Reason = "function"       // a function outside the allowlist
	ReasonConstruct     Reason = "construct"      // any other node the guard does not know to be side-effect free
	ReasonDialect       Reason = "dialect"        // syntax the target dialect would read differently
	ReasonNotAllowed    Reason = "not_allowed"    // a read of credentials or of other sessions' statements
)

// Refusal is the guard's typed verdict on a statement it does not admit.
type Refusal struct {
	Reason Reason
	Detail string
	// text is Detail as the policy made it: our words as they are, the
	// names and values quoted from the statement masked one by one.
	text egress.Text
}

// Error says what was refused and why, for the audit log (never the model).
func (r *Refusal) Error() string { return r.EgressText().String() }

// EgressText is Error as the egress door passes it (egress.Error): our own
// words are not masked as data, so a refusal reads "which can hold
// credentials: it is not allowed", not "credentials: [REDACTED]".
func (r *Refusal) EgressText() egress.Text {
	text := r.text
	if text.IsZero() && r.Detail != "" {
		text = egress.Mask(r.Detail) // a Refusal made outside refuse
	}
	return egress.Sprintf("statement refused (%s): %s", string(r.Reason), text)
}

// refuse makes a refusal from a text of ours (egress.Sprintf of a constant
// format), never from a string made at run time.
func refuse(reason Reason, detail egress.Text) *Refusal {
	return &Refusal{Reason: reason, Detail: detail.String(), text: detail}
}

// Kind is the admitted statement's family, kept so execution can treat
// SELECTs (row-cap LIMIT) differently from SHOW/DESCRIBE/EXPLAIN.
type Kind string

// The admitted statement kinds.
const (
	KindSelect   Kind = "SELECT"
	KindShow     Kind = "SHOW"
	KindDescribe Kind = "DESCRIBE"
	KindExplain  Kind = "EXPLAIN"
)

// Checked is an admitted statement: its kind, its parsed tree, and the
// re-rendered text that is the only thing ever sent to a server.
type Checked struct {
	Kind     Kind
	Rendered string
	// Canonical is the dialect-neutral rendering (MySQL grammar) used as the
	// canonical input: it re-parses to the same tree in every dialect.
	Canonical string
	stmt      sqlparser.Statement
	dialect   Dialect
}

// Check is the first read-only layer: a pure function that admits exactly one
// SELECT, SHOW, DESCRIBE or EXPLAIN statement whose whole tree is made of
// known side-effect-free parts, and returns the statement re-rendered by the
// parser. Anything else, including anything it cannot parse, is a *Refusal.
// schema is the connection's default database, which an unqualified table
// name refers to ("" when the DSN names none).
func Check(sql string, d Dialect, schema string) (string, error) {
	c, err := check(sql, d, schema)
	if err != nil {
		return "", err
	}
	return c.Rendered, nil
}

func check(sql string, d Dialect, schema string) (*Checked, error) {
	if err := checkText(sql); err != nil {
		return nil, err
	}
	parser, err := sqlparser.New(sqlparser.Options{MySQLServerVersion: parserVersion})
	if err != nil {
		return nil, fmt.Errorf("build SQL parser: %w", err)
	}
	if d == SQLite {
		if err := checkSQLiteTokens(parser, sql); err != nil {
			return nil, err
		}
	}
	stmt, err := safeParse(parser, sql)
	if err != nil {
		return nil, refuse(ReasonUnparsable, egress.Sprintf("%s", firstLine(err.Error())))
	}
	kind, err := admitTop(stmt)
	if err != nil {
		return nil, err
	}
	g := walker{dialect: d}
	if err := sqlparser.Walk(g.visit, stmt); err != nil {
		return nil, err
	}
	if d != SQLite {
		if err := checkSensitive(stmt, schema); err != nil {
			return nil, err
		}
	}
	c := &Checked{Kind: kind, stmt: stmt, dialect: d}
	if c.Rendered, err = safeRender(stmt, d); err != nil {
		return nil, refuse(ReasonUnparsable, egress.Sprintf("%v", err))
	}
	if c.Canonical, err = safeRender(stmt, MySQL); err != nil {
		return nil, refuse(ReasonUnparsable, egress.Sprintf("%v", err))
	}
	return c, nil
}

// checkText refuses, before any parser sees it, a statement that is too
// long, empty or holds a NUL byte: the checks every dialect's guard shares.
func checkText(sql string) error {
	if len(sql) > MaxSQLBytes {
		return refuse(ReasonTooLong, egress.Sprintf("statement is %d bytes, the limit is %d", len(sql), MaxSQLBytes))
	}
	if strings.TrimSpace(sql) == "" {
		return refuse(ReasonEmpty, egress.Sprintf("no statement given"))
	}
	if strings.IndexByte(sql, 0) >= 0 {
		return refuse(ReasonUnparsable, egress.Sprintf("statement contains a NUL byte"))
	}
	return nil
}

// safeParse parses sql, turning a parser panic into an error: the fuzz target
// found inputs (e.g. "SELECT @@GLOBAL. ") that make vitess v0.24.4 panic, and
// whatever the parser cannot read is refused, never a crash.
func safeParse(parser *sqlparser.Parser, sql string) (stmt sqlparser.Statement, err error) {
	defer func() {
		if r := recover(); r != nil {
			stmt, err = nil, fmt.Errorf("the SQL parser failed on this input: %v", r)
		}
	}()
	return parser.Parse(sql)
}

// admitTop admits the statement kinds and the SHOW/EXPLAIN variants.
func admitTop(stmt sqlparser.Statement) (Kind, error) {
	switch s := stmt.(type) {
	case *sqlparser.Select, *sqlparser.Union:
		return KindSelect, nil
	case *sqlparser.Show:
		return KindShow, admitShow(s)
	case *sqlparser.ExplainTab:
		return KindDescribe, nil
	case *sqlparser.ExplainStmt:
		if s.Type == sqlparser.AnalyzeType {
			return "", refuse(ReasonExplainKind, egress.Sprintf("EXPLAIN ANALYZE executes the statement"))
		}
		switch s.Statement.(type) {
		case *sqlparser.Select, *sqlparser.Union:
			return KindExplain, nil
		}
		return "", refuse(ReasonExplainKind, egress.Sprintf("EXPLAIN is admitted only for SELECT, not %s", stmtName(s.Statement)))
	}
	return "", refuse(ReasonStatementKind, egress.Sprintf("%s is not a read: only SELECT, SHOW, DESCRIBE and EXPLAIN are admitted", stmtName(stmt)))
}

// showCommands are the diagnostic SHOW variants admitted: schema, status,
// variables and warnings. Routines, triggers, events, users, binlogs,
// profiles and replication are out (nothing a diagnosis needs that
// information_schema does not give in a safer shape); so is the process list,
// whose Info column is other sessions' statement text (see showNotAllowed).
var showCommands = sync.OnceValue(func() map[sqlparser.ShowCommandType]bool {
	return map[sqlparser.ShowCommandType]bool{
		sqlparser.Column:          true,
		sqlparser.Index:           true,
		sqlparser.Table:           true,
		sqlparser.TableStatus:     true,
		sqlparser.Database:        true,
		sqlparser.OpenTable:       true,
		sqlparser.StatusGlobal:    true,
		sqlparser.StatusSession:   true,
		sqlparser.VariableGlobal:  true,
		sqlparser.VariableSession: true,
		sqlparser.Warnings:        true,
		sqlparser.Errors:          true,
		sqlparser.Engines:         true,
		sqlparser.Charset:         true,
		sqlparser.Collation:       true,
	}
})

// processListAlternative is the read that gives the process list without
// other sessions' statements.
const processListAlternative = "SELECT id, user, host, db, command, time, state FROM information_schema.processlist"

func admitShow(s *sqlparser.Show) error {
	switch in := s.Internal.(type) {
	case *sqlparser.ShowBasic:
		if showCommands()[in.Command] {
			return nil
		}
		if in.Command == sqlparser.ProcessList {
			return refuse(ReasonNotAllowed, egress.Sprintf("SHOW PROCESSLIST shows %s in its Info column: use %s", whyStatementColumns, processListAlternative))
		}
		return refuse(ReasonShowKind, egress.Sprintf("SHOW %s is not an admitted diagnostic SHOW", in.Command.ToString()))
	case *sqlparser.ShowCreate:
		switch in.Command {
		case sqlparser.CreateTbl:
			return nil
		case sqlparser.CreateV:
			return refuse(ReasonNotAllowed, egress.Sprintf("SHOW CREATE VIEW shows %s: read information_schema.views without view_definition", whyDefinitions))
		}
		return refuse(ReasonShowKind, egress.Sprintf("SHOW %s is not admitted (only CREATE TABLE)", in.Command.ToString()))
	case *sqlparser.ShowEngine:
		if strings.EqualFold(in.EngineName, "innodb") && strings.EqualFold(in.Action, "status") {
			return refuse(ReasonNotAllowed, egress.Sprintf("SHOW ENGINE INNODB STATUS shows %s (its TRANSACTIONS and LATEST DETECTED DEADLOCK sections): use information_schema.innodb_trx and innodb_lock_waits without trx_query", whyStatementColumns))
		}
		return refuse(ReasonShowKind, egress.Sprintf("SHOW ENGINE %s %s is not admitted", in.EngineName, in.Action))
	case *sqlparser.ShowGrants:
		return nil
	}
	return refuse(ReasonShowKind, egress.Sprintf("SHOW variant %T is not admitted", s.Internal))
}

// walker visits every node of an admitted statement and refuses any node type
// it does not know: new or exotic parser nodes fail closed.
type walker struct {
	dialect Dialect
}

func (w walker) visit(node sqlparser.SQLNode) (bool, error) {
	switch n := node.(type) {
	case nil:
		return false, nil
	case *sqlparser.Select:
		if n.Lock != sqlparser.NoLock {
			return false, refuse(ReasonLock, egress.Sprintf("locking read (%s) is not admitted", strings.TrimSpace(n.Lock.ToString())))
		}
		if n.Into != nil {
			return false, refuse(ReasonInto, egress.Sprintf("SELECT … INTO is not admitted"))
		}
		return true, nil
	case *sqlparser.Union:
		if n.Lock != sqlparser.NoLock {
			return false, refuse(ReasonLock, egress.Sprintf("locking read (%s) is not admitted", strings.TrimSpace(n.Lock.ToString())))
		}
		if n.Into != nil {
			return false, refuse(ReasonInto, egress.Sprintf("SELECT … INTO is not admitted"))
		}
		return true, nil
	case *sqlparser.SelectInto:
		return false, refuse(ReasonInto, egress.Sprintf("SELECT … INTO is not admitted"))
	case *sqlparser.ParsedComments:
		if n.Length() > 0 {
			return false, refuse(ReasonComment, egress.Sprintf("comments or optimizer hints inside the statement are not admitted: %s", strings.Join(n.GetComments(), " ")))
		}
		return false, nil
	case *sqlparser.ExplainStmt:
		if n.Type == sqlparser.AnalyzeType {
			return false, refuse(ReasonExplainKind, egress.Sprintf("EXPLAIN ANALYZE executes the statement"))
		}
		return true, nil
	case *sqlparser.Variable:
		if n.Scope == sqlparser.VariableScope {
			return false, refuse(ReasonVariable, egress.Sprintf("user variable @%s is not admitted", n.Name.String()))
		}
		if n.Scope != sqlparser.SessionScope && n.Scope != sqlparser.GlobalScope {
			return false, refuse(ReasonVariable, egress.Sprintf("variable scope of @@%s is not admitted", n.Name.String()))
		}
		if w.dialect == SQLite {
			return false, refuse(ReasonDialect, egress.Sprintf("SQLite has no @@%s", n.Name.String()))
		}
		if egress.SecretName(n.Name.String()) {
			// a system variable is a column named @@name, which the
			// masking of secret-named columns need not recognise
			return false, refuse(ReasonNotAllowed, egress.Sprintf("system variable @@%s is named like a secret; reading it is not allowed; SHOW VARIABLES masks its value", n.Name.String()))
		}
		return false, nil
	case *sqlparser.AssignmentExpr:
		return false, refuse(ReasonVariable, egress.Sprintf("variable assignment is not admitted"))
	case *sqlparser.FuncExpr:
		if !n.Qualifier.IsEmpty() {
			return false, refuse(ReasonFunction, egress.Sprintf("qualified function %s.%s is not admitted (stored functions may write)", n.Qualifier.String(), n.Name.String()))
		}
		name := n.Name.Lowered()
		if !functionAllowed(name, w.dialect) {
			return false, refuse(ReasonFunction, egress.Sprintf("function %s() is not on the allowlist of side-effect-free functions", name))
		}
		return true, nil
	case *sqlparser.Argument, sqlparser.ListArg:
		return false, refuse(ReasonConstruct, egress.Sprintf("bind parameters are not admitted: write literal values"))
	}
	if allowedNode(node) {
		return true, nil
	}
	return false, refuse(ReasonConstruct, egress.Sprintf("%s is not admitted in a read-only query", nodeName(node)))
}

// allowedNode lists the parser nodes known to be side-effect free. Every node
// type not listed here or handled in visit is refused.
func allowedNode(node sqlparser.SQLNode) bool {
	switch node.(type) {
	// statements and their parts
	case *sqlparser.Show, *sqlparser.ShowBasic, *sqlparser.ShowCreate, *sqlparser.ShowEngine,
		*sqlparser.ShowGrants, *sqlparser.ShowFilter, *sqlparser.ExplainTab,
		*sqlparser.SelectExprs, *sqlparser.AliasedExpr, *sqlparser.StarExpr,
		*sqlparser.With, *sqlparser.CommonTableExpr, *sqlparser.Where, *sqlparser.GroupBy,
		sqlparser.OrderBy, *sqlparser.Order, *sqlparser.Limit,
		sqlparser.NamedWindows, *sqlparser.NamedWindow, sqlparser.WindowDefinitions, *sqlparser.WindowDefinition:
		return true
	// tables
	case sqlparser.TableName, sqlparser.TableExprs, *sqlparser.AliasedTableExpr, *sqlparser.JoinTableExpr,
		*sqlparser.JoinCondition, *sqlparser.ParenTableExpr, *sqlparser.DerivedTable, *sqlparser.Subquery,
		sqlparser.Columns, sqlparser.IdentifierCI, sqlparser.IdentifierCS, sqlparser.IndexHints, *sqlparser.IndexHint,
		sqlparser.Partitions:
		return true
	// expressions
	case *sqlparser.ColName, *sqlparser.Literal, *sqlparser.NullVal, sqlparser.BoolVal, sqlparser.ValTuple,
		*sqlparser.Exprs, *sqlparser.ComparisonExpr, *sqlparser.AndExpr, *sqlparser.OrExpr, *sqlparser.XorExpr,
		*sqlparser.NotExpr, *sqlparser.BetweenExpr, *sqlparser.IsExpr, *sqlparser.BinaryExpr, *sqlparser.UnaryExpr,
		*sqlparser.CaseExpr, *sqlparser.When, *sqlparser.CastExpr, *sqlparser.ConvertExpr, *sqlparser.ConvertType,
		*sqlparser.ConvertUsingExpr, *sqlparser.CollateExpr, *sqlparser.IntroducerExpr, *sqlparser.ExistsExpr,
		*sqlparser.IntervalDateExpr, *sqlparser.IntervalFuncExpr, *sqlparser.ExtractFuncExpr,
		*sqlparser.TimestampDiffExpr, *sqlparser.CurTimeFuncExpr, *sqlparser.SubstrExpr, *sqlparser.TrimFuncExpr,
		*sqlparser.LocateExpr, *sqlparser.CharExpr, *sqlparser.MatchExpr,
		*sqlparser.JSONExtractExpr, *sqlparser.JSONUnquoteExpr:
		return true
	// aggregates and window functions
	case *sqlparser.Count, *sqlparser.CountStar, *sqlparser.Sum, *sqlparser.Avg, *sqlparser.Min, *sqlparser.Max,
		*sqlparser.GroupConcatExpr, *sqlparser.Std, *sqlparser.StdDev, *sqlparser.StdPop, *sqlparser.StdSamp,
		*sqlparser.VarPop, *sqlparser.VarSamp, *sqlparser.Variance, *sqlparser.BitAnd, *sqlparser.BitOr,
		*sqlparser.BitXor, *sqlparser.AnyValue,
		*sqlparser.OverClause, *sqlparser.WindowSpecification, *sqlparser.FrameClause, *sqlparser.FramePoint,
		*sqlparser.ArgumentLessWindowExpr, *sqlparser.LagLeadExpr, *sqlparser.NtileExpr,
		*sqlparser.FirstOrLastValueExpr, *sqlparser.NTHValueExpr, *sqlparser.NullTreatmentClause,
		*sqlparser.FromFirstLastClause:
		return true
	}
	return false
}

// commonFunctions are side-effect-free built-ins shared by MySQL, MariaDB and
// (where SQLite has them) SQLite. Locks, sleeps, file access, user/session
// changes, benchmark, stored routines and anything that builds unbounded
// strings (REPEAT, SPACE, RPAD with huge lengths is bounded by the server's
// max_allowed_packet) are absent.
var commonFunctions = sync.OnceValue(func() map[string]bool {
	return setOf(
		"coalesce", "ifnull", "nullif", "if", "isnull", "greatest", "least",
		"concat", "concat_ws", "lower", "upper", "lcase", "ucase", "length", "char_length", "character_length",
		"substring_index", "left", "right", "ltrim", "rtrim", "replace", "reverse", "lpad", "rpad", "instr",
		"strcmp", "format", "hex", "md5", "sha1", "sha2", "crc32", "quote", "field", "find_in_set", "elt",
		"round", "floor", "ceil", "ceiling", "abs", "mod", "truncate", "sign", "sqrt", "pow", "power", "exp", "ln",
		"log", "log10", "log2", "pi", "bit_count",
		"date", "time", "year", "month", "day", "dayofmonth", "dayofweek", "dayofyear", "hour", "minute", "second",
		"microsecond", "week", "weekday", "weekofyear", "yearweek", "quarter", "dayname", "monthname",
		"date_format", "time_format", "str_to_date", "adddate", "subdate", "addtime", "subtime", "datediff",
		"timediff", "timestampadd", "unix_timestamp", "from_unixtime", "to_days", "from_days", "to_seconds",
		"sec_to_time", "time_to_sec", "last_day", "makedate", "maketime", "convert_tz", "sysdate", "curdate",
		"curtime", "utc_date", "utc_time", "utc_timestamp", "now", "current_date", "current_time",
		"current_timestamp", "localtime", "localtimestamp", "period_diff",
		"inet_ntoa", "inet_aton", "inet6_ntoa", "inet6_aton", "is_ipv4", "is_ipv6",
		"json_length", "json_valid", "json_type", "json_depth", "json_contains", "json_keys", "json_object",
		"json_array", "json_quote",
		"database", "schema", "version", "connection_id", "current_user", "user",
	)
})

// sqliteFunctions are SQLite's side-effect-free date and utility functions,
// admitted for the sqlite dialect only.
var sqliteFunctions = sync.OnceValue(func() map[string]bool {
	return setOf(
		"datetime", "strftime", "julianday", "unixepoch", "timediff", "iif", "typeof", "total", "printf",
		"substr", "trim", "instr", "unicode", "char", "likely", "unlikely", "nullif", "max", "min",
	)
})

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

func functionAllowed(name string, d Dialect) bool {
	if commonFunctions()[name] {
		return true
	}
	return d == SQLite && sqliteFunctions()[name]
}

// checkSQLiteTokens refuses syntax the MySQL grammar reads differently from
// SQLite: `||` is OR to the parser but concatenation to SQLite, so a statement
// using it would silently change meaning once re-rendered.
func checkSQLiteTokens(parser *sqlparser.Parser, sql string) error {
	tok := parser.NewStringTokenizer(sql)
	for {
		typ, val := tok.Scan()
		if typ == 0 {
			return nil
		}
		if typ == sqlparser.LEX_ERROR {
			return refuse(ReasonUnparsable, egress.Sprintf("cannot read the statement near %q", val))
		}
		if typ == sqlparser.OR && val == "" {
			return refuse(ReasonDialect, egress.Sprintf("|| means OR to the guard but concatenation to SQLite: use concat(a, b)"))
		}
	}
}

// safeRender renders, turning a formatter panic into an error: the fuzz
// target found trees (e.g. from "SHOW STATUS LIKE”") that vitess v0.24.4
// parses but cannot print.
func safeRender(stmt sqlparser.Statement, d Dialect) (out string, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = "", fmt.Errorf("the SQL renderer failed on this statement: %v", r)
		}
	}()
	return render(stmt, d), nil
}

// render prints the admitted tree: this text, never the model's, is executed.
// Comments are never printed (a statement carrying one was refused anyway);
// for SQLite, string literals are printed in SQLite's quoting (no backslash
// escapes) and the implicit "dual" table becomes a one-row subquery.
func render(stmt sqlparser.Statement, d Dialect) string {
	buf := sqlparser.NewTrackedBuffer(func(buf *sqlparser.TrackedBuffer, node sqlparser.SQLNode) {
		switch n := node.(type) {
		case *sqlparser.ParsedComments:
			return
		case *sqlparser.Literal:
			if d == SQLite && n.Type == sqlparser.StrVal {
				buf.WriteString("'" + strings.ReplaceAll(n.Val, "'", "''") + "'")
				return
			}
		case sqlparser.TableName:
			if d == SQLite && n.Qualifier.IsEmpty() && n.Name.String() == "dual" {
				buf.WriteString("(select 1)")
				return
			}
		}
		node.Format(buf)
	})
	stmt.Format(buf)
	return buf.String()
}

func stmtName(stmt sqlparser.Statement) string {
	if stmt == nil {
		return "an empty statement"
	}
	return strings.ToUpper(sqlparser.ASTToStatementType(stmt).String())
}

func nodeName(node sqlparser.SQLNode) string {
	return strings.TrimPrefix(fmt.Sprintf("%T", node), "*sqlparser.")
}

func firstLine(s string) string {
	s = strings.TrimPrefix(s, "Code: INVALID_ARGUMENT\n")
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// IsRefusal reports whether err is a guard refusal, and returns it.
func IsRefusal(err error) (*Refusal, bool) {
	var r *Refusal
	ok := errors.As(err, &r)
	return r, ok
}
