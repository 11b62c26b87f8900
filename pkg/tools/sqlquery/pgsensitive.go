package sqlquery

import (
	"strings"
	"sync"

	pgq "github.com/pganalyze/pg_query_go/v6"
	"github.com/superbiz/superbiz/pkg/egress"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Why a PostgreSQL catalog, or some of its columns, may not be read: refused
// whatever the account may do (a superuser reads them all), because they
// hold credentials, other sessions' statement text, function and view
// bodies, or sampled column values. Their other columns stay readable:
// pg_stat_activity's wait events and pg_locks are what a lock-wait
// diagnosis needs.
const (
	whyPGPasswords     = "role password hashes"
	whyPGOptions       = "stored connection options, passwords included"
	whyPGSamples       = "sampled column values, which can include password or token columns"
	whyPGLargeObjects  = "large-object contents"
	whyPGRoleSettings  = "per-role or per-database settings, which can hold secrets"
	whyPGStatementText = "other sessions' statement text"
	whyPGBodies        = "function and view bodies, which can hold credentials"
)

// pgSensitive describes one catalog: refused whole (why) or by columns.
// Both why and holds name what is held ("role password hashes"); the
// refusal says "holds" once.
type pgSensitive struct {
	why     string
	columns []string
	holds   string
}

// pgSensitiveTables are the catalogs and views the guard restricts, by
// table name in any schema (an extension's pg_stat_statements may live in
// public; a same-named user table is refused too, failing closed).
var pgSensitiveTables = sync.OnceValue(func() map[string]pgSensitive {
	return map[string]pgSensitive{
		"pg_authid":               {why: whyPGPasswords},
		"pg_shadow":               {why: whyPGPasswords},
		"pg_user_mapping":         {why: whyPGOptions},
		"pg_statistic":            {why: whyPGSamples},
		"pg_statistic_ext_data":   {why: whyPGSamples},
		"pg_largeobject":          {why: whyPGLargeObjects},
		"pg_user_mappings":        {columns: []string{"umoptions"}, holds: whyPGOptions},
		"pg_foreign_server":       {columns: []string{"srvoptions"}, holds: whyPGOptions},
		"pg_foreign_data_wrapper": {columns: []string{"fdwoptions"}, holds: whyPGOptions},
		"pg_foreign_table":        {columns: []string{"ftoptions"}, holds: whyPGOptions},
		"pg_subscription":         {columns: []string{"subconninfo"}, holds: whyPGOptions},
		"pg_stat_wal_receiver":    {columns: []string{"conninfo"}, holds: whyPGOptions},
		"user_mapping_options":    {columns: []string{"option_value"}, holds: whyPGOptions},
		"foreign_server_options":  {columns: []string{"option_value"}, holds: whyPGOptions},
		"pg_db_role_setting":      {columns: []string{"setconfig"}, holds: whyPGRoleSettings},
		"pg_roles":                {columns: []string{"rolconfig"}, holds: whyPGRoleSettings},
		"pg_user":                 {columns: []string{"useconfig"}, holds: whyPGRoleSettings},
		"pg_stat_activity":        {columns: []string{"query"}, holds: whyPGStatementText},
		"pg_stat_statements":      {columns: []string{"query"}, holds: whyPGStatementText},
		"pg_proc":                 {columns: []string{"prosrc", "probin", "prosqlbody"}, holds: whyPGBodies},
		"pg_views":                {columns: []string{"definition"}, holds: whyPGBodies},
		"pg_matviews":             {columns: []string{"definition"}, holds: whyPGBodies},
		"pg_rules":                {columns: []string{"definition"}, holds: whyPGBodies},
		"pg_rewrite":              {columns: []string{"ev_action", "ev_qual"}, holds: whyPGBodies},
		"routines":                {columns: []string{"routine_definition"}, holds: whyPGBodies},
		"views":                   {columns: []string{"view_definition"}, holds: whyPGBodies},
		"pg_stats":                {columns: []string{"most_common_vals", "histogram_bounds", "most_common_elems"}, holds: whyPGSamples},
	}
})

// pgRef is one restricted table the statement reads, with the names a
// whole-row reference to it may use (its alias, or its name).
type pgRef struct {
	table string
	spec  pgSensitive
	names []string
}

// checkPGSensitive refuses reads of credential catalogs and of the
// restricted columns of the others. It sees every table of the statement
// (joins, subqueries, set operations, CTEs); a column-restricted table is
// refused when the statement names one of its restricted columns anywhere,
// expands a star, refers to a whole row (`SELECT a FROM pg_stat_activity a`,
// row_to_json(a), a.to_json), renames its columns with an alias list
// (pg_stat_activity AS s(a, b, …, q)), or joins NATURAL: every way the text
// could reach a result or be probed.
func checkPGSensitive(stmt *pgq.Node) error {
	var refs []pgRef
	columns := map[string]bool{}
	singles := map[string]bool{}
	rowCalls := map[string]string{} // qualifier → function called on its row
	star, natural, renamed := false, false, false
	visitPGTree(stmt.ProtoReflect(), func(m protoreflect.Message) {
		switch n := m.Interface().(type) {
		case *pgq.RangeVar:
			name := strings.ToLower(n.GetRelname())
			spec, ok := pgSensitiveTables()[name]
			if !ok {
				return
			}
			full := name
			if n.GetSchemaname() != "" {
				full = n.GetSchemaname() + "." + name
			}
			r := pgRef{table: full, spec: spec, names: []string{name}}
			if a := n.GetAlias().GetAliasname(); a != "" {
				r.names = append(r.names, strings.ToLower(a))
			}
			renamed = renamed || len(n.GetAlias().GetColnames()) > 0
			refs = append(refs, r)
		case *pgq.ColumnRef:
			fields := n.GetFields()
			for _, f := range fields {
				if f.GetAStar() != nil {
					star = true
				}
			}
			if len(fields) == 0 {
				return
			}
			if last := fields[len(fields)-1].GetString_(); last != nil {
				name := strings.ToLower(last.GetSval())
				columns[name] = true
				switch {
				case len(fields) == 1:
					singles[name] = true
				case pgFunctions()[name] || pgTypes()[name]:
					// a.to_json is to_json(a): field notation calls a
					// function on the whole row named by the qualifier.
					if q := fields[len(fields)-2].GetString_(); q != nil {
						rowCalls[strings.ToLower(q.GetSval())] = name
					}
				}
			}
		case *pgq.JoinExpr:
			if n.GetIsNatural() {
				natural = true
			}
			renamed = renamed || len(n.GetAlias().GetColnames()) > 0
			for _, u := range n.GetUsingClause() {
				columns[strings.ToLower(u.GetString_().GetSval())] = true
			}
		}
	})
	for _, r := range refs {
		if r.spec.why != "" {
			return refuse(ReasonNotAllowed, egress.Sprintf("%s holds %s; reading it is not allowed", r.table, r.spec.why))
		}
		for _, c := range r.spec.columns {
			if columns[c] {
				return refuse(ReasonNotAllowed, egress.Sprintf("column %s of %s holds %s; reading it is not allowed; name the other columns you need", c, r.table, r.spec.holds))
			}
		}
		cols := strings.Join(r.spec.columns, ", ")
		if star {
			return refuse(ReasonNotAllowed, egress.Sprintf("a * over %s would return %s (%s): name the columns you need", r.table, cols, r.spec.holds))
		}
		for _, name := range r.names {
			if singles[name] {
				return refuse(ReasonNotAllowed, egress.Sprintf("a whole-row reference to %s would return %s (%s): name the columns you need", r.table, cols, r.spec.holds))
			}
		}
		for _, name := range r.names {
			if fn, ok := rowCalls[name]; ok {
				return refuse(ReasonNotAllowed, egress.Sprintf("%s.%s over %s is %s(%s), a function of the whole row, which would return %s (%s): name the columns you need", name, fn, r.table, fn, name, cols, r.spec.holds))
			}
		}
		if renamed {
			return refuse(ReasonNotAllowed, egress.Sprintf("a column alias list over %s or a join with it could rename %s (%s): name the columns you need", r.table, cols, r.spec.holds))
		}
		if natural {
			return refuse(ReasonNotAllowed, egress.Sprintf("a NATURAL join with %s compares %s (%s): join ON named columns", r.table, cols, r.spec.holds))
		}
	}
	return nil
}

// visitPGTree calls fn on every message of the tree, depth first.
func visitPGTree(m protoreflect.Message, fn func(protoreflect.Message)) {
	fn(m)
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Kind() != protoreflect.MessageKind || fd.IsMap() {
			return true
		}
		if fd.IsList() {
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				visitPGTree(l.Get(i).Message(), fn)
			}
			return true
		}
		visitPGTree(v.Message(), fn)
		return true
	})
}

// pgSecretOutputs says which output columns of an admitted SELECT are
// computed from a secret-named column under another name (`password AS p`,
// `password || ”`, a CTE or derived table that renames it): the column
// name alone would not get them masked, or from a whole row that can carry
// one (`SELECT u::text FROM users u`, to_json(u), array_agg(u), `u.*` inside
// an expression, a sub-select's row), judged on what the server resolved
// (r: the relations' real columns; nil to judge by names alone). The result
// has one entry per output column when the positions are known (no star),
// and names every tainted name otherwise: a star's output column is masked
// by its name.
func pgSecretOutputs(c *PostgresChecked, names []string, r *pgResolution) []bool {
	if c == nil || c.Kind != KindSelect {
		return make([]bool, len(names))
	}
	return pgStmtSecretOutputs(c.tree.GetStmts()[0].GetStmt(), names, r)
}

// pgStmtSecretOutputs is pgSecretOutputs of one SELECT's tree: also what a
// view's body says of the view's columns (pgViewTaint). A column named
// like a carrier of the statement's relations (a view's column computed
// from a secret-named one, `pw` of `CREATE VIEW v AS SELECT password AS
// pw FROM users`) is one too, so a star over the view masks it.
func pgStmtSecretOutputs(stmt *pgq.Node, names []string, r *pgResolution) []bool {
	out := make([]bool, len(names))
	tainted := pgTaintedNames(stmt, r)
	for i, n := range names {
		if tainted[strings.ToLower(n)] || (r != nil && r.carriers[n]) {
			out[i] = true
		}
	}
	for _, list := range pgBranchTargets(stmt.GetSelectStmt()) {
		if pgHasStar(list) || len(list) != len(names) {
			continue
		}
		for i, t := range list {
			if pgExprTainted(t.GetResTarget().GetVal(), tainted, r) {
				out[i] = true
			}
		}
	}
	return out
}

// pgImplicitName is the name PostgreSQL gives an unnamed output column: a
// column reference's last name, a cast's operand's (or its type's), a
// function's name; "" when it would be ?column?.
func pgImplicitName(e *pgq.Node) string {
	switch {
	case e.GetColumnRef() != nil:
		fields := e.GetColumnRef().GetFields()
		if len(fields) > 0 {
			return fields[len(fields)-1].GetString_().GetSval()
		}
	case e.GetTypeCast() != nil:
		if n := pgImplicitName(e.GetTypeCast().GetArg()); n != "" {
			return n
		}
		names := e.GetTypeCast().GetTypeName().GetNames()
		if len(names) > 0 {
			return names[len(names)-1].GetString_().GetSval()
		}
	case e.GetFuncCall() != nil:
		names := e.GetFuncCall().GetFuncname()
		if len(names) > 0 {
			return names[len(names)-1].GetString_().GetSval()
		}
	}
	return ""
}

// pgWholeRow reports whether a column reference is a whole row that can
// carry a secret-named column: `x.*` inside an expression, a lone name of
// a range that is no column (`SELECT u FROM users u`), or field notation
// on a range (`u.to_json`), where the range's resolved columns include a
// secret-named one, or the range is a sub-select, CTE or function whose
// row the server does not describe and the statement reads a relation that
// has one.
func pgWholeRow(fields []*pgq.Node, r *pgResolution) bool {
	if r == nil || len(fields) == 0 {
		return false
	}
	first := fields[0].GetString_().GetSval()
	switch {
	case len(fields) == 1 && fields[0].GetAStar() != nil:
		return r.anySecret
	case len(fields) == 1 && (r.columns[first] || !r.ranges[first]):
		return false
	case len(fields) == 2 && fields[1].GetAStar() == nil && (r.columns[fields[1].GetString_().GetSval()] || !r.ranges[first]):
		return false
	case len(fields) > 2:
		return false
	}
	carries, base := r.rowSecret[first]
	return carries || (!base && r.anySecret)
}

// pgTaintedNames are the lower-cased names (target aliases, CTE and
// derived-table column names) whose value is computed from a secret-named
// column, followed through renames to a fixed point.
func pgTaintedNames(stmt *pgq.Node, r *pgResolution) map[string]bool {
	type alias struct {
		name string
		expr *pgq.Node
	}
	type rename struct {
		cols []*pgq.Node
		body *pgq.SelectStmt
	}
	var aliases []alias
	var renames []rename
	visitPGTree(stmt.ProtoReflect(), func(m protoreflect.Message) {
		switch n := m.Interface().(type) {
		case *pgq.ResTarget:
			name := n.GetName()
			if name == "" && n.GetVal() != nil && !pgHasStar([]*pgq.Node{{Node: &pgq.Node_ResTarget{ResTarget: n}}}) {
				name = pgImplicitName(n.GetVal())
			}
			if name != "" && n.GetVal() != nil {
				aliases = append(aliases, alias{strings.ToLower(name), n.GetVal()})
			}
		case *pgq.CommonTableExpr:
			if len(n.GetAliascolnames()) > 0 {
				renames = append(renames, rename{n.GetAliascolnames(), n.GetCtequery().GetSelectStmt()})
			}
		case *pgq.RangeSubselect:
			if cols := n.GetAlias().GetColnames(); len(cols) > 0 {
				renames = append(renames, rename{cols, n.GetSubquery().GetSelectStmt()})
			}
		}
	})
	tainted := map[string]bool{}
	for changed := true; changed; {
		changed = false
		for _, a := range aliases {
			if !tainted[a.name] && pgExprTainted(a.expr, tainted, r) {
				tainted[a.name], changed = true, true
			}
		}
		for _, rn := range renames {
			for _, list := range pgBranchTargets(rn.body) {
				if pgHasStar(list) {
					continue
				}
				for i, col := range rn.cols {
					name := strings.ToLower(col.GetString_().GetSval())
					if i < len(list) && !tainted[name] && pgExprTainted(list[i].GetResTarget().GetVal(), tainted, r) {
						tainted[name], changed = true, true
					}
				}
			}
		}
	}
	return tainted
}

// pgExprTainted reports whether e reads a secret-named or tainted column,
// or a whole row that can carry one (pgWholeRow); a count of it is not a
// secret.
func pgExprTainted(e *pgq.Node, tainted map[string]bool, r *pgResolution) bool {
	if e == nil {
		return false
	}
	found := false
	var walk func(m protoreflect.Message)
	walk = func(m protoreflect.Message) {
		if found {
			return
		}
		switch n := m.Interface().(type) {
		case *pgq.FuncCall:
			if name, _ := pgBuiltinName(n.GetFuncname()); name == "count" {
				return
			}
		case *pgq.ColumnRef:
			fields := n.GetFields()
			if len(fields) == 0 {
				return
			}
			if s := fields[len(fields)-1].GetString_(); s != nil {
				if egress.SecretName(s.GetSval()) || tainted[strings.ToLower(s.GetSval())] {
					found = true
					return
				}
			}
			if pgWholeRow(fields, r) || (r != nil && r.carriers[fields[len(fields)-1].GetString_().GetSval()]) {
				found = true
				return
			}
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			if fd.Kind() != protoreflect.MessageKind || fd.IsMap() {
				return true
			}
			if fd.IsList() {
				l := v.List()
				for i := 0; i < l.Len(); i++ {
					walk(l.Get(i).Message())
				}
			} else {
				walk(v.Message())
			}
			return !found
		})
	}
	walk(e.ProtoReflect())
	return found
}

// pgBranchTargets lists the target list of every SELECT a set operation is
// made of.
func pgBranchTargets(s *pgq.SelectStmt) [][]*pgq.Node {
	if s == nil {
		return nil
	}
	if s.GetOp() != pgq.SetOperation_SETOP_NONE && s.GetOp() != pgq.SetOperation_SET_OPERATION_UNDEFINED {
		return append(pgBranchTargets(s.GetLarg()), pgBranchTargets(s.GetRarg())...)
	}
	return [][]*pgq.Node{s.GetTargetList()}
}

// pgHasStar reports whether a target list expands a star (its positions no
// longer match the output columns).
func pgHasStar(list []*pgq.Node) bool {
	for _, t := range list {
		for _, f := range t.GetResTarget().GetVal().GetColumnRef().GetFields() {
			if f.GetAStar() != nil {
				return true
			}
		}
	}
	return false
}
