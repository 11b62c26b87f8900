# admitted.sql: diagnostic reads query_postgres must admit and run on the SELECT-only role.
# One statement per entry; entries are separated by a line holding only ';;'.
;;
SELECT 1
;;
SELECT status, count(*) AS n, sum(amount_cents) AS cents FROM orders GROUP BY status ORDER BY status
;;
SELECT o.id, c.name, p.outcome, p.latency_ms FROM orders o JOIN customers c ON c.id = o.customer_id LEFT JOIN payments p ON p.order_id = o.id WHERE o.status <> 'paid' ORDER BY o.id
;;
SELECT gateway, percentile_cont(0.95) WITHIN GROUP (ORDER BY latency_ms) AS p95 FROM payments GROUP BY gateway
;;
SELECT id, created_at, lag(created_at) OVER (ORDER BY created_at) AS prev FROM orders
;;
WITH failed AS (SELECT * FROM orders WHERE status = 'failed') SELECT count(*) FROM failed
;;
WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT n FROM r
;;
SELECT date_trunc('minute', created_at) AS minute, count(*) FROM payments WHERE outcome = 'timeout' GROUP BY 1 ORDER BY 1
;;
SELECT id FROM orders WHERE created_at BETWEEN '2026-03-01 14:00' AND '2026-03-01 14:10'
;;
SELECT id FROM orders WHERE note ILIKE '%timeout%' AND status IN ('pending', 'failed')
;;
SELECT id, CASE WHEN amount_cents > 2000 THEN 'big' ELSE 'small' END AS size FROM orders
;;
SELECT coalesce(note, '-') AS note, nullif(status, 'paid') FROM orders
;;
SELECT greatest(1, 2), least(3, 4), now() - interval '1 hour' AS since
;;
SELECT extract(epoch FROM created_at)::bigint AS epoch FROM orders
;;
SELECT created_at AT TIME ZONE 'UTC' FROM orders
;;
SELECT substring(note FROM 1 FOR 5), position('a' IN name) FROM orders JOIN customers ON customers.id = orders.customer_id
;;
SELECT id::text, amount_cents::numeric / 100 AS amount FROM orders
;;
SELECT CAST(id AS bigint) FROM orders
;;
VALUES (1, 'a'), (2, 'b')
;;
TABLE customers
;;
SELECT * FROM customers
;;
SELECT * FROM customers UNION ALL SELECT * FROM customers
;;
SELECT id FROM orders EXCEPT SELECT order_id FROM payments WHERE outcome = 'ok'
;;
SELECT id FROM orders ORDER BY id DESC LIMIT 3 OFFSET 1
;;
SELECT id FROM orders ORDER BY id FETCH FIRST 2 ROWS ONLY
;;
SELECT DISTINCT ON (status) status, id FROM orders ORDER BY status, id
;;
SELECT status, count(*) FROM orders GROUP BY ROLLUP (status)
;;
SELECT * FROM generate_series(1, 3) AS g(n)
;;
SELECT unnest(ARRAY[1, 2, 3])
;;
SELECT jsonb_build_object('id', id) FROM orders
;;
SELECT '{"a": 1}'::jsonb -> 'a'
;;
SELECT EXISTS (SELECT 1 FROM payments WHERE outcome = 'error')
;;
SELECT id FROM orders WHERE id = ANY (ARRAY[1, 2])
;;
SELECT id FROM orders o WHERE amount_cents > (SELECT avg(amount_cents) FROM orders)
;;
SELECT l.id FROM orders l, LATERAL (SELECT count(*) FROM payments p WHERE p.order_id = l.id) c
;;
SHOW max_connections
;;
SHOW statement_timeout
;;
SHOW ALL
;;
SHOW transaction_isolation
;;
EXPLAIN SELECT * FROM orders WHERE status = 'pending'
;;
EXPLAIN (FORMAT JSON) SELECT count(*) FROM orders
;;
EXPLAIN (VERBOSE false, COSTS false) SELECT id FROM orders
;;
SELECT pid, usename, application_name, state, wait_event_type, wait_event, query_start, pg_blocking_pids(pid) AS blocked_by FROM pg_stat_activity
;;
SELECT a.pid, a.state, a.wait_event FROM pg_stat_activity a WHERE a.state <> 'idle'
;;
SELECT locktype, relation::regclass, mode, granted, pid FROM pg_locks
;;
SELECT l.pid, l.mode, a.wait_event_type FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE NOT l.granted
;;
SELECT relname, seq_scan, idx_scan, n_live_tup, n_dead_tup, last_autovacuum FROM pg_stat_user_tables
;;
SELECT datname, numbackends, xact_commit, xact_rollback, deadlocks FROM pg_stat_database
;;
SELECT rolname, rolsuper FROM pg_roles
;;
SELECT usename FROM pg_user
;;
SELECT proname, provolatile FROM pg_proc WHERE proname = 'log_and_count'
;;
SELECT viewname FROM pg_views WHERE schemaname = 'public'
;;
SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position
;;
SELECT srvname FROM pg_foreign_server
;;
SELECT name, setting FROM pg_settings WHERE name LIKE '%timeout%'
;;
SELECT pg_size_pretty(pg_total_relation_size('orders'))
;;
SELECT pg_database_size(current_database())
;;
SELECT version(), current_database(), current_user, pg_backend_pid() > 0
;;
SELECT pg_is_in_recovery(), pg_postmaster_start_time() < now()
;;
SELECT schemaname, tablename, attname, n_distinct FROM pg_stats WHERE tablename = 'orders'
;;
SELECT count(*) FROM pg_stat_activity
;;
SELECT 'a' || 'b', 2 ^ 3, 7 % 3, abs(-1), round(2.5)
;;
SELECT id FROM orders WHERE note IS NOT NULL AND (status = 'failed') IS TRUE
;;
SELECT string_agg(name, ', ' ORDER BY name) FROM customers
;;
SELECT count(*) FILTER (WHERE status = 'paid') AS paid FROM orders
