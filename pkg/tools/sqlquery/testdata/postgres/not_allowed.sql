# not_allowed.sql: reads of credentials, function and view bodies, sampled values or other
# sessions' statement text, refused by query_postgres as NOT_ALLOWED (or NOT_READ_ONLY where the
# function itself is off the allowlist) whatever the account may do.
# One statement per entry; entries are separated by a line holding only ';;'.
;;
SELECT rolname, rolpassword FROM pg_authid
;;
SELECT * FROM pg_authid
;;
SELECT rolname FROM pg_authid
;;
SELECT rolname FROM pg_catalog.pg_authid
;;
SELECT rolname FROM "pg_authid"
;;
TABLE pg_authid
;;
SELECT usename, passwd FROM pg_shadow
;;
SELECT * FROM pg_catalog.pg_shadow
;;
SELECT count(*) FROM pg_shadow
;;
SELECT (SELECT rolpassword FROM pg_authid LIMIT 1)
;;
SELECT id FROM orders WHERE EXISTS (SELECT 1 FROM pg_authid WHERE rolpassword LIKE 'SCRAM%')
;;
WITH a AS (SELECT * FROM pg_authid) SELECT * FROM a
;;
SELECT o.id FROM orders o JOIN pg_authid a ON a.rolname = o.status
;;
SELECT * FROM pg_user_mapping
;;
SELECT umoptions FROM pg_user_mapping
;;
SELECT srvname, umoptions FROM pg_user_mappings
;;
SELECT * FROM pg_user_mappings
;;
SELECT srvname, srvoptions FROM pg_foreign_server
;;
SELECT * FROM pg_foreign_server
;;
SELECT fdwoptions FROM pg_foreign_data_wrapper
;;
SELECT subname, subconninfo FROM pg_subscription
;;
SELECT conninfo FROM pg_stat_wal_receiver
;;
SELECT option_value FROM information_schema.user_mapping_options
;;
SELECT setconfig FROM pg_db_role_setting
;;
SELECT rolname, rolconfig FROM pg_roles
;;
SELECT pid, query FROM pg_stat_activity
;;
SELECT * FROM pg_stat_activity
;;
SELECT a.* FROM pg_stat_activity a
;;
SELECT pid, left(query, 20) FROM pg_stat_activity
;;
SELECT pid FROM pg_stat_activity WHERE query LIKE '%password%'
;;
SELECT pid FROM pg_stat_activity ORDER BY query
;;
SELECT a FROM pg_stat_activity a
;;
SELECT row_to_json(a) FROM pg_stat_activity a
;;
SELECT to_json(a) FROM pg_stat_activity AS a
;;
SELECT a.to_json FROM pg_stat_activity a
;;
SELECT a.row_to_json FROM pg_stat_activity a
;;
SELECT a.concat FROM pg_stat_activity a
;;
SELECT pg_stat_activity FROM pg_stat_activity
;;
SELECT (a).query FROM pg_stat_activity a
;;
SELECT pid FROM pg_stat_activity NATURAL JOIN pg_locks
;;
SELECT x.pid FROM pg_stat_activity x JOIN pg_stat_activity y USING (query)
;;
SELECT * FROM (SELECT * FROM pg_stat_activity) s
;;
SELECT s.q FROM (SELECT query AS q FROM pg_stat_activity) s
;;
WITH s AS (SELECT query FROM pg_catalog.pg_stat_activity) SELECT * FROM s
;;
SELECT query FROM pg_stat_statements
;;
SELECT * FROM pg_stat_statements
;;
SELECT calls, query FROM public.pg_stat_statements ORDER BY calls DESC
;;
SELECT proname, prosrc FROM pg_proc
;;
SELECT * FROM pg_proc
;;
SELECT probin FROM pg_proc
;;
SELECT prosqlbody FROM pg_proc
;;
SELECT proname FROM pg_proc WHERE prosrc LIKE '%INSERT%'
;;
SELECT pg_get_functiondef('log_and_count'::regproc)
;;
SELECT pg_get_functiondef(oid) FROM pg_proc WHERE proname = 'log_and_count'
;;
SELECT pg_get_viewdef('paid_orders')
;;
SELECT pg_get_viewdef('paid_orders'::regclass, true)
;;
SELECT pg_get_ruledef(oid) FROM pg_rewrite
;;
SELECT pg_get_triggerdef(oid) FROM pg_trigger
;;
SELECT viewname, definition FROM pg_views
;;
SELECT * FROM pg_views
;;
SELECT definition FROM pg_matviews
;;
SELECT definition FROM pg_rules
;;
SELECT ev_action FROM pg_rewrite
;;
SELECT routine_definition FROM information_schema.routines
;;
SELECT view_definition FROM information_schema.views
;;
SELECT * FROM information_schema.views
;;
SELECT * FROM pg_statistic
;;
SELECT most_common_vals FROM pg_stats
;;
SELECT attname, histogram_bounds FROM pg_stats WHERE tablename = 'api_clients'
;;
SELECT * FROM pg_stats
;;
SELECT * FROM pg_largeobject
;;
SELECT data FROM pg_largeobject
;;
SHOW ssl_passphrase_command
;;
SHOW password_encryption
;;
SELECT pg_stat_get_activity(NULL)
;;
SELECT * FROM pg_stat_get_activity(NULL)
;;
SELECT pg_stat_get_backend_activity(1)
;;
SELECT current_query()
;;
SELECT q FROM pg_stat_activity AS s(datid, datname, pid, leader_pid, usesysid, usename, application_name, client_addr, client_hostname, client_port, backend_start, xact_start, query_start, state_change, wait_event_type, wait_event, state, backend_xid, backend_xmin, query_id, q)
;;
SELECT j.q FROM (pg_locks l JOIN pg_stat_activity a USING (pid)) AS j(pid, locktype, database, relation, page, tuple, virtualxid, transactionid, classid, objid, objsubid, virtualtransaction, mode, granted, fastpath, waitstart, datid, datname, leader_pid, usesysid, usename, application_name, client_addr, client_hostname, client_port, backend_start, xact_start, query_start, state_change, wait_event_type, wait_event, state, backend_xid, backend_xmin, query_id, q)
;;
SELECT s::text FROM pg_stat_activity s
;;
SELECT s.text FROM pg_stat_activity s
;;
SELECT ARRAY(SELECT s FROM pg_stat_activity s)
;;
EXPLAIN VERBOSE SELECT id FROM flagged_orders
;;
EXPLAIN (VERBOSE, COSTS false) SELECT id FROM orders
;;
EXPLAIN (VERBOSE true, FORMAT JSON) SELECT * FROM paid_orders
;;
EXPLAIN (VERBOSE on) SELECT 1
;;
SHOW archive_command
;;
SHOW primary_conninfo
;;
SHOW restore_command
;;
SHOW ssl_passphrase_command
