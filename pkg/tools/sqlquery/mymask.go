package sqlquery

import (
	"errors"
	"strings"

	"github.com/go-sql-driver/mysql"

	"github.com/superbiz/superbiz/pkg/egress"
)

// myQuotingErrors are the MySQL and MariaDB errors whose first quoted span
// is a value the statement computed or read, so data (issue 34): 1062
// Duplicate entry '…', 1105 XPATH syntax error: '…', 1292 Incorrect/
// Truncated incorrect … value: '…', 1300 Invalid … character string: '…',
// 1366/1367/1411/1525 Incorrect … value: '…', 1690 … value is out of
// range in '…', 3141/3146/3156 JSON errors, 3064 Incorrect type … '…'.
var myQuotingErrors = map[uint16]bool{
	1062: true, 1105: true, 1265: true, 1292: true, 1300: true, 1366: true, 1367: true, 1411: true,
	1525: true, 1690: true, 3064: true, 3141: true, 3146: true, 3156: true,
}

// myServerWords are the quoted words of the servers' own messages that
// name a clause, not data ("Unknown column 'x' in 'field list'").
var myServerWords = setOf("field list", "where clause", "on clause", "order clause", "group statement",
	"having clause", "select", "from clause", "having", "order by", "group by", "primary")

// myMaskError keeps what a MySQL or MariaDB server error says and masks
// what it quotes from data: a value the server could not store or convert
// (`Incorrect integer value: 'HunterTwoAlpaca9' for column …`, a recursive
// CTE's column being enough to make MariaDB write it), a duplicate key, an
// expression folded with a row's value. From the first single-quoted span
// that is data (any span of an error in myQuotingErrors, else a span that
// is neither text of stmt nor a clause name) to the message's last quote,
// everything becomes the marker: the server quotes a value without
// escaping its quotes, so an inner quote cannot end the masking early.
// Then the whole text passes the egress door's policy. The error number
// and SQLSTATE stay (classify reads them); errors that are not the
// server's pass unchanged (the sinks pass every error through the door).
func myMaskError(err error, stmt string) error {
	var me *mysql.MySQLError
	if err == nil || !errors.As(err, &me) {
		return err
	}
	masked := &mysql.MySQLError{Number: me.Number, SQLState: me.SQLState,
		Message: egress.Mask(myMaskQuoted(me.Message, stmt, myQuotingErrors[me.Number])).String()}
	return &maskedServerError{masked: masked, text: egress.Mask(strings.Replace(err.Error(), me.Error(), masked.Error(), 1)).String()}
}

// myMaskQuoted masks s from its first single-quoted span that is data to
// its last quote; with data, the first span is data whatever it holds.
func myMaskQuoted(s, stmt string, data bool) string {
	lower := strings.ToLower(stmt)
	last := myNextQuote(s, len(s)-1, -1)
	for i := 0; i < len(s); {
		open := myNextQuote(s, i, 1)
		if open < 0 {
			return s
		}
		end := myNextQuote(s, open+1, 1)
		if end < 0 {
			return s[:open+1] + egress.Marker // unterminated: what follows may be data
		}
		content := strings.ToLower(s[open+1 : end])
		known := !data && (content == "" || myServerWords[content] || myStatementText(lower, content))
		if !known {
			return s[:open+1] + egress.Marker + "'" + s[last+1:]
		}
		i = end + 1
	}
	return s
}

// myNextQuote is the index of the first quote of s from i on (step 1) or
// back (step -1) that can open or close a quoted span: an apostrophe
// between two letters (the server's own "doesn't") is not one; -1 when
// there is none.
func myNextQuote(s string, i, step int) int {
	letter := func(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }
	for ; i >= 0 && i < len(s); i += step {
		if s[i] == '\'' && (i == 0 || i == len(s)-1 || !letter(s[i-1]) || !letter(s[i+1])) {
			return i
		}
	}
	return -1
}

// myStatementText reports whether content (lower-cased) is text of the
// statement: the whole of it, or a qualified name whose last part is (the
// server writes `shop.nope` for the model's `nope`).
func myStatementText(stmt, content string) bool {
	if strings.Contains(stmt, content) {
		return true
	}
	qualifier, name, ok := strings.Cut(content, ".")
	return ok && name != "" && !strings.ContainsAny(qualifier, " '\"") && !strings.ContainsAny(name, " .'\"") && strings.Contains(stmt, name)
}
