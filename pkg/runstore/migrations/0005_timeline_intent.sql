-- Run store migration 5: an incident timeline (`superbiz timeline`) is a
-- stored run of its own with the intent TIMELINE. As in migration 3, SQLite
-- cannot alter the CHECK constraint, so runs is rebuilt by SQLite's
-- documented procedure (foreign keys off, copy, drop, rename, indexes,
-- PRAGMA foreign_key_check before COMMIT).
CREATE TABLE runs_new (
    id                TEXT    PRIMARY KEY NOT NULL CHECK (id <> ''),
    session_id        TEXT    NOT NULL REFERENCES sessions (id),
    created_at        INTEGER NOT NULL,
    finished_at       INTEGER,
    query             TEXT    NOT NULL,
    intent            TEXT    NOT NULL DEFAULT ''
                      CHECK (intent IN ('', 'DIAGNOSIS', 'SYSTEM_CHAT', 'KNOWLEDGE_QUERY', 'TOOL_CALL', 'TIMELINE')),
    status            TEXT    NOT NULL
                      CHECK (status IN ('RUNNING', 'SUCCESS', 'FAILED', 'CANCELLED')),
    release_outcome   TEXT
                      CHECK (release_outcome IN ('SUCCESS', 'FALLBACK', 'FAILED', 'CANCELLED')),
    stop_reason       TEXT    NOT NULL DEFAULT '',
    lifecycle         TEXT
                      CHECK (lifecycle IN ('COMPLETED', 'BUDGET_EXHAUSTED', 'DEADLINE_EXCEEDED', 'CANCELLED', 'FAILED')),
    answer            TEXT    NOT NULL DEFAULT '',
    published_result  TEXT,
    checks            TEXT,
    model             TEXT    NOT NULL DEFAULT '',
    host              TEXT    NOT NULL DEFAULT '',
    clock             TEXT    NOT NULL DEFAULT '',
    budget            TEXT,
    model_calls       INTEGER NOT NULL DEFAULT 0,
    tool_calls        INTEGER NOT NULL DEFAULT 0,
    prompt_tokens     INTEGER NOT NULL DEFAULT 0,
    completion_tokens INTEGER NOT NULL DEFAULT 0,
    bytes             INTEGER NOT NULL DEFAULT 0,
    duration_ms       INTEGER NOT NULL DEFAULT 0,
    error_code        TEXT    NOT NULL DEFAULT '',
    error_message     TEXT    NOT NULL DEFAULT '',
    replay_of         TEXT,
    pid               INTEGER NOT NULL DEFAULT 0,
    hostname          TEXT    NOT NULL DEFAULT ''
);
INSERT INTO runs_new (id, session_id, created_at, finished_at, query, intent, status, release_outcome,
    stop_reason, lifecycle, answer, published_result, checks, model, host, clock, budget, model_calls,
    tool_calls, prompt_tokens, completion_tokens, bytes, duration_ms, error_code, error_message,
    replay_of, pid, hostname)
    SELECT id, session_id, created_at, finished_at, query, intent, status, release_outcome,
    stop_reason, lifecycle, answer, published_result, checks, model, host, clock, budget, model_calls,
    tool_calls, prompt_tokens, completion_tokens, bytes, duration_ms, error_code, error_message,
    replay_of, pid, hostname FROM runs;
DROP TABLE runs;
ALTER TABLE runs_new RENAME TO runs;
CREATE INDEX runs_created_at ON runs (created_at);
CREATE INDEX runs_session_created_at ON runs (session_id, created_at);
CREATE INDEX runs_running ON runs (status) WHERE status = 'RUNNING';
CREATE INDEX runs_replay_of ON runs (replay_of) WHERE replay_of IS NOT NULL;
