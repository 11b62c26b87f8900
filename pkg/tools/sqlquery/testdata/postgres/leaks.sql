# leaks.sql: statements the guard admits (or refuses) whose answer or error text could carry a
# planted secret (issue 34 §4-§6, §8-§9): whole-row values, settings in every shape, values the
# server quotes in its error texts, user functions that would win over a built-in, view literals
# in a plan. Whatever the outcome on the superuser, the SELECT-only and the pg_monitor role, no
# planted secret and no user function's answer may reach the result or the error.
# One statement per entry; entries are separated by a line holding only ';;'.
;;
SELECT u FROM users u
;;
SELECT u::text FROM users u
;;
SELECT (u.*)::text FROM users u
;;
SELECT array_agg(u) FROM users u
;;
SELECT array_agg(u)::text FROM users u
;;
SELECT row(u.*) FROM users u
;;
SELECT row(id, password) FROM users
;;
SELECT row(id, name) FROM users
;;
SELECT t FROM (SELECT * FROM users) t
;;
SELECT t::text FROM (SELECT * FROM users) t
;;
SELECT x FROM (SELECT u FROM users u) x
;;
SELECT x.u FROM (SELECT u FROM users u) x
;;
WITH c AS (SELECT * FROM users) SELECT c FROM c
;;
WITH c AS (SELECT * FROM users) SELECT c::text FROM c
;;
SELECT to_json(u) FROM users u
;;
SELECT to_jsonb(u)::text FROM users u
;;
SELECT row_to_json(u)::text FROM users u
;;
SELECT concat(u) FROM users u
;;
SELECT concat_ws(',', u) FROM users u
;;
SELECT format('%s', u) FROM users u
;;
SELECT string_agg(u::text, ',') FROM users u
;;
SELECT *, u::text FROM users u
;;
SELECT u.to_json FROM users u
;;
SELECT v FROM vault v
;;
SELECT cred FROM vault
;;
SELECT cred::text FROM vault
;;
SELECT (cred).secret FROM vault
;;
SELECT array_agg(cred) FROM vault
;;
SELECT array_agg(cred)::text FROM vault
;;
SELECT password::int FROM users
;;
SELECT password::regclass FROM users
;;
SELECT password::regtype FROM users
;;
SELECT password::regrole FROM users
;;
SELECT password::date FROM users
;;
SELECT password::json FROM users
;;
SELECT password::jsonb FROM users
;;
SELECT password::uuid FROM users
;;
SELECT password::inet FROM users
;;
SELECT password::numeric FROM users
;;
SELECT password::bool FROM users
;;
SELECT to_number(password, '999') FROM users
;;
SELECT to_date(password, 'YYYY-MM-DD') FROM users
;;
SELECT api_key::int FROM api_clients
;;
SELECT (cred).secret::int FROM vault
;;
SELECT name, setting FROM pg_settings WHERE name = 'archive_command'
;;
SELECT setting FROM pg_settings WHERE name = 'primary_conninfo'
;;
SELECT reset_val FROM pg_settings WHERE name = 'archive_command'
;;
SELECT boot_val, reset_val, setting FROM pg_settings
;;
SELECT name AS n, setting AS v FROM pg_settings
;;
SELECT reverse(setting) FROM pg_settings
;;
SELECT reverse(reset_val) FROM pg_catalog.pg_settings
;;
SELECT upper(setting) AS shout FROM pg_settings WHERE name LIKE '%command%' OR name LIKE '%conninfo%'
;;
SELECT s.setting FROM pg_settings s WHERE s.name LIKE '%conninfo%'
;;
SELECT x FROM pg_settings AS s(x, y) 
;;
SELECT y FROM pg_settings AS s(x, y)
;;
SELECT * FROM pg_settings
;;
SELECT string_agg(setting, ',') FROM pg_settings
;;
SELECT name FROM pg_settings WHERE setting LIKE '%ReplPass%' OR reset_val LIKE '%ArchivePass%'
;;
SELECT name, setting FROM pg_file_settings
;;
SELECT * FROM pg_file_settings
;;
SELECT reverse(setting) FROM pg_file_settings
;;
SHOW ALL
;;
SELECT length(1)
;;
SELECT length(1::int)
;;
SELECT pg_catalog.length('abc')
;;
SELECT lower(1)
;;
EXPLAIN SELECT * FROM flagged_orders
;;
EXPLAIN (FORMAT JSON) SELECT * FROM flagged_orders
;;
EXPLAIN (FORMAT YAML, COSTS false) SELECT id FROM flagged_orders WHERE id > 1
;;
SELECT pw FROM user_logins
;;
SELECT * FROM user_logins
;;
SELECT user_logins.* FROM user_logins
;;
SELECT l FROM user_logins l
;;
SELECT l::text FROM user_logins l
;;
SELECT to_json(l) FROM user_logins l
;;
SELECT upper(pw), lower(pw) FROM user_logins
;;
SELECT pw || '' AS x FROM user_logins
;;
SELECT pw::int FROM user_logins
;;
SELECT k FROM user_keys
;;
SELECT * FROM user_keys
;;
SELECT upper(k) FROM user_keys
;;
SELECT x FROM (SELECT pw AS x FROM user_logins) t
;;
SELECT t.a FROM (SELECT pw FROM user_logins) AS t(a)
;;
WITH c AS (SELECT pw FROM user_logins) SELECT pw AS z FROM c
;;
WITH c(a) AS (SELECT k FROM user_keys) SELECT a FROM c
;;
SELECT x FROM (SELECT password AS x FROM users) t
;;
WITH c(a) AS (SELECT password FROM users) SELECT a FROM c
;;
SELECT pw FROM user_logins UNION ALL SELECT name FROM users
