# server_refused.sql: views built on a refused catalog, a restricted column or a function
# returning what they hold (issue 34 §7: refuse families, not names). The guard admits them by
# name; query_postgres asks the server what each view is built on (pg_depend, through views of
# views) and refuses them as NOT_ALLOWED before they run, on any role.
# One statement per entry; entries are separated by a line holding only ';;'.
;;
SELECT umoptions FROM information_schema._pg_user_mappings
;;
SELECT * FROM information_schema._pg_user_mappings
;;
SELECT srvoptions FROM information_schema._pg_foreign_servers
;;
SELECT srvname FROM information_schema._pg_foreign_servers
;;
SELECT most_common_vals FROM pg_stats_ext
;;
SELECT statistics_name, most_common_vals::text FROM pg_catalog.pg_stats_ext
;;
SELECT * FROM pg_stats_ext_exprs
;;
SELECT opts FROM mapping_view
;;
SELECT * FROM public.mapping_view
;;
SELECT action_statement FROM information_schema.triggers
;;
SELECT x.srvname FROM (SELECT * FROM information_schema._pg_user_mappings) x
;;
WITH m AS (SELECT * FROM information_schema._pg_foreign_servers) SELECT * FROM m
;;
EXPLAIN SELECT * FROM pg_stats_ext
