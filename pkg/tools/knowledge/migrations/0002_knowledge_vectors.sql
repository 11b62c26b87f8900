-- Knowledge migration 2 (the run store applied it as its step 0004 before
-- components recorded their own migrations).
-- Embedding vectors of knowledge sections, for semantic runbook search when
-- [knowledge] embed_model is set (internal/tools/knowledge). One row per section
-- that has been embedded; a section without a row for the configured model
-- is embedded again on the next sync. vec is dim little-endian float32s.
CREATE TABLE kb_vectors (
    section_id INTEGER PRIMARY KEY REFERENCES kb_sections(id) ON DELETE CASCADE,
    model      TEXT    NOT NULL,
    dim        INTEGER NOT NULL CHECK (dim > 0),
    vec        BLOB    NOT NULL CHECK (length(vec) = 4 * dim)
);
