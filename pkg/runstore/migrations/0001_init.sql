-- 0001_init: sessions, runs and the per-run audit (tool invocations, model
-- rounds, guard reviews). Timestamps are unix milliseconds (UTC) so that they
-- sort numerically; `clock` is the run's own RFC 3339 start time as the run saw
-- it (SUPERBIZ_NOW or real), kept as text to preserve the recorded offset.
-- JSON lives in TEXT columns.

CREATE TABLE sessions (
    id          TEXT    PRIMARY KEY NOT NULL CHECK (id <> ''),
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    last_intent TEXT    NOT NULL DEFAULT '',
    last_query  TEXT    NOT NULL DEFAULT ''
);

CREATE INDEX sessions_updated_at ON sessions (updated_at);

CREATE TABLE runs (
    id                TEXT    PRIMARY KEY NOT NULL CHECK (id <> ''),
    session_id        TEXT    NOT NULL REFERENCES sessions (id),
    created_at        INTEGER NOT NULL,
    finished_at       INTEGER,
    query             TEXT    NOT NULL,
    intent            TEXT    NOT NULL DEFAULT ''
                      CHECK (intent IN ('', 'DIAGNOSIS', 'SYSTEM_CHAT', 'KNOWLEDGE_QUERY')),
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

CREATE INDEX runs_created_at ON runs (created_at);
CREATE INDEX runs_session_created_at ON runs (session_id, created_at);
CREATE INDEX runs_running ON runs (status) WHERE status = 'RUNNING';
CREATE INDEX runs_replay_of ON runs (replay_of) WHERE replay_of IS NOT NULL;

CREATE TABLE tool_invocations (
    run_id          TEXT    NOT NULL REFERENCES runs (id),
    seq             INTEGER NOT NULL,
    tool_call_id    TEXT    NOT NULL,
    tool            TEXT    NOT NULL,
    kind            TEXT    NOT NULL CHECK (kind IN ('EVIDENCE', 'GUIDANCE', 'CONTROL')),
    canonical_input TEXT,
    input_summary   TEXT    NOT NULL DEFAULT '',
    status          TEXT    NOT NULL,
    evidence_status TEXT    NOT NULL DEFAULT '',
    error_code      TEXT    NOT NULL DEFAULT '',
    control         TEXT
                    CHECK (control IN ('REPAIR_REQUIRED', 'DUPLICATE_CALL', 'STOP_REQUIRED')),
    observation     TEXT,
    started_at      INTEGER NOT NULL,
    duration_ms     INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;

CREATE TABLE model_rounds (
    run_id            TEXT    NOT NULL REFERENCES runs (id),
    seq               INTEGER NOT NULL,
    purpose           TEXT    NOT NULL
                      CHECK (purpose IN ('DIAGNOSIS', 'FINAL', 'SEMANTIC_GUARD', 'ROUTER', 'KNOWLEDGE_ANSWER', 'SYSTEM_CHAT')),
    request           TEXT    NOT NULL,
    response          TEXT,
    prompt_tokens     INTEGER NOT NULL DEFAULT 0,
    completion_tokens INTEGER NOT NULL DEFAULT 0,
    duration_ms       INTEGER NOT NULL DEFAULT 0,
    error_kind        TEXT    NOT NULL DEFAULT '',
    started_at        INTEGER NOT NULL,
    PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;

CREATE TABLE guard_reviews (
    run_id     TEXT    NOT NULL REFERENCES runs (id),
    seq        INTEGER NOT NULL,
    guard      TEXT    NOT NULL CHECK (guard IN ('EVIDENCE', 'SEMANTIC')),
    verdict    TEXT    NOT NULL,
    reasons    TEXT,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
