package sqlquery

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/superbiz/superbiz/internal/termsafe"
	"github.com/superbiz/superbiz/internal/textclip"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/tools"
)

// readRows runs text on conn and reads at most maxRows rows, reading one more
// to know whether the answer was truncated. Cells are bounded, cleaned and
// masked: by column name (and, when the admitted statement c is known, by
// what the column is computed from), by key in key/value answers, and by
// member name in JSON text; views says what the statement's views are built
// on (nil when not judged), and its note becomes the result's.
func readRows(ctx context.Context, conn *sql.Conn, text string, maxRows int, c *Checked, views *viewTaint) (Result, error) {
	rows, err := conn.QueryContext(ctx, text)
	if err != nil {
		return Result{}, err
	}
	defer rows.Close()
	cols, err := rows.ColumnTypes()
	if err != nil {
		return Result{}, fmt.Errorf("read column types: %w", err)
	}
	res := Result{Columns: make([]string, len(cols)), Rows: [][]any{}}
	numeric := make([]bool, len(cols))
	for i, c := range cols {
		res.Columns[i] = Cell(c.Name()).(string)
		numeric[i] = isNumericType(c.DatabaseTypeName())
	}
	res.Note = views.note()
	mask := newColumnMask(c, res.Columns, views)
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if len(res.Rows) == maxRows {
			res.Truncated = true
			break
		}
		if err := rows.Scan(ptrs...); err != nil {
			return Result{}, fmt.Errorf("scan row %d: %w", len(res.Rows)+1, err)
		}
		row := make([]any, len(cols))
		for i, v := range vals {
			row[i] = cell(v, numeric[i])
		}
		mask.apply(row)
		res.Rows = append(res.Rows, row)
	}
	if err := rows.Err(); err != nil {
		return Result{}, err
	}
	if err := rows.Close(); err != nil {
		return Result{}, err
	}
	res.RowCount = len(res.Rows)
	return res, nil
}

func isNumericType(name string) bool {
	name = strings.TrimPrefix(strings.ToUpper(name), "UNSIGNED ")
	switch name {
	case "TINYINT", "SMALLINT", "MEDIUMINT", "INT", "INTEGER", "BIGINT", "DECIMAL", "NUMERIC",
		"FLOAT", "DOUBLE", "REAL", "YEAR":
		return true
	}
	return false
}

// Cell turns one driver value into a bounded JSON value: NULL → null, numbers
// stay numbers, times are RFC 3339, bytes become text when valid UTF-8 and
// "<binary N bytes>" otherwise; text loses control characters and is cut to
// MaxCellBytes on a rune boundary.
func Cell(v any) any { return cell(v, false) }

func cell(v any, numeric bool) any {
	switch x := v.(type) {
	case nil:
		return nil
	case int64, int32, int, uint64, float32, bool:
		return x
	case float64:
		return x
	case time.Time:
		return x.Format(time.RFC3339Nano)
	case []byte:
		if numeric {
			if _, err := strconv.ParseFloat(string(x), 64); err == nil {
				return json.Number(string(x))
			}
		}
		if !utf8.Valid(x) {
			return fmt.Sprintf("<binary %d bytes>", len(x))
		}
		return cleanText(string(x))
	case string:
		if numeric {
			if _, err := strconv.ParseFloat(x, 64); err == nil {
				return json.Number(x)
			}
		}
		if !utf8.ValidString(x) {
			return fmt.Sprintf("<binary %d bytes>", len(x))
		}
		return cleanText(x)
	}
	return cleanText(fmt.Sprint(v))
}

// cleanText masks secrets (before the cut, so a secret cut in half is still
// recognised), drops control characters (newlines and tabs become spaces)
// and bounds the text.
func cleanText(s string) string {
	s, _ = egress.Cell(s, false).(string) // a text cell stays text
	// Escape sequences go whole (no "[31m" residue), line breaks and tabs
	// become spaces, and undecodable bytes (U+FFFD) are dropped.
	s = strings.ReplaceAll(termsafe.Line(s), string(utf8.RuneError), "")
	return textclip.Bytes(s, MaxCellBytes)
}

// classify maps an execution error to the stable error code the model sees.
func classify(err error) string {
	if r, ok := IsRefusal(err); ok {
		if r.Reason == ReasonNotAllowed {
			return tools.CodeNotAllowed
		}
		return tools.CodeNotReadOnly
	}
	var te *timeoutError
	var ce *cancelledError
	var ue *unavailableError
	var tl *tooLargeError
	switch {
	case errors.As(err, &tl):
		return tools.CodeInvalidInput
	case errors.As(err, &ce):
		return tools.CodeCancelled
	case errors.As(err, &te):
		return tools.CodeTimeout
	case errors.As(err, &ue):
		return tools.CodeUnavailable
	case tools.ContextCode(err) != "":
		return tools.ContextCode(err)
	case notReadOnly(err), sqliteNotReadOnly(err), pgNotReadOnly(err):
		return tools.CodeNotReadOnly
	case isServerTimeout(err):
		return tools.CodeTimeout
	case isConnError(err), isPGConnError(err):
		return tools.CodeUnavailable
	case isServerError(err), pgCode(err) != "":
		return tools.CodeInvalidInput
	}
	return tools.CodeInternal
}
