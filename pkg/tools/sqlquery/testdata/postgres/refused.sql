# refused.sql: statements query_postgres must refuse as NOT_READ_ONLY: writes, DDL, sequences,
# COPY, file and large-object reads, DO, CALL, volatile and user-defined functions, EXPLAIN ANALYZE,
# locking reads, SET, LOCK, transaction control, second statements and admin functions.
# One statement per entry; entries are separated by a line holding only ';;'.
;;
DROP TABLE orders
;;
DELETE FROM orders
;;
DELETE FROM orders WHERE id = 1
;;
UPDATE orders SET status = 'paid'
;;
INSERT INTO orders VALUES (99, 1, 'paid', 1, now(), NULL)
;;
INSERT INTO orders SELECT * FROM orders ON CONFLICT DO NOTHING
;;
INSERT INTO audit_log (what) VALUES ('x') RETURNING id
;;
MERGE INTO orders o USING customers c ON o.customer_id = c.id WHEN MATCHED THEN UPDATE SET status = 'paid'
;;
TRUNCATE orders
;;
TRUNCATE TABLE orders, payments CASCADE
;;
ALTER TABLE orders ADD COLUMN evil INT
;;
ALTER TABLE orders RENAME TO orders_old
;;
CREATE TABLE evil (a INT)
;;
CREATE TABLE evil AS SELECT * FROM orders
;;
CREATE UNLOGGED TABLE evil AS SELECT 1
;;
CREATE TEMP TABLE evil (a INT)
;;
CREATE VIEW evil AS SELECT * FROM orders
;;
CREATE MATERIALIZED VIEW evil AS SELECT * FROM orders
;;
REFRESH MATERIALIZED VIEW evil
;;
CREATE INDEX evil ON orders (note)
;;
CREATE INDEX CONCURRENTLY evil ON orders (note)
;;
DROP INDEX idx_orders_status
;;
CREATE SCHEMA evil
;;
DROP SCHEMA public CASCADE
;;
DROP DATABASE shop
;;
CREATE DATABASE evil
;;
CREATE ROLE evil SUPERUSER LOGIN PASSWORD 'x'
;;
ALTER ROLE ro SUPERUSER
;;
ALTER ROLE admin PASSWORD 'pwned'
;;
ALTER USER ro WITH PASSWORD 'pwned'
;;
DROP ROLE ro
;;
GRANT ALL ON orders TO ro
;;
REVOKE SELECT ON orders FROM ro
;;
GRANT pg_execute_server_program TO ro
;;
COMMENT ON TABLE orders IS 'pwned'
;;
SECURITY LABEL ON TABLE orders IS 'x'
;;
CREATE FUNCTION evil() RETURNS int LANGUAGE sql AS 'SELECT 1'
;;
CREATE OR REPLACE FUNCTION log_and_count() RETURNS INT LANGUAGE sql AS 'SELECT 1'
;;
DROP FUNCTION log_and_count()
;;
CREATE TRIGGER evil AFTER INSERT ON orders FOR EACH ROW EXECUTE FUNCTION log_and_count()
;;
CREATE RULE evil AS ON SELECT TO orders DO INSTEAD SELECT * FROM payments
;;
CREATE EXTENSION dblink
;;
CREATE EXTENSION IF NOT EXISTS pg_stat_statements
;;
CREATE EXTENSION adminpack
;;
DROP EXTENSION pg_stat_statements
;;
CREATE SERVER evil FOREIGN DATA WRAPPER postgres_fdw
;;
CREATE USER MAPPING FOR ro SERVER evil OPTIONS (password 'x')
;;
CREATE TABLESPACE evil LOCATION '/tmp'
;;
CREATE SEQUENCE evil
;;
ALTER SEQUENCE order_numbers RESTART WITH 1
;;
SELECT nextval('order_numbers')
;;
SELECT setval('order_numbers', 1)
;;
SELECT pg_catalog.nextval('order_numbers')
;;
SELECT id, nextval('order_numbers') FROM orders
;;
SELECT currval('order_numbers')
;;
SELECT log_and_count()
;;
SELECT public.log_and_count()
;;
SELECT * FROM log_and_count()
;;
SELECT id FROM orders WHERE id = log_and_count()
;;
SELECT public.lower(1)
;;
SELECT id FROM orders ORDER BY log_and_count()
;;
SELECT count(*) FILTER (WHERE log_and_count() > 0) FROM orders
;;
CALL write_audit()
;;
DO $$ BEGIN INSERT INTO audit_log (what) VALUES ('do block'); END $$
;;
DO LANGUAGE plpgsql $$ BEGIN PERFORM pg_sleep(10); END $$
;;
WITH x AS (DELETE FROM orders RETURNING *) SELECT * FROM x
;;
WITH x AS (UPDATE orders SET status = 'paid' RETURNING id) SELECT count(*) FROM x
;;
WITH x AS (INSERT INTO audit_log (what) VALUES ('cte') RETURNING id) SELECT id FROM x
;;
WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM r WHERE n < 3), w AS (DELETE FROM payments RETURNING id) SELECT * FROM r
;;
SELECT * FROM orders FOR UPDATE
;;
SELECT * FROM orders FOR SHARE
;;
SELECT * FROM orders FOR NO KEY UPDATE
;;
SELECT * FROM orders FOR KEY SHARE
;;
SELECT id FROM orders FOR UPDATE SKIP LOCKED
;;
SELECT id FROM orders FOR UPDATE NOWAIT
;;
SELECT id FROM (SELECT id FROM orders FOR UPDATE) s
;;
SELECT * INTO evil FROM orders
;;
SELECT * INTO TEMP evil FROM orders
;;
SELECT id INTO UNLOGGED evil FROM orders
;;
EXPLAIN ANALYZE DELETE FROM orders
;;
EXPLAIN ANALYZE SELECT log_and_count()
;;
EXPLAIN ANALYZE SELECT * FROM orders
;;
EXPLAIN (ANALYZE) SELECT 1
;;
EXPLAIN (ANALYZE true, BUFFERS) SELECT 1
;;
EXPLAIN (ANALYSE) SELECT 1
;;
EXPLAIN (FORMAT JSON, ANALYZE on) SELECT 1
;;
EXPLAIN DELETE FROM orders
;;
EXPLAIN UPDATE orders SET status = 'x'
;;
EXPLAIN INSERT INTO orders SELECT * FROM orders
;;
EXPLAIN CREATE TABLE evil AS SELECT 1
;;
EXPLAIN EXECUTE evil
;;
COPY orders TO PROGRAM 'touch /tmp/superbiz-pg-evil-1'
;;
COPY (SELECT 1) TO PROGRAM 'touch /tmp/superbiz-pg-evil-2'
;;
COPY orders TO '/tmp/superbiz-pg-evil-3'
;;
COPY (SELECT * FROM orders) TO '/tmp/superbiz-pg-evil-4' WITH (FORMAT csv)
;;
COPY orders FROM '/etc/passwd'
;;
COPY orders FROM PROGRAM 'id'
;;
COPY orders TO STDOUT
;;
COPY orders FROM STDIN
;;
SELECT pg_read_file('/etc/passwd')
;;
SELECT pg_read_file('postgresql.conf')
;;
SELECT pg_read_binary_file('/etc/passwd')
;;
SELECT pg_ls_dir('.')
;;
SELECT * FROM pg_ls_dir('/')
;;
SELECT pg_stat_file('postgresql.conf')
;;
SELECT * FROM pg_ls_logdir()
;;
SELECT * FROM pg_ls_waldir()
;;
SELECT pg_catalog.pg_read_file('/etc/hostname')
;;
SELECT lo_import('/etc/passwd')
;;
SELECT lo_export(1, '/tmp/superbiz-pg-evil-5')
;;
SELECT lo_create(0)
;;
SELECT lo_unlink(1)
;;
SELECT lo_from_bytea(0, 'x')
;;
SELECT lo_get(1)
;;
SELECT lo_put(1, 0, 'x')
;;
SELECT loread(lo_open(1, 262144), 10)
;;
SELECT pg_sleep(10)
;;
SELECT pg_sleep_for('10 seconds')
;;
SELECT pg_sleep_until(now() + interval '10 seconds')
;;
SELECT pg_terminate_backend(pid) FROM pg_stat_activity
;;
SELECT pg_cancel_backend(pid) FROM pg_stat_activity
;;
SELECT pg_reload_conf()
;;
SELECT pg_rotate_logfile()
;;
SELECT pg_switch_wal()
;;
SELECT pg_create_restore_point('x')
;;
SELECT pg_start_backup('x')
;;
SELECT pg_backup_start('x')
;;
SELECT pg_promote()
;;
SELECT pg_create_logical_replication_slot('evil', 'pgoutput')
;;
SELECT pg_drop_replication_slot('evil')
;;
SELECT pg_advisory_lock(1)
;;
SELECT pg_advisory_xact_lock(1)
;;
SELECT pg_try_advisory_lock(1)
;;
SELECT set_config('transaction_read_only', 'off', false)
;;
SELECT set_config('default_transaction_read_only', 'off', true)
;;
SELECT pg_catalog.set_config('search_path', 'public', false)
;;
SELECT current_setting('ssl_passphrase_command')
;;
SELECT txid_current()
;;
SELECT pg_current_xact_id()
;;
SELECT pg_notify('evil', 'x')
;;
SELECT dblink('host=127.0.0.1 dbname=shop', 'DELETE FROM orders')
;;
SELECT dblink_exec('dbname=shop', 'DELETE FROM orders')
;;
SELECT * FROM dblink('dbname=shop', 'select 1') AS t(a int)
;;
SELECT query_to_xml('DELETE FROM orders RETURNING id', true, true, '')
;;
SELECT xmlelement(name a, 'x')
;;
SELECT * FROM orders TABLESAMPLE SYSTEM (10)
;;
SELECT * FROM ROWS FROM (json_to_record('{"a":1}')) AS t(a int)
;;
SELECT $1
;;
SELECT id FROM orders WHERE id = $1
;;
PREPARE evil AS DELETE FROM orders
;;
PREPARE evil AS SELECT 1
;;
EXECUTE evil
;;
DEALLOCATE ALL
;;
LISTEN evil
;;
NOTIFY evil
;;
NOTIFY evil, 'payload'
;;
UNLISTEN *
;;
SET transaction_read_only = off
;;
SET TRANSACTION READ WRITE
;;
SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE
;;
SET default_transaction_read_only = off
;;
SET statement_timeout = 0
;;
SET search_path = evil
;;
SET ROLE admin
;;
SET SESSION AUTHORIZATION admin
;;
RESET ALL
;;
RESET statement_timeout
;;
BEGIN
;;
BEGIN READ WRITE
;;
START TRANSACTION READ WRITE
;;
COMMIT
;;
ROLLBACK
;;
END
;;
ABORT
;;
SAVEPOINT a
;;
RELEASE SAVEPOINT a
;;
PREPARE TRANSACTION 'evil'
;;
COMMIT PREPARED 'evil'
;;
COMMIT; INSERT INTO audit_log (what) VALUES ('escaped')
;;
ROLLBACK; DELETE FROM orders
;;
SELECT 1; DELETE FROM orders
;;
SELECT 1; SELECT 2
;;
SELECT 1;; DROP TABLE orders
;;
SELECT id FROM orders; COMMIT; UPDATE orders SET status = 'x'
;;
END; CREATE TABLE evil (a int)
;;
LOCK TABLE orders
;;
LOCK TABLE orders IN ACCESS EXCLUSIVE MODE
;;
LOCK orders IN SHARE MODE
;;
VACUUM
;;
VACUUM FULL orders
;;
VACUUM ANALYZE orders
;;
ANALYZE orders
;;
CLUSTER orders USING idx_orders_status
;;
REINDEX TABLE orders
;;
CHECKPOINT
;;
ALTER SYSTEM SET fsync = on
;;
ALTER SYSTEM SET shared_preload_libraries = 'evil'
;;
ALTER SYSTEM RESET ALL
;;
ALTER DATABASE shop SET default_transaction_read_only = off
;;
ALTER DEFAULT PRIVILEGES GRANT ALL ON TABLES TO ro
;;
LOAD 'auto_explain'
;;
DISCARD ALL
;;
CREATE PUBLICATION evil FOR ALL TABLES
;;
CREATE SUBSCRIPTION evil CONNECTION 'dbname=shop' PUBLICATION p
;;
IMPORT FOREIGN SCHEMA public FROM SERVER evil INTO public
;;
REASSIGN OWNED BY ro TO admin
;;
DROP OWNED BY ro
;;
CREATE CAST (int AS text) WITH INOUT
;;
CREATE OPERATOR === (LEFTARG = int, RIGHTARG = int, FUNCTION = int4eq)
;;
SELECT 1 OPERATOR(public.===) 1
;;
SELECT id FROM orders ORDER BY id USING OPERATOR(public.<)
;;
SELECT CAST('x' AS public.evil_type)
;;
SELECT '1'::public.evil_type
;;
SELECT pg_catalog.pg_stat_reset()
;;
SELECT pg_stat_reset_shared('bgwriter')
;;
SELECT pg_stat_statements_reset()
;;
SELECT pg_log_backend_memory_contexts(pg_backend_pid())
;;
SELECT pg_import_system_collations('pg_catalog')
;;
DECLARE c CURSOR FOR SELECT * FROM orders
;;
FETCH ALL FROM c
;;
CLOSE c
;;
MOVE NEXT FROM c
;;
CREATE AGGREGATE evil (int) (SFUNC = int4pl, STYPE = int)
;;
CREATE POLICY evil ON orders USING (true)
;;
ALTER TABLE orders DISABLE ROW LEVEL SECURITY
;;
CREATE EVENT TRIGGER evil ON ddl_command_start EXECUTE FUNCTION log_and_count()
;;
CREATE LANGUAGE plperlu
;;
CREATE TYPE evil AS (a int)
;;
CREATE DOMAIN evil AS int
;;
CREATE COLLATION evil (locale = 'C')
;;
CREATE CONVERSION evil FOR 'UTF8' TO 'LATIN1' FROM utf8_to_iso8859_1
;;
CREATE STATISTICS evil ON status, customer_id FROM orders
;;
SELECT id FROM orders /* x */ ; DELETE FROM orders
;;
SELECT "Lower"('x')
;;
SELECT "LENGTH"('abc')
;;
SELECT public.length(1)
;;
SELECT dblink_exec('dbname=shop', 'INSERT INTO audit_log (what) VALUES (''dblink'')')
;;
SELECT * FROM dblink('dbname=shop', 'SELECT 1') AS t(a int)
;;
SELECT current_setting('archive_command')
;;
SELECT current_setting('primary_conninfo', true)
;;
SELECT pg_show_all_settings()
;;
SELECT * FROM pg_show_all_file_settings()
