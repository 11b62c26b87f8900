-- Run store migration 2 (its step 0003 before components recorded their
-- own migrations).
-- The KNOWLEDGE_QUERY executor's reference check is a release guard too: its
-- verdicts join the audit. SQLite cannot alter a CHECK constraint, so the
-- table is rebuilt with the wider one and its rows copied over.
CREATE TABLE guard_reviews_new (
    run_id     TEXT    NOT NULL REFERENCES runs (id),
    seq        INTEGER NOT NULL,
    guard      TEXT    NOT NULL CHECK (guard IN ('EVIDENCE', 'SEMANTIC', 'KNOWLEDGE')),
    verdict    TEXT    NOT NULL,
    reasons    TEXT,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
INSERT INTO guard_reviews_new (run_id, seq, guard, verdict, reasons, created_at)
    SELECT run_id, seq, guard, verdict, reasons, created_at FROM guard_reviews;
DROP TABLE guard_reviews;
ALTER TABLE guard_reviews_new RENAME TO guard_reviews;
