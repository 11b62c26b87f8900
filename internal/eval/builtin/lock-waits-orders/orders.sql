CREATE TABLE lock_waits (observed_at TEXT, waiting_query TEXT, blocking_query TEXT, blocking_trx_age_s INTEGER, wait_s INTEGER);
INSERT INTO lock_waits VALUES
 ('2026-11-20T09:06:00Z','UPDATE orders SET status=? WHERE id=?','ALTER TABLE orders ADD COLUMN note TEXT',1260,48),
 ('2026-11-20T09:16:00Z','UPDATE orders SET status=? WHERE id=?','ALTER TABLE orders ADD COLUMN note TEXT',1860,50),
 ('2026-11-20T09:26:00Z','INSERT INTO orders VALUES (?)','ALTER TABLE orders ADD COLUMN note TEXT',2460,50);
CREATE TABLE slow_queries (observed_at TEXT, query TEXT, seconds REAL);
INSERT INTO slow_queries VALUES ('2026-11-20T09:10:00Z','UPDATE orders SET status=? WHERE id=?',49.8);
