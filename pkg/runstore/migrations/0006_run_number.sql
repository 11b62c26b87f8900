-- Run store migration 6: every run has a number, 1, 2, 3… in the order this
-- store made them, so a person can name a run by what differs first
-- (`runs show 12`) rather than by a long time-ordered ID whose first dozen
-- characters are shared by every run of the hour. Runs already stored are
-- numbered by creation time (then insertion order); a new run takes the
-- next number when it is inserted, by the trigger below, whatever code
-- inserts it. Runs are never deleted, so a number is never given twice;
-- the unique index would refuse it if one were.
ALTER TABLE runs ADD COLUMN number INTEGER;

UPDATE runs SET number = ordered.n
FROM (SELECT rowid AS rid, row_number() OVER (ORDER BY created_at, rowid) AS n FROM runs) AS ordered
WHERE runs.rowid = ordered.rid;

CREATE UNIQUE INDEX runs_number ON runs (number);

CREATE TRIGGER runs_number_next AFTER INSERT ON runs FOR EACH ROW WHEN NEW.number IS NULL
BEGIN
    UPDATE runs SET number = (SELECT coalesce(max(number), 0) + 1 FROM runs) WHERE rowid = NEW.rowid;
END;
