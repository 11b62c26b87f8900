package runstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/superbiz/superbiz/pkg/runrecord"
)

// Session is a conversation: the runs that share it and what the router
// needs to know about the previous turn.
type Session struct {
	ID        string
	CreatedAt time.Time
	// UpdatedAt moves with every run created in the session and every
	// routed intent, so "the most recent session" is the last one used.
	UpdatedAt time.Time
	// LastIntent and LastQuery are the previous routed turn, the router's
	// only memory ("" before the first one).
	LastIntent string
	LastQuery  string
}

// CreateSession stores a new session; an ID already in use returns ErrExists.
func (s *Store) CreateSession(ctx context.Context, id string) error {
	if err := checkID("session", id); err != nil {
		return fmt.Errorf("create session: %w", err)
	}
	now := unixMS(time.Now())
	res, err := s.db.ExecContext(ctx,
		`INSERT INTO sessions (id, created_at, updated_at) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING`,
		id, now, now)
	if err != nil {
		return fmt.Errorf("create session %s: %w", id, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("create session %s: %w", id, err)
	} else if n == 0 {
		return fmt.Errorf("create session %s: %w", id, ErrExists)
	}
	return nil
}

// EnsureSession creates the session unless it exists, for `--session ID`
// naming a session that may be new; created says which happened.
func (s *Store) EnsureSession(ctx context.Context, id string) (created bool, err error) {
	if err := checkID("session", id); err != nil {
		return false, fmt.Errorf("ensure session: %w", err)
	}
	now := unixMS(time.Now())
	res, err := s.db.ExecContext(ctx,
		`INSERT INTO sessions (id, created_at, updated_at) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING`,
		id, now, now)
	if err != nil {
		return false, fmt.Errorf("ensure session %s: %w", id, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("ensure session %s: %w", id, err)
	}
	return n == 1, nil
}

// GetSession returns one session (ErrNotFound when missing), for the
// router's last intent and query.
func (s *Store) GetSession(ctx context.Context, id string) (Session, error) {
	var (
		ss       Session
		cr, upMS int64
	)
	err := s.db.QueryRowContext(ctx,
		`SELECT id, created_at, updated_at, last_intent, last_query FROM sessions WHERE id = ?`, id).
		Scan(&ss.ID, &cr, &upMS, &ss.LastIntent, &ss.LastQuery)
	if errors.Is(err, sql.ErrNoRows) {
		return Session{}, fmt.Errorf("session %q: %w", id, ErrNotFound)
	}
	if err != nil {
		return Session{}, fmt.Errorf("get session %s: %w", id, err)
	}
	ss.CreatedAt, ss.UpdatedAt = fromMS(cr), fromMS(upMS)
	return ss, nil
}

// LatestSessionID returns the most recently used session, for `--continue`;
// ok is false when the store has no session yet. A session that holds only
// replays, direct tool calls (intent TOOL_CALL, an MCP client's) and
// timelines (TIMELINE) is never "the latest": those are checks, not a
// conversation.
func (s *Store) LatestSessionID(ctx context.Context) (id string, ok bool, err error) {
	err = s.db.QueryRowContext(ctx, latestSessionsQuery, runrecord.IntentToolCall, 0, runrecord.IntentTimeline).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("latest session: %w", err)
	}
	return id, true, nil
}

// latestSessionsQuery is the session ?2 places before the most recently
// used one, leaving out sessions holding only replays and runs of intent ?1
// (TOOL_CALL) or ?3 (TIMELINE): --continue takes the first, "last~N" the others.
const latestSessionsQuery = `SELECT s.id FROM sessions s
	 WHERE NOT EXISTS (SELECT 1 FROM runs r WHERE r.session_id = s.id)
	    OR EXISTS (SELECT 1 FROM runs r WHERE r.session_id = s.id AND r.replay_of IS NULL AND r.intent NOT IN (?1, ?3))
	 ORDER BY s.updated_at DESC, s.rowid DESC LIMIT 1 OFFSET ?2`

// maxIDLen bounds IDs: they are generated tokens, never free text.
const maxIDLen = 128

// checkID rejects empty, oversize or control-character IDs with a message
// naming which ID is wrong.
func checkID(what, id string) error {
	if id == "" {
		return fmt.Errorf("empty %s ID", what)
	}
	if len(id) > maxIDLen {
		return fmt.Errorf("%s ID is %d bytes, at most %d allowed", what, len(id), maxIDLen)
	}
	for _, r := range id {
		if r < 0x21 || r == 0x7f {
			return fmt.Errorf("%s ID %q contains a space or control character", what, id)
		}
	}
	return nil
}
