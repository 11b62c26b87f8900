package sqlquery

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// The servers' own texts (MariaDB 10.11 and MySQL 8 message formats):
// what a value error quotes is masked to the last quote, a name the
// statement wrote or a clause the server names stays.
func TestMyMaskQuoted(t *testing.T) {
	stmt := "SELECT nope, `password` + 0 FROM users WHERE name = 'it''s' AND id = 1"
	for _, tt := range []struct {
		number  uint16
		in, out string
	}{
		{1366, "Incorrect integer value: 'HunterTwoAlpaca9' for column ``.`(temporary)`.`n` at row 2", "Incorrect integer value: '[REDACTED]' for column ``.`(temporary)`.`n` at row 2"},
		{1292, "Truncated incorrect DOUBLE value: 'HunterTwoAlpaca9'", "Truncated incorrect DOUBLE value: '[REDACTED]'"},
		{1292, "Incorrect date value: 'HunterTwoAlpaca9' for column ``.`(temporary)`.`n` at row 2", "Incorrect date value: '[REDACTED]' for column ``.`(temporary)`.`n` at row 2"},
		{1062, "Duplicate entry 'HunterTwoAlpaca91' for key 'group_key'", "Duplicate entry '[REDACTED]'"},
		{1062, "Duplicate entry 'it's a HunterTwoAlpaca9' for key 'PRIMARY'", "Duplicate entry '[REDACTED]'"},
		{1690, "DOUBLE value is out of range in 'exp(~((select 'HunterTwoAlpaca9' from dual)))'", "DOUBLE value is out of range in '[REDACTED]'"},
		{1105, "XPATH syntax error: '~HunterTwoAlpaca9'", "XPATH syntax error: '[REDACTED]'"},
		{1300, "Invalid utf8mb4 character string: 'HunterTwoAlpaca9'", "Invalid utf8mb4 character string: '[REDACTED]'"},
		{3141, "Invalid JSON text in argument 1 to function cast_as_json: \"Invalid value.\" at position 0 in 'HunterTwoAlpaca9'.", "Invalid JSON text in argument 1 to function cast_as_json: \"Invalid value.\" at position 0 in '[REDACTED]'."},
		{1411, "Incorrect datetime value: 'HunterTwoAlpaca9' for function str_to_date", "Incorrect datetime value: '[REDACTED]' for function str_to_date"},
		{1054, "Unknown column 'nope' in 'field list'", "Unknown column 'nope' in 'field list'"},
		{1054, "Unknown column 'HunterTwoAlpaca9' in 'SELECT'", "Unknown column '[REDACTED]'"},
		{1146, "Table 'shop.users' doesn't exist", "Table 'shop.users' doesn't exist"},
		{1146, "Table 'shop.HunterTwoAlpaca9' doesn't exist", "Table '[REDACTED]' doesn't exist"},
		{1064, "You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server version for the right syntax to use near '+ 0 FROM users' at line 1", "You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server version for the right syntax to use near '+ 0 FROM users' at line 1"},
		{1139, "Regex error 'missing closing parenthesis at offset 1'", "Regex error '[REDACTED]'"},
		{1105, "unterminated 'HunterTwo", "unterminated '[REDACTED]"},
		{1317, "Query execution was interrupted", "Query execution was interrupted"},
	} {
		if got := myMaskQuoted(tt.in, stmt, myQuotingErrors[tt.number]); got != tt.out {
			t.Errorf("%d %q:\n got %q\nwant %q", tt.number, tt.in, got, tt.out)
		}
	}
}

// The server's error is masked and keeps its number and SQLSTATE (classify
// reads them); other errors pass unchanged.
func TestMyMaskError(t *testing.T) {
	me := &mysql.MySQLError{Number: 1366, SQLState: [5]byte{'2', '2', '0', '0', '7'}, Message: "Incorrect integer value: 'HunterTwoAlpaca9' for column ``.`(temporary)`.`n` at row 2"}
	err := myMaskError(fmt.Errorf("read: %w", me), "SELECT 1")
	var got *mysql.MySQLError
	if strings.Contains(err.Error(), "HunterTwo") || !strings.HasPrefix(err.Error(), "read: Error 1366 (22007): Incorrect integer value: '[REDACTED]'") ||
		!errors.As(err, &got) || got.Number != 1366 || classify(err) != "INVALID_INPUT" {
		t.Fatalf("masked: %v (%+v, %s)", err, got, classify(err))
	}
	// Unquoted shapes pass the egress door's policy on top.
	me = &mysql.MySQLError{Number: 1045, Message: "Access denied: password=ReplPassMagenta3"}
	if err := myMaskError(me, "SELECT 1"); strings.Contains(err.Error(), "ReplPassMagenta3") || !isConnError(err) {
		t.Fatalf("door: %v", err)
	}
	plain := errors.New("plain")
	if myMaskError(plain, "x") != plain || myMaskError(nil, "x") != nil {
		t.Fatal("a non-server error changed")
	}
}
