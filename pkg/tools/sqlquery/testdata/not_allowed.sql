# not_allowed.sql: reads of credentials or of other sessions' statement text, refused by the guard
# (reason not_allowed) for MySQL and MariaDB with the default schema "shop".
# Entries are separated by a line holding only ';;'; each entry is taken verbatim (trimmed).
;;
SELECT user, authentication_string FROM mysql.user
;;
SELECT User, Host FROM mysql.user
;;
select * from MYSQL.USER
;;
SELECT user FROM `mysql`.`user`
;;
SELECT `user` FROM `mysql` . `user` WHERE host = '%'
;;
SELECT COUNT(*) FROM mysql.user
;;
SELECT Priv FROM mysql.global_priv
;;
SELECT LENGTH(Priv) FROM mysql.global_priv
;;
SELECT * FROM mysql.password_history
;;
SELECT Password FROM mysql.servers
;;
SELECT User_password FROM mysql.slave_master_info
;;
SELECT argument FROM mysql.general_log
;;
SELECT sql_text FROM mysql.slow_log ORDER BY start_time DESC
;;
SELECT name FROM mysql.proc
;;
SELECT id FROM orders WHERE customer_id IN (SELECT length(authentication_string) FROM mysql.user)
;;
SELECT id FROM orders o JOIN mysql.user u ON u.user = o.status
;;
SELECT status FROM orders UNION SELECT authentication_string FROM mysql.user
;;
SELECT status FROM orders UNION ALL (SELECT host FROM mysql.global_priv)
;;
WITH creds AS (SELECT user, authentication_string FROM mysql.user) SELECT * FROM creds
;;
SELECT x.a FROM (SELECT authentication_string AS a FROM mysql.user) x
;;
SELECT EXISTS (SELECT 1 FROM mysql.user WHERE authentication_string LIKE '*A%')
;;
EXPLAIN SELECT * FROM mysql.user
;;
SELECT info FROM information_schema.processlist
;;
SELECT * FROM information_schema.processlist
;;
SELECT * FROM INFORMATION_SCHEMA.PROCESSLIST
;;
SELECT p.* FROM information_schema.processlist p
;;
SELECT id, `INFO` FROM information_schema.`PROCESSLIST`
;;
SELECT id, info_binary FROM information_schema.processlist
;;
SELECT id FROM information_schema.processlist WHERE info LIKE 'SET PASSWORD%'
;;
SELECT id FROM information_schema.processlist ORDER BY info
;;
SELECT COUNT(*) FROM information_schema.processlist GROUP BY info
;;
SELECT a.id FROM information_schema.processlist a JOIN (SELECT 'x' AS info) b USING (info)
;;
SELECT a.id FROM information_schema.processlist a NATURAL JOIN orders b
;;
SELECT t.q FROM (SELECT info AS q FROM information_schema.processlist) t
;;
WITH p AS (SELECT * FROM information_schema.processlist) SELECT id FROM p
;;
SELECT 1 FROM dual WHERE EXISTS (SELECT 1 FROM information_schema.processlist WHERE info LIKE '%token%')
;;
SELECT trx_query FROM information_schema.innodb_trx
;;
SELECT * FROM information_schema.innodb_trx
;;
SELECT statement_text FROM information_schema.query_cache_info
;;
SELECT processlist_info FROM performance_schema.threads
;;
SELECT * FROM performance_schema.threads
;;
SELECT sql_text FROM performance_schema.events_statements_current
;;
SELECT sql_text FROM performance_schema.events_statements_history_long
;;
SELECT digest_text, count_star FROM performance_schema.events_statements_summary_by_digest
;;
SELECT query_sample_text FROM performance_schema.events_statements_summary_by_digest
;;
SELECT sql_text FROM performance_schema.prepared_statements_instances
;;
SELECT info FROM performance_schema.processlist
;;
SELECT current_statement FROM sys.processlist
;;
SELECT last_statement FROM sys.`x$session`
;;
SELECT query FROM sys.statement_analysis
;;
SELECT * FROM sys.statements_with_errors_or_warnings
;;
SELECT waiting_query, blocking_query FROM sys.innodb_lock_waits
;;
SELECT routine_name, routine_definition FROM information_schema.routines
;;
SELECT * FROM information_schema.routines
;;
SELECT table_name FROM information_schema.views WHERE view_definition LIKE '%password%'
;;
SELECT trigger_name, action_statement FROM information_schema.triggers
;;
SELECT event_name, event_definition FROM information_schema.EVENTS
;;
SELECT v.table_name FROM INFORMATION_SCHEMA.views v NATURAL JOIN information_schema.tables t
