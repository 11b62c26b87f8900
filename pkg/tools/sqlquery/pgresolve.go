package sqlquery

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5/pgconn"
	pgq "github.com/pganalyze/pg_query_go/v6"
	"github.com/superbiz/superbiz/pkg/egress"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// What the server resolves decides, not how the statement is spelled: once
// the guard admitted a statement, runPostgres asks the server (inside the
// READ ONLY transaction, before the statement runs) which relation each
// table name means, what columns it has and what each view is built on. It
// refuses views built on refused catalogs, reads pg_settings and
// pg_file_settings through a projection that masks secret settings' values
// at the source, and qualifies every function and operator the statement
// names with pg_catalog, so what PostgreSQL resolves can only be the
// allowlisted built-in (a user's public.length(integer) never wins over
// pg_catalog.length: length(1) fails as the built-in would).

// pgRelation is one table name of the statement as the server resolved it.
type pgRelation struct {
	ref    *pgq.RangeVar
	node   *pgq.Node // the FROM item holding ref, nil when ref is not one
	oid    uint32
	schema string
	kind   string   // pg_class.relkind: r, v, m, f, p…
	attrs  []string // column names in order
	body   string   // a view's definition, "" for other relations
	// carriers are its composite columns (or arrays of composites) with
	// a secret-named member: vault.cred of type credential(login, secret).
	carriers []string
}

// pgResolution is what the server said about an admitted statement, used
// to mask what it returns.
type pgResolution struct {
	// rowSecret names the ranges (alias, or table name) whose whole row
	// can carry a secret-named column; anySecret is true when any
	// relation of the statement can.
	rowSecret map[string]bool
	anySecret bool
	// carriers are composite columns with a secret-named member, masked
	// like a secret-named column in whatever expression reads them.
	carriers map[string]bool
	// columns are the column names the statement's relations have: a
	// single name that is not one of them but names a range is a
	// whole-row reference.
	columns map[string]bool
	ranges  map[string]bool
}

// pgSettingsViews are the views of server settings read through the
// masking projection, with the columns that hold a setting's value.
var pgSettingsViews = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"pg_settings":      {"setting", "reset_val", "boot_val"},
		"pg_file_settings": {"setting"},
	}
})

// pgFamilyColumns are, for the catalogs the guard refuses whole, the
// columns whose values are the secret: a view built on another column of
// them (pg_roles on pg_authid's names) is no twin of the refusal.
var pgFamilyColumns = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"pg_authid":             {"rolpassword"},
		"pg_shadow":             {"passwd", "useconfig"},
		"pg_user_mapping":       {"umoptions"},
		"pg_statistic":          {"*"},
		"pg_statistic_ext_data": {"*"},
		"pg_largeobject":        {"data"},
	}
})

// pgFamilyFunctions are functions whose result is what a refused catalog
// holds: a view calling one is refused like the catalog. The statement-text
// and settings readers count only for views outside pg_catalog (the
// system's own pg_stat_replication is built on pg_stat_get_activity and
// shows no statement).
var pgFamilyFunctions = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{"pg_show_all_settings": true, "pg_show_all_file_settings": true}
	for name, why := range pgNotAllowedFunctions() {
		m[name] = why == whyPGBodies
	}
	return m
})

// pgSystemOnlyFamily are the pgFamilyFunctions that taint only views outside pg_catalog.
var pgSystemOnlyFamily = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{"current_setting": true}
	for name, why := range pgNotAllowedFunctions() {
		if why != whyPGBodies {
			m[name] = true
		}
	}
	return m
})

// pgQuoteIdent quotes an identifier for PostgreSQL.
func pgQuoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// pgQuoteLiteral quotes a string literal for PostgreSQL (standard strings).
func pgQuoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// pgRelations lists the statement's table names, skipping names that
// refer to a CTE of the statement (they resolve without the search path).
func pgRelations(stmt *pgq.Node) []*pgRelation {
	ctes := map[string]bool{}
	visitPGTree(stmt.ProtoReflect(), func(m protoreflect.Message) {
		if n, ok := m.Interface().(*pgq.CommonTableExpr); ok {
			ctes[n.GetCtename()] = true
		}
	})
	var out []*pgRelation
	visitPGTree(stmt.ProtoReflect(), func(m protoreflect.Message) {
		n, ok := m.Interface().(*pgq.Node)
		if !ok || n.GetRangeVar() == nil {
			return
		}
		rv := n.GetRangeVar()
		if rv.GetSchemaname() == "" && ctes[rv.GetRelname()] {
			return
		}
		out = append(out, &pgRelation{ref: rv, node: n})
	})
	return out
}

// pgResolveSQL finds each name's relation with the session's own search
// path (to_regclass reads no table), its schema, kind and column names, and
// a view's body as the server prints it (names qualified where the search
// path would not find them).
const pgResolveSQL = `SELECT r.i, c.oid, n.nspname, c.relkind::pg_catalog.text,
  pg_catalog.to_json(ARRAY(SELECT a.attname FROM pg_catalog.pg_attribute a
    WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum)),
  pg_catalog.to_json(ARRAY(SELECT a.attname || ' ' || m.attname FROM pg_catalog.pg_attribute a
    JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
    LEFT JOIN pg_catalog.pg_type e ON e.oid = t.typelem
    JOIN pg_catalog.pg_attribute m ON m.attrelid = COALESCE(NULLIF(t.typrelid, 0), e.typrelid) AND m.attnum > 0 AND NOT m.attisdropped
    WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped)),
  CASE WHEN c.relkind IN ('v', 'm') THEN pg_catalog.pg_get_viewdef(c.oid) END
FROM pg_catalog.json_array_elements_text($1::pg_catalog.json) WITH ORDINALITY AS r(name, i)
LEFT JOIN pg_catalog.pg_class c ON c.oid = pg_catalog.to_regclass(r.name)
LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
ORDER BY r.i`

// pgResolve asks the server about the statement's relations, refuses a
// view built on a refused catalog, qualifies functions and operators with
// pg_catalog, and replaces settings views by their masking projection.
// It returns the text to run and what masking needs to know.
func pgResolve(ctx context.Context, conn *pgconn.PgConn, c *PostgresChecked, maxRows int) (string, *pgResolution, error) {
	stmt := c.tree.GetStmts()[0].GetStmt()
	rels := pgRelations(stmt)
	if len(rels) > 0 {
		if err := pgResolveRelations(ctx, conn, rels); err != nil {
			return "", nil, err
		}
		if err := pgCheckFamilies(ctx, conn, rels); err != nil {
			return "", nil, err
		}
	}
	res := pgResolutionOf(stmt, rels)
	pgQualifyCalls(stmt)
	if err := pgMaskSettings(ctx, conn, rels); err != nil {
		return "", nil, err
	}
	text, err := pgExecutable(c, maxRows)
	if err != nil {
		return "", nil, err
	}
	return text, res, nil
}

// pgQualifyCalls names pg_catalog as the schema of every function call and
// operator of the tree that names none (the guard admitted only built-in
// names, unqualified or pg_catalog's): PostgreSQL then looks for them in
// pg_catalog alone, whatever the search path holds.
func pgQualifyCalls(stmt *pgq.Node) {
	catalog := func(names []*pgq.Node) []*pgq.Node {
		if len(names) != 1 {
			return names
		}
		return append([]*pgq.Node{pgq.MakeStrNode("pg_catalog")}, names...)
	}
	visitPGTree(stmt.ProtoReflect(), func(m protoreflect.Message) {
		switch n := m.Interface().(type) {
		case *pgq.FuncCall:
			n.Funcname = catalog(n.GetFuncname())
		case *pgq.A_Expr:
			switch n.GetKind() {
			case pgq.A_Expr_Kind_AEXPR_OP, pgq.A_Expr_Kind_AEXPR_OP_ANY, pgq.A_Expr_Kind_AEXPR_OP_ALL:
				n.Name = catalog(n.GetName())
			}
		}
	})
}

// pgResolveRelations fills each relation's oid, schema, kind and columns.
func pgResolveRelations(ctx context.Context, conn *pgconn.PgConn, rels []*pgRelation) error {
	names := make([]string, len(rels))
	for i, r := range rels {
		names[i] = pgQuoteIdent(r.ref.GetRelname())
		if s := r.ref.GetSchemaname(); s != "" {
			names[i] = pgQuoteIdent(s) + "." + names[i]
		}
	}
	arg, err := json.Marshal(names)
	if err != nil {
		return fmt.Errorf("encode the table names: %w", err)
	}
	rr := conn.ExecParams(ctx, pgResolveSQL, [][]byte{arg}, nil, nil, nil).Read()
	if rr.Err != nil {
		return fmt.Errorf("resolve the table names: %w", rr.Err)
	}
	for _, row := range rr.Rows {
		i, err := strconv.Atoi(string(row[0]))
		if err != nil || i < 1 || i > len(rels) || row[1] == nil {
			continue
		}
		r := rels[i-1]
		oid, err := strconv.ParseUint(string(row[1]), 10, 32)
		if err != nil {
			return fmt.Errorf("resolve the table names: oid %q: %w", row[1], err)
		}
		r.oid, r.schema, r.kind = uint32(oid), string(row[2]), string(row[3])
		if err := json.Unmarshal(row[4], &r.attrs); err != nil {
			return fmt.Errorf("resolve the table names: columns of %s: %w", r.ref.GetRelname(), err)
		}
		var members []string
		if err := json.Unmarshal(row[5], &members); err != nil {
			return fmt.Errorf("resolve the table names: composite columns of %s: %w", r.ref.GetRelname(), err)
		}
		for _, m := range members {
			if col, member, ok := strings.Cut(m, " "); ok && egress.SecretName(member) {
				r.carriers = append(r.carriers, col)
			}
		}
		r.body = string(row[6])
	}
	return nil
}

// pgMaxViewDepth bounds how deep views of views are followed; deeper is
// refused (fail closed).
const pgMaxViewDepth = 8

// pgCheckFamilies refuses a view of the statement, not itself on the
// guard's list, that is built (directly or through other views) on a
// refused catalog, a restricted column, or a function returning what they
// hold: information_schema._pg_user_mappings is pg_user_mapping's twin,
// pg_stats_ext pg_statistic_ext_data's. What a view is built on is its
// body as the server prints it (pg_get_viewdef; system views record no
// dependencies in pg_depend), parsed by PostgreSQL's own grammar, its
// table names resolved by the server in turn.
func pgCheckFamilies(ctx context.Context, conn *pgconn.PgConn, rels []*pgRelation) error {
	for _, r := range rels {
		if r.body == "" || pgListedRelation(r.ref.GetRelname()) {
			continue
		}
		if why, err := pgViewTaint(ctx, conn, r, 0); err != nil || why != "" {
			if err != nil {
				return err
			}
			return refuse(ReasonNotAllowed, egress.Sprintf("view %s.%s is built on %s; reading it is not allowed", r.schema, r.ref.GetRelname(), why))
		}
	}
	return nil
}

// pgViewTaint says what secret a view's body reads ("" for none), and
// adds to the view's carriers its columns computed from a secret-named one.
func pgViewTaint(ctx context.Context, conn *pgconn.PgConn, view *pgRelation, depth int) (string, error) {
	if depth >= pgMaxViewDepth {
		return "views nested deeper than " + strconv.Itoa(pgMaxViewDepth), nil
	}
	tree, err := safePGParse(view.body)
	if err != nil || len(tree.GetStmts()) != 1 {
		return "a definition the parser cannot read", nil //nolint:nilerr // unreadable is refused, not an error
	}
	stmt := tree.GetStmts()[0].GetStmt()
	if why := pgBodyTaint(stmt, view.schema == "pg_catalog"); why != "" {
		return why, nil
	}
	inner := pgRelations(stmt)
	if len(inner) > 0 {
		// Listed relations too: their columns decide what the body's
		// columns are computed from.
		if err := pgResolveRelations(ctx, conn, inner); err != nil {
			return "", err
		}
	}
	for _, r := range inner {
		if r.body == "" || pgListedRelation(r.ref.GetRelname()) {
			continue
		}
		why, err := pgViewTaint(ctx, conn, r, depth+1)
		if err != nil || why != "" {
			if why != "" {
				why = fmt.Sprintf("%s.%s, itself built on %s", r.schema, r.ref.GetRelname(), why)
			}
			return why, err
		}
	}
	// The view's columns computed from a secret-named column (or from an
	// inner view's such column, or a whole row that can carry one) are
	// masked wherever the statement reads them: `pw` of `CREATE VIEW v AS
	// SELECT password AS pw FROM users`.
	if stmt.GetSelectStmt() != nil {
		for i, secret := range pgStmtSecretOutputs(stmt, view.attrs, pgResolutionOf(stmt, inner)) {
			if secret {
				view.carriers = append(view.carriers, view.attrs[i])
			}
		}
	}
	return "", nil
}

// pgBodyTaint judges one view body by what it reads of the listed
// relations: a secret column by name, a star or whole row over one, any
// column of one whose every column is secret, or a family function
// (statement-text and settings readers only in views outside pg_catalog).
func pgBodyTaint(stmt *pgq.Node, system bool) string {
	type listed struct {
		name   string
		secret []string
		names  []string
	}
	var refs []listed
	columns := map[string]bool{}
	wholes := map[string]bool{}
	star := false
	fn := ""
	visitPGTree(stmt.ProtoReflect(), func(m protoreflect.Message) {
		switch n := m.Interface().(type) {
		case *pgq.RangeVar:
			name := strings.ToLower(n.GetRelname())
			if secret := pgSecretColumnsOf(name); len(secret) > 0 {
				l := listed{name: name, secret: secret, names: []string{n.GetRelname()}}
				if a := n.GetAlias().GetAliasname(); a != "" {
					l.names = append(l.names, a)
				}
				refs = append(refs, l)
			}
		case *pgq.ColumnRef:
			fields := n.GetFields()
			for _, f := range fields {
				star = star || f.GetAStar() != nil
			}
			if len(fields) > 0 {
				last := strings.ToLower(fields[len(fields)-1].GetString_().GetSval())
				columns[last] = true
				if len(fields) == 1 {
					wholes[fields[0].GetString_().GetSval()] = true
				}
			}
		case *pgq.FuncCall:
			name, _ := pgBuiltinName(n.GetFuncname())
			body, known := pgFamilyFunctions()[name]
			if (known && body) || (!system && pgSystemOnlyFamily()[name]) {
				fn = name
			}
		}
	})
	if fn != "" {
		return fn + "(), which returns what a refused catalog holds"
	}
	for _, r := range refs {
		if slices.Contains(r.secret, "*") {
			return r.name + ", a catalog whose reading is refused"
		}
		for _, c := range r.secret {
			if columns[c] {
				return r.name + "." + c + ", a column whose reading is refused"
			}
		}
		if star {
			return "a * over " + r.name + ", which holds " + strings.Join(r.secret, ", ")
		}
		for _, n := range r.names {
			if wholes[n] {
				return "whole rows of " + r.name + ", which hold " + strings.Join(r.secret, ", ")
			}
		}
	}
	return ""
}

// pgListedRelation reports whether the guard's own list judges a relation
// by name (its column rules apply, or it is a settings view masked at the
// source), so its own body is not judged again.
func pgListedRelation(name string) bool {
	name = strings.ToLower(name)
	_, listed := pgSensitiveTables()[name]
	_, settings := pgSettingsViews()[name]
	return listed || settings
}

// pgSecretColumnsOf lists the columns of a listed relation whose values
// are refused ("*" for all), nil for a relation the guard does not list.
func pgSecretColumnsOf(name string) []string {
	if cols, ok := pgFamilyColumns()[name]; ok {
		return cols
	}
	if cols, ok := pgSettingsViews()[name]; ok {
		return cols
	}
	if spec, ok := pgSensitiveTables()[name]; ok {
		if spec.why != "" {
			return []string{"*"}
		}
		return spec.columns
	}
	return nil
}

// pgResolutionOf gathers what masking needs: which ranges' whole rows can
// carry a secret-named column, and every column name the relations have.
func pgResolutionOf(stmt *pgq.Node, rels []*pgRelation) *pgResolution {
	res := &pgResolution{rowSecret: map[string]bool{}, columns: map[string]bool{}, ranges: map[string]bool{}, carriers: map[string]bool{}}
	for _, r := range rels {
		secret := len(r.carriers) > 0
		for _, c := range r.carriers {
			res.carriers[c] = true
		}
		for _, a := range r.attrs {
			res.columns[a] = true
			secret = secret || egress.SecretName(a)
		}
		if r.oid == 0 {
			secret = true // unknown to the server: it will fail, but fail closed
		}
		name := r.ref.GetRelname()
		if a := r.ref.GetAlias().GetAliasname(); a != "" {
			name = a
		}
		res.rowSecret[name] = res.rowSecret[name] || secret
		res.anySecret = res.anySecret || secret
	}
	visitPGTree(stmt.ProtoReflect(), func(m protoreflect.Message) {
		switch n := m.Interface().(type) {
		case *pgq.RangeVar:
			res.ranges[n.GetRelname()] = true
			if a := n.GetAlias().GetAliasname(); a != "" {
				res.ranges[a] = true
			}
		case *pgq.RangeSubselect:
			res.ranges[n.GetAlias().GetAliasname()] = true
		case *pgq.RangeFunction:
			res.ranges[n.GetAlias().GetAliasname()] = true
		case *pgq.CommonTableExpr:
			res.ranges[n.GetCtename()] = true
		case *pgq.ResTarget:
			if n.GetName() != "" {
				res.columns[n.GetName()] = true
			}
		case *pgq.Alias:
			for _, c := range n.GetColnames() {
				res.columns[c.GetString_().GetSval()] = true
			}
		}
	})
	delete(res.ranges, "")
	return res
}

// pgMaskSettings replaces each FROM item naming pg_settings or
// pg_file_settings by a projection of the same columns in which a secret
// setting's value columns read as the marker: whatever the statement then
// does with them (a lone setting, reset_val, reverse(setting), a WHERE
// probing a prefix), the value never leaves the server.
func pgMaskSettings(ctx context.Context, conn *pgconn.PgConn, rels []*pgRelation) error {
	for _, r := range rels {
		values, ok := pgSettingsViews()[r.ref.GetRelname()]
		if !ok || r.schema != "pg_catalog" || r.node == nil {
			continue
		}
		secret, err := pgSecretSettingNames(ctx, conn, r.ref.GetRelname())
		if err != nil {
			return err
		}
		cols := make([]string, len(r.attrs))
		for i, a := range r.attrs {
			cols[i] = pgQuoteIdent(a)
			if slices.Contains(values, a) && len(secret) > 0 {
				list := make([]string, len(secret))
				for j, s := range secret {
					list[j] = pgQuoteLiteral(s)
				}
				cols[i] = "CASE WHEN name IN (" + strings.Join(list, ", ") + ") AND " + pgQuoteIdent(a) + " IS NOT NULL THEN " +
					pgQuoteLiteral(egress.Marker) + " ELSE " + pgQuoteIdent(a) + " END AS " + pgQuoteIdent(a)
			}
		}
		sub, err := safePGParse("SELECT * FROM (SELECT " + strings.Join(cols, ", ") + " FROM pg_catalog." + pgQuoteIdent(r.ref.GetRelname()) + ") AS x")
		if err != nil {
			return fmt.Errorf("build the masked %s: %w", r.ref.GetRelname(), err)
		}
		rs := sub.GetStmts()[0].GetStmt().GetSelectStmt().GetFromClause()[0].GetRangeSubselect()
		alias := r.ref.GetAlias()
		if alias == nil {
			alias = &pgq.Alias{Aliasname: r.ref.GetRelname()}
		}
		rs.Alias = alias
		r.node.Node = &pgq.Node_RangeSubselect{RangeSubselect: rs}
	}
	return nil
}

// pgSecretSettingNames lists the settings of a settings view whose value
// can hold a secret: the known credential-bearing ones and every one whose
// name redact.IsSecretKey calls secret (a custom myapp.password).
func pgSecretSettingNames(ctx context.Context, conn *pgconn.PgConn, view string) ([]string, error) {
	rr := conn.ExecParams(ctx, "SELECT DISTINCT name FROM pg_catalog."+pgQuoteIdent(view)+" WHERE name IS NOT NULL", nil, nil, nil, nil).Read()
	if rr.Err != nil {
		return nil, fmt.Errorf("read the names of %s: %w", view, rr.Err)
	}
	var out []string
	for _, row := range rr.Rows {
		name := string(row[0])
		if pgSecretSetting(name) {
			out = append(out, name)
		}
	}
	return out, nil
}

// pgSecretSetting reports whether a setting's value can hold a secret.
func pgSecretSetting(name string) bool {
	return egress.SecretName(name) || pgSecretSettings()[strings.ToLower(name)]
}
