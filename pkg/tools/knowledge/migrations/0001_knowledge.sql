-- Knowledge migration 1 (the run store applied it as its step 0002 before
-- components recorded their own migrations).
-- The knowledge index of lookup_knowledge (internal/tools/knowledge).
-- kb_files remembers what was indexed so a sync re-reads only changed files.
-- kb_sections holds one row per heading section (the original text).
-- kb_fts is the contentless FTS5 index over the sections: its rowid is
-- kb_sections.id, and its text is pre-segmented (CJK runs become overlapping
-- bigrams) by the knowledge package, so it is written from Go, never by trigger.

CREATE TABLE kb_files (
    path       TEXT PRIMARY KEY,   -- root id + "/" + path relative to the root, slash-separated
    root       TEXT NOT NULL,      -- absolute root directory it was found under
    size       INTEGER NOT NULL,
    mtime_ns   INTEGER NOT NULL,
    sha256     TEXT NOT NULL,      -- hex digest of the file content
    indexed_at INTEGER NOT NULL    -- unix nanoseconds of the last (re)split
);

CREATE TABLE kb_sections (
    id        INTEGER PRIMARY KEY, -- stable rowid shared with kb_fts
    doc_id    TEXT NOT NULL UNIQUE, -- source + "#" + anchor, stable across reindexing
    file_path TEXT NOT NULL REFERENCES kb_files(path) ON DELETE CASCADE,
    anchor    TEXT NOT NULL,
    title     TEXT NOT NULL,       -- heading path "Runbook › Section › Sub"
    source    TEXT NOT NULL,       -- same as file_path, shown to the model
    body      TEXT NOT NULL,
    ord       INTEGER NOT NULL     -- position of the section in its file
);

CREATE INDEX kb_sections_file ON kb_sections(file_path, ord);

CREATE VIRTUAL TABLE kb_fts USING fts5(
    title,
    body,
    meta,
    content = '',
    contentless_delete = 1,
    tokenize = 'porter unicode61 remove_diacritics 2'
);
