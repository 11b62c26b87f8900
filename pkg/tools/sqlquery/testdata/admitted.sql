# admitted.sql: one statement per entry; entries are separated by a line holding only ';;'.
# Everything before the first ';;' line is this header; each entry is taken verbatim (trimmed).
;;
SELECT id, user, host, db, command, time, state FROM information_schema.processlist WHERE command <> 'Sleep'
;;
SHOW STATUS LIKE 'Threads%'
;;
SHOW GLOBAL STATUS LIKE 'Aborted_connects'
;;
SHOW VARIABLES LIKE 'max_connections'
;;
SHOW GLOBAL VARIABLES LIKE 'wait_timeout'
;;
SHOW TABLES
;;
SHOW TABLE STATUS
;;
SHOW COLUMNS FROM orders
;;
SHOW INDEX FROM orders
;;
SHOW CREATE TABLE orders
;;
SHOW GRANTS
;;
SHOW WARNINGS
;;
DESCRIBE orders
;;
DESC payments
;;
EXPLAIN SELECT * FROM orders WHERE status = 'pending'
;;
SELECT status, COUNT(*) FROM orders GROUP BY status
;;
SELECT o.id, c.name, o.amount_cents FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.status = 'pending' ORDER BY o.created_at DESC
;;
SELECT gateway, AVG(latency_ms), MAX(latency_ms) FROM payments GROUP BY gateway HAVING COUNT(*) > 1
;;
WITH slow AS (SELECT * FROM payments WHERE latency_ms > 1000) SELECT outcome, COUNT(*) FROM slow GROUP BY outcome
;;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5) SELECT SUM(i) FROM n
;;
SELECT table_name, table_rows FROM information_schema.tables WHERE table_schema = DATABASE()
;;
SELECT COUNT(*) FROM information_schema.processlist WHERE command <> 'Sleep'
;;
SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = 'shop' AND table_name = 'orders'
;;
SELECT id FROM orders WHERE created_at BETWEEN '2026-03-01 14:00:00' AND '2026-03-01 15:00:00'
;;
SELECT DATE_FORMAT(created_at, '%H:%i') AS minute, COUNT(*) FROM orders GROUP BY minute
;;
SELECT * FROM orders WHERE id IN (SELECT order_id FROM payments WHERE outcome = 'timeout')
;;
SELECT COALESCE(note, '-') AS note FROM orders
;;
SELECT TIMESTAMPDIFF(SECOND, MIN(created_at), MAX(created_at)) FROM orders
;;
SELECT CASE WHEN latency_ms > 1000 THEN 'slow' ELSE 'fast' END AS speed, COUNT(*) FROM payments GROUP BY speed
;;
SELECT @@max_connections, @@GLOBAL.wait_timeout
;;
SELECT VERSION(), NOW()
;;
SELECT o.status, SUM(o.amount_cents) / 100 AS amount FROM orders o LEFT JOIN payments p ON p.order_id = o.id GROUP BY o.status
;;
SELECT id, ROW_NUMBER() OVER (ORDER BY created_at) AS rn FROM orders
;;
SELECT * FROM orders WHERE created_at > NOW() - INTERVAL 1 HOUR
;;
SELECT * FROM orders WHERE created_at > DATE_SUB(NOW(), INTERVAL 1 HOUR)
;;
SELECT status FROM orders UNION SELECT outcome FROM payments
;;
SELECT CAST(amount_cents AS CHAR) FROM orders LIMIT 3
;;
SELECT * FROM orders WHERE note LIKE '%timeout%'
;;
SELECT GROUP_CONCAT(DISTINCT gateway ORDER BY gateway) FROM payments
;;
SELECT id, note FROM orders WHERE note LIKE '%DROP TABLE%'
;;
SELECT 'DROP TABLE orders; -- not a statement' AS text
;;
SELECT UPPER(status), LENGTH(note), ROUND(AVG(amount_cents), 2) FROM orders GROUP BY status, note
;;
SELECT * FROM orders o WHERE EXISTS (SELECT 1 FROM payments p WHERE p.order_id = o.id AND p.outcome <> 'ok')
;;
SELECT routine_schema, routine_name, routine_type FROM information_schema.routines
;;
SELECT table_schema, table_name, is_updatable FROM information_schema.views
;;
SELECT trigger_name, event_object_table, action_timing FROM information_schema.triggers
