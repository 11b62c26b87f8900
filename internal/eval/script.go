package eval

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"modernc.org/sqlite" // the fresh SQLite files .sql scripts are loaded into
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/pkg/tools/sqlquery"
)

// The bounds of a pack's .sql script, which is shared data and may be
// hostile: it builds one fresh SQLite file and nothing else.
const (
	// MaxScriptBytes bounds the script's text.
	MaxScriptBytes = 16 << 20
	// ScriptTimeout bounds the script's run time (sqlite3_interrupt).
	ScriptTimeout = 30 * time.Second
	// MaxScriptDatabaseBytes bounds the file the script builds
	// (PRAGMA max_page_count, at SQLite's default 4 KiB page).
	MaxScriptDatabaseBytes = 256 << 20
	scriptPageBytes        = 4096
)

// scriptPragmas are the PRAGMAs a script may run: ones that change only how
// its own file's rows are checked or labelled. Every other PRAGMA (among
// them max_page_count, page_size, journal_mode, writable_schema) is refused.
var scriptPragmas = []string{"foreign_keys", "defer_foreign_keys", "user_version", "application_id", "encoding", "recursive_triggers"}

// scriptFile is how a .sql script is read: a regular file, bounded.
var scriptFile = config.Untrusted{What: "pack script", Limit: MaxScriptBytes, Kind: "a .sql file", Size: "load a smaller data set"}

// errScriptRefused marks a statement the script's authorizer denied.
var errScriptRefused = errors.New("refused")

// scriptAuthorizer lets a script build tables in its own file and nothing
// else: no ATTACH or DETACH (another file), no load_extension, and only the
// PRAGMAs of scriptPragmas. Its refusals are recorded in denied, which the
// error then names.
func scriptAuthorizer(denied *[]string) sqlite.AuthorizerFn {
	return func(action sqlite.AuthorizerActionCode, arg1, arg2, _, _ string) sqlite.AuthorizerReturnCode {
		switch action {
		case sqlite.AuthAttach:
			*denied = append(*denied, "ATTACH")
		case sqlite.AuthDetach:
			*denied = append(*denied, "DETACH")
		case sqlite.AuthPragma:
			if slices.Contains(scriptPragmas, strings.ToLower(arg1)) {
				return sqlite.AuthorizerOK
			}
			*denied = append(*denied, "PRAGMA "+arg1)
		case sqlite.AuthFunction:
			if !strings.EqualFold(arg2, "load_extension") {
				return sqlite.AuthorizerOK
			}
			*denied = append(*denied, "load_extension")
		default:
			return sqlite.AuthorizerOK
		}
		return sqlite.AuthorizerDeny
	}
}

// boundScriptConn bounds the script's connection on its own, whatever the
// authorizer allows: its file's size, the length of any value, and no
// attached database (SQLITE_LIMIT_ATTACHED = 0 also stops VACUUM INTO,
// which attaches its target).
func boundScriptConn(ctx context.Context, conn *sql.Conn) error {
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA max_page_count = %d", MaxScriptDatabaseBytes/scriptPageBytes)); err != nil {
		return err
	}
	for _, l := range []struct{ id, value int }{
		{sqlite3.SQLITE_LIMIT_ATTACHED, 0},
		{sqlite3.SQLITE_LIMIT_LENGTH, sqlquery.MaxSQLiteValueBytes},
	} {
		if _, err := sqlite.Limit(conn, l.id, l.value); err != nil {
			return err
		}
	}
	return nil
}

// loadScript builds the fresh SQLite file file from the pack's script: a
// single connection that cannot attach another database
// (SQLITE_LIMIT_ATTACHED = 0, which also stops VACUUM INTO), whose
// authorizer refuses ATTACH, DETACH, load_extension and PRAGMAs outside
// scriptPragmas, with its size, value length and run time bounded.
func loadScript(ctx context.Context, script, file string) error {
	body, err := config.ReadRegular(script, scriptFile)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, ScriptTimeout)
	defer cancel()
	db, err := sql.Open("sqlite", file)
	if err != nil {
		return fmt.Errorf("open %s: %w", file, err)
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("open %s: %w", file, err)
	}
	defer conn.Close()
	if err := boundScriptConn(ctx, conn); err != nil {
		return fmt.Errorf("bound %s: %w", file, err)
	}
	var denied []string
	if err := conn.Raw(func(dc any) error {
		r, ok := dc.(sqlite.AuthorizerRegisterer)
		if !ok {
			return fmt.Errorf("the SQLite driver's connection %T takes no authorizer", dc)
		}
		return r.RegisterAuthorizer(scriptAuthorizer(&denied))
	}); err != nil {
		return err
	}
	_, err = conn.ExecContext(ctx, string(body))
	switch {
	case err == nil:
		return nil
	case len(denied) > 0:
		return fmt.Errorf("load %s: %w: %s (a pack's script builds only its own tables): %v", script, errScriptRefused, denied[0], err)
	case ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("load %s: stopped after %s, the limit of a pack's script", script, ScriptTimeout)
	}
	return fmt.Errorf("load %s: %w", script, err)
}
