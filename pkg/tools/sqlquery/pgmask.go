package sqlquery

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/superbiz/superbiz/pkg/egress"
)

// pgMaskError keeps what a server error says and masks what it quotes from
// data: the server quotes the value it could not read (`invalid input
// syntax for type integer: "HunterTwoAlpaca9"` for password::int, `relation
// "huntertwoalpaca9" does not exist` for password::regclass), so every
// double-quoted span of the message that is not text of the statement
// itself (a column or table name the model wrote, its own literal) becomes
// the marker; the result then passes the egress door's policy (pkg/egress).
// The server's DETAIL, HINT and CONTEXT fields (which quote JSON input and
// tokens) are dropped. Errors that are not the server's pass unchanged (the
// sinks pass every error through the door).
func pgMaskError(err error, stmt string) error {
	var pe *pgconn.PgError
	if err == nil || !errors.As(err, &pe) {
		return err
	}
	masked := &pgconn.PgError{
		Severity: pe.Severity, SeverityUnlocalized: pe.SeverityUnlocalized, Code: pe.Code,
		Message: egress.Mask(pgMaskServerQuoted(pe.Message, stmt)).String(),
	}
	// The whole text passes the egress door too (issue 34's one policy), on
	// top of the quoted spans this source masks.
	text := egress.Mask(strings.Replace(err.Error(), pe.Error(), masked.Error(), 1)).String()
	return &maskedServerError{masked: masked, text: text}
}

// maskedServerError is a server error with its quoted data masked: its
// text is the wrapping error's with the server's part masked, and
// errors.As finds the masked server error (*pgconn.PgError with its
// SQLSTATE, *mysql.MySQLError with its number), so classify still reads it.
type maskedServerError struct {
	masked error
	text   string
}

func (e *maskedServerError) Error() string { return e.text }
func (e *maskedServerError) Unwrap() error { return e.masked }

// pgMaskQuoted replaces each span quoted by q (with the doubled quote as
// its escape) whose content is not found in stmt, case-insensitively, by
// the quoted marker.
func pgMaskQuoted(s, stmt string, q byte) string { return pgMaskSpans(s, stmt, q, false) }

// pgMaskServerQuoted is pgMaskQuoted of a server message, whose quoted
// value keeps its own quotes unescaped (`invalid input syntax for type
// integer: "{"token":["…"]}"`): from the first span that is not text of the
// statement to the message's last quote, everything is masked, so a quote
// inside the value cannot end the masking early.
func pgMaskServerQuoted(s, stmt string) string { return pgMaskSpans(s, stmt, '"', true) }

// pgMaskSpans masks the quoted spans of s not found in stmt; to the last
// quote of s once one is masked, when rest is true.
func pgMaskSpans(s, stmt string, q byte, rest bool) string {
	lower := strings.ToLower(stmt)
	last := strings.LastIndexByte(s, q)
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != q {
			b.WriteByte(s[i])
			i++
			continue
		}
		end := i + 1
		for end < len(s) {
			if s[end] == q {
				if end+1 < len(s) && s[end+1] == q {
					end += 2
					continue
				}
				break
			}
			end++
		}
		if end >= len(s) {
			// An unterminated quote: what follows may be data.
			b.WriteByte(q)
			b.WriteString(egress.Marker)
			break
		}
		content := s[i+1 : end]
		if content == "" || strings.Contains(lower, strings.ToLower(content)) {
			b.WriteString(s[i : end+1])
		} else {
			b.WriteByte(q)
			b.WriteString(egress.Marker)
			b.WriteByte(q)
			if rest && last > end {
				end = last
			}
		}
		i = end + 1
	}
	return b.String()
}

// pgMaskPlanLiterals masks the string literals of an EXPLAIN line that are
// not the statement's own: a view's or an inlined SQL function's body
// prints its literals in Filter and Index Cond lines, which are refused
// everywhere else (pg_views.definition).
func pgMaskPlanLiterals(plan, stmt string) string { return pgMaskQuoted(plan, stmt, '\'') }

// pgBuiltinTypes is pgx's map of the built-in types: a result column of one
// of them (other than record) is a scalar, an array or a range of scalars.
var pgBuiltinTypes = sync.OnceValue(pgtype.NewMap)

// pgBuiltinType reports whether oid is a built-in type pgx knows.
func pgBuiltinType(oid uint32) bool {
	_, ok := pgBuiltinTypes().TypeForOID(oid)
	return ok
}

// pgTypeSecrets says which result types can carry a secret-named column,
// by asking the server about every type that is not a built-in scalar: a
// table's row type (SELECT u FROM users u), a composite column, arrays and
// domains of them (array_agg(u)) are judged by their attributes' names,
// followed through nested composites; an anonymous record (row(…), a
// sub-select's row) is judged by the statement's relations (resolved), as
// its members have no names the server gives.
func pgTypeSecrets(ctx context.Context, conn *pgconn.PgConn, oids []uint32, resolved *pgResolution) (map[uint32]bool, error) {
	out := map[uint32]bool{}
	var ask []uint32
	for _, oid := range oids {
		switch {
		case oid == pgtype.RecordOID || oid == pgtype.RecordArrayOID:
			out[oid] = resolved == nil || resolved.anySecret
		case !pgBuiltinType(oid):
			ask = append(ask, oid)
		}
	}
	if len(ask) == 0 {
		return out, nil
	}
	direct := map[uint32]bool{}      // a type with a secret-named attribute or a record member
	members := map[uint32][]uint32{} // the types a type's values hold
	seen := map[uint32]bool{}
	next := ask
	for depth := 0; len(next) > 0; depth++ {
		if depth > 16 {
			for _, oid := range ask {
				out[oid] = true // nested too deep to judge: fail closed
			}
			return out, nil
		}
		var list []string
		for _, oid := range next {
			if !seen[oid] {
				seen[oid] = true
				list = append(list, strconv.FormatUint(uint64(oid), 10))
			}
		}
		if len(list) == 0 {
			break
		}
		rr := conn.ExecParams(ctx, pgTypeSQL, [][]byte{[]byte("{" + strings.Join(list, ",") + "}")}, nil, nil, nil).Read()
		if rr.Err != nil {
			return nil, fmt.Errorf("read the result's types: %w", rr.Err)
		}
		next = nil
		for _, row := range rr.Rows {
			typ, err1 := strconv.ParseUint(string(row[0]), 10, 32)
			member, err2 := strconv.ParseUint(string(row[2]), 10, 32)
			if err1 != nil || err2 != nil {
				return nil, fmt.Errorf("read the result's types: bad oid in %q", row)
			}
			t, m := uint32(typ), uint32(member)
			if name := string(row[1]); name != "" && egress.SecretName(name) {
				direct[t] = true
			}
			switch {
			case m == pgtype.RecordOID || m == pgtype.RecordArrayOID:
				direct[t] = direct[t] || resolved == nil || resolved.anySecret
			case m != 0 && !pgBuiltinType(m):
				members[t] = append(members[t], m)
				next = append(next, m)
			}
		}
	}
	var secret func(t uint32, depth int) bool
	secret = func(t uint32, depth int) bool {
		if direct[t] || depth > 16 {
			return true
		}
		for _, m := range members[t] {
			if secret(m, depth+1) {
				return true
			}
		}
		return false
	}
	for _, oid := range ask {
		out[oid] = secret(oid, 0)
	}
	return out, nil
}

// pgTypeSQL lists, for each type, what its values hold: an attribute's name
// and type (composites), the element type (arrays), the base type
// (domains), with member 0 for a type that holds nothing else.
const pgTypeSQL = `SELECT t.oid, COALESCE(a.attname, ''), COALESCE(a.atttypid, 0)
FROM pg_catalog.pg_type t
JOIN pg_catalog.pg_attribute a ON t.typrelid <> 0 AND a.attrelid = t.typrelid AND a.attnum > 0 AND NOT a.attisdropped
WHERE t.oid = ANY($1::pg_catalog.oid[])
UNION ALL
SELECT t.oid, '', t.typelem FROM pg_catalog.pg_type t WHERE t.oid = ANY($1::pg_catalog.oid[]) AND t.typelem <> 0 AND t.typrelid = 0
UNION ALL
SELECT t.oid, '', t.typbasetype FROM pg_catalog.pg_type t WHERE t.oid = ANY($1::pg_catalog.oid[]) AND t.typbasetype <> 0`
