package runstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/superbiz/superbiz/pkg/runrecord"
)

// Short names for runs and sessions (docs/SPEC.md#short-names): wherever a
// command takes a run or session ID it also takes RefLast ("the newest"),
// RefLast~N (the one N before it) and a unique prefix of at least
// MinPrefix characters; a run also takes its number in the store (12).
// ResolveRun and ResolveSession turn one into an ID, so every command
// (runs show, replay, chat --session, eval) resolves alike.

// RefLast names the newest run or session.
const RefLast = "last"

// refBack separates RefLast from how many to go back ("last~2").
const refBack = "~"

// MinPrefix is the fewest characters a prefix must have to name a run or
// session; shorter ones would match too much to mean anything.
const MinPrefix = 6

// maxAmbiguous bounds the matches an AmbiguousError lists.
const maxAmbiguous = 10

// AmbiguousError is a prefix that names more than one run or session; it
// lists them (newest first, at most maxAmbiguous) so the user can pick.
type AmbiguousError struct {
	Kind    string // "run" or "session"
	Ref     string
	Matches []string
	More    bool // more matched than Matches lists
}

func (e *AmbiguousError) Error() string {
	more := ""
	if e.More {
		more = ", …"
	}
	return fmt.Sprintf("%s prefix %q is ambiguous: it names %s%s; give more characters", e.Kind, e.Ref, strings.Join(e.Matches, ", "), more)
}

// RefNotFoundError is a reference that names no run or session, with why
// when the resolver knows more; errors.Is(err, ErrNotFound) holds.
type RefNotFoundError struct {
	Kind string // "run" or "session"
	Ref  string
	Why  string // "" or, e.g., "the store has fewer than 3 runs"
}

func (e *RefNotFoundError) Error() string {
	msg := fmt.Sprintf("%s %q: %v", e.Kind, e.Ref, ErrNotFound)
	if e.Why != "" {
		msg += " (" + e.Why + ")"
	}
	return msg
}

// Unwrap makes a RefNotFoundError an ErrNotFound.
func (e *RefNotFoundError) Unwrap() error { return ErrNotFound }

// IsRelativeRef reports whether ref is "last" or "last~…": a name relative
// to the newest, never an ID of its own.
func IsRelativeRef(ref string) bool {
	return ref == RefLast || strings.HasPrefix(ref, RefLast+refBack)
}

// refKind is what a reference resolves against.
type refKind struct {
	name   string // "run", "session"
	marker string // the IDs' prefix, "r_" or "s_"
	// newest is the query of the ID back places before the newest, and
	// newestArgs its arguments.
	newest     string
	newestArgs func(back int) []any
	// prefixed lists the IDs starting with ?1 or ?2, newest first, at most ?3.
	prefixed string
	exact    string
	// numbered is the ID of the one numbered ?1, or "" when this kind has
	// no numbers (sessions); highest is its highest number. Each has a %s
	// where the file's number expression goes (Store.numberColumn).
	numbered, highest string
}

func runRefs() refKind {
	return refKind{
		name: "run", marker: "r_",
		newest:     `SELECT id FROM runs ORDER BY created_at DESC, rowid DESC LIMIT 1 OFFSET ?`,
		newestArgs: func(back int) []any { return []any{back} },
		prefixed:   `SELECT id FROM runs WHERE substr(id, 1, length(?1)) = ?1 OR substr(id, 1, length(?2)) = ?2 ORDER BY created_at DESC, rowid DESC LIMIT ?3`,
		exact:      `SELECT id FROM runs WHERE id = ?`,
		numbered:   `SELECT id FROM runs WHERE %s = ?`,
		highest:    `SELECT coalesce(max(%s), 0) FROM runs`,
	}
}

// sessionRefs counts sessions as --continue does (LatestSessionID).
func sessionRefs() refKind {
	return refKind{
		name: "session", marker: "s_",
		newest:     latestSessionsQuery,
		newestArgs: func(back int) []any { return []any{runrecord.IntentToolCall, back, runrecord.IntentTimeline} },
		prefixed:   `SELECT id FROM sessions WHERE substr(id, 1, length(?1)) = ?1 OR substr(id, 1, length(?2)) = ?2 ORDER BY updated_at DESC, rowid DESC LIMIT ?3`,
		exact:      `SELECT id FROM sessions WHERE id = ?`,
	}
}

// ResolveRun is the run ID a reference names: an ID, "last", "last~N", the
// run's number or a unique prefix (with or without "r_"). No such run
// wraps ErrNotFound; a prefix of several runs is an *AmbiguousError;
// "last~x" is an error.
func (s *Store) ResolveRun(ctx context.Context, ref string) (string, error) {
	return s.resolve(ctx, runRefs(), ref)
}

// ResolveReplayable is ResolveRun for `replay`: "last" and "last~N" count
// only the finished DIAGNOSIS and TIMELINE runs (those usecase.Replayable
// accepts) that are no replay themselves, so
// `replay last` right after a replay replays the same original again
// rather than the replay. IDs, numbers and prefixes name any run.
func (s *Store) ResolveReplayable(ctx context.Context, ref string) (string, error) {
	k := runRefs()
	k.newest = `SELECT id FROM runs WHERE replay_of IS NULL AND intent IN (?, ?) AND status <> ? ORDER BY created_at DESC, rowid DESC LIMIT 1 OFFSET ?`
	k.newestArgs = func(back int) []any {
		return []any{runrecord.IntentDiagnosis, runrecord.IntentTimeline, runrecord.RunStatusRunning, back}
	}
	return s.resolve(ctx, k, ref)
}

// ResolveSession is the session ID a reference names, as ResolveRun; "last"
// is the session --continue would pick.
func (s *Store) ResolveSession(ctx context.Context, ref string) (string, error) {
	return s.resolve(ctx, sessionRefs(), ref)
}

func (s *Store) resolve(ctx context.Context, k refKind, ref string) (string, error) {
	if back, ok, err := parseLast(ref); ok || err != nil {
		if err != nil {
			return "", err
		}
		var id string
		err := s.db.QueryRowContext(ctx, k.newest, k.newestArgs(back)...).Scan(&id)
		if err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return "", &RefNotFoundError{Kind: k.name, Ref: ref, Why: "the store has " + fewer(k.name, back)}
			}
			return "", fmt.Errorf("resolve %s %q: %w", k.name, ref, err)
		}
		return id, nil
	}
	var id string
	switch err := s.db.QueryRowContext(ctx, k.exact, ref).Scan(&id); {
	case err == nil:
		return id, nil
	case !errors.Is(err, sql.ErrNoRows):
		return "", fmt.Errorf("resolve %s %q: %w", k.name, ref, err)
	}
	if n, ok := runNumber(ref); ok && k.numbered != "" {
		switch err := s.db.QueryRowContext(ctx, fmt.Sprintf(k.numbered, s.numberColumn()), n).Scan(&id); {
		case err == nil:
			return id, nil
		case !errors.Is(err, sql.ErrNoRows):
			return "", fmt.Errorf("resolve %s %q: %w", k.name, ref, err)
		}
		if len(ref) < MinPrefix { // a prefix this short names nothing: say why the number does not
			var highest int64
			if err := s.db.QueryRowContext(ctx, fmt.Sprintf(k.highest, s.numberColumn())).Scan(&highest); err != nil {
				return "", fmt.Errorf("resolve %s %q: %w", k.name, ref, err)
			}
			return "", &RefNotFoundError{Kind: k.name, Ref: ref, Why: numbered(k.name, highest)}
		}
	}
	if len(ref) < MinPrefix {
		return "", &RefNotFoundError{Kind: k.name, Ref: ref, Why: fmt.Sprintf("a prefix names one from %d characters on", MinPrefix)}
	}
	rows, err := s.db.QueryContext(ctx, k.prefixed, ref, k.marker+ref, maxAmbiguous+1)
	if err != nil {
		return "", fmt.Errorf("resolve %s %q: %w", k.name, ref, err)
	}
	defer rows.Close()
	var matches []string
	for rows.Next() {
		if err := rows.Scan(&id); err != nil {
			return "", fmt.Errorf("resolve %s %q: %w", k.name, ref, err)
		}
		matches = append(matches, id)
	}
	if err := rows.Err(); err != nil {
		return "", fmt.Errorf("resolve %s %q: %w", k.name, ref, err)
	}
	switch len(matches) {
	case 0:
		return "", &RefNotFoundError{Kind: k.name, Ref: ref}
	case 1:
		return matches[0], nil
	}
	e := &AmbiguousError{Kind: k.name, Ref: ref, Matches: matches}
	if len(matches) > maxAmbiguous {
		e.Matches, e.More = matches[:maxAmbiguous], true
	}
	return "", e
}

// parseLast reads "last" (0) and "last~N" (N); ok is false for anything
// else, and err is set for "last~" followed by no number.
func parseLast(ref string) (back int, ok bool, err error) {
	if ref == RefLast {
		return 0, true, nil
	}
	n, found := strings.CutPrefix(ref, RefLast+refBack)
	if !found {
		return 0, false, nil
	}
	back, err = strconv.Atoi(n)
	if err != nil || back < 0 || strings.HasPrefix(n, "+") {
		return 0, false, fmt.Errorf("%q: after %s%s give how many to go back, a number ≥ 0 (%s%s1 is the one before the newest)", ref, RefLast, refBack, RefLast, refBack)
	}
	return back, true, nil
}

// runNumber reads a run's number: digits only, at most 18 of them (so it
// fits an int64), without sign or blanks.
func runNumber(ref string) (int64, bool) {
	if ref == "" || len(ref) > 18 {
		return 0, false
	}
	for _, c := range ref {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(ref, 10, 64)
	return n, err == nil
}

// numbered says which numbers the store's runs have when a number named
// none of them.
func numbered(kind string, highest int64) string {
	if highest == 0 {
		return "no " + kind + " yet"
	}
	return fmt.Sprintf("the store's %ss are numbered 1 to %d", kind, highest)
}

// fewer says how many the store holds when "last~N" went past the oldest.
func fewer(kind string, back int) string {
	if back == 0 {
		return "no " + kind + " yet"
	}
	return "fewer than " + strconv.Itoa(back+1) + " " + kind + "s"
}
