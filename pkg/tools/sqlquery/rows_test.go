package sqlquery

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/superbiz/superbiz/pkg/tools"
)

// classify gives each kind of execution error its stable code: a server's
// error about the statement (a PostgreSQL SQLSTATE) is the model's input,
// an error no case knows is INTERNAL, whatever wraps it.
func TestClassifyCodes(t *testing.T) {
	syntax := &pgconn.PgError{Code: "42601", Message: "syntax error at or near \"FORM\""}
	for _, tt := range []struct {
		err  error
		want string
	}{
		{errors.New("boom"), tools.CodeInternal},
		{fmt.Errorf("read rows: %w", errors.New("boom")), tools.CodeInternal},
		{syntax, tools.CodeInvalidInput},
		{fmt.Errorf("postgres: %w", syntax), tools.CodeInvalidInput},
		{&tooLargeError{size: 9, limit: 8}, tools.CodeInvalidInput},
		{&timeoutError{where: "db", err: errors.New("x")}, tools.CodeTimeout},
		{&cancelledError{where: "db", err: errors.New("x")}, tools.CodeCancelled},
		{&unavailableError{where: "db", err: errors.New("x")}, tools.CodeUnavailable},
		{fmt.Errorf("query: %w", context.DeadlineExceeded), tools.CodeTimeout},
	} {
		if got := classify(tt.err); got != tt.want {
			t.Errorf("classify(%v) = %s, want %s", tt.err, got, tt.want)
		}
	}
}
