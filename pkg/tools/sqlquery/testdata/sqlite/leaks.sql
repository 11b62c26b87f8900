# leaks.sql: statements over the views of sqlite/views.sql whose answer could carry a planted
# secret under a harmless name (issue 34: query_mysql's SQLite path did not judge views at all).
# No planted secret may reach a result or an error, whatever the outcome.
# One statement per entry; entries are separated by a line holding only ';;'.
;;
SELECT pw FROM v_rename
;;
SELECT * FROM v_rename
;;
SELECT v_rename.* FROM v_rename
;;
SELECT pw AS x FROM v_rename
;;
SELECT concat(pw, '') AS y FROM v_rename
;;
SELECT b FROM v_list
;;
SELECT * FROM v_list
;;
SELECT label, shout FROM v_computed
;;
SELECT * FROM v_computed
;;
SELECT harmless FROM v_of_view
;;
SELECT * FROM v_deep
;;
SELECT h AS again FROM v_deep
;;
SELECT * FROM v_star
;;
SELECT * FROM v_star_rename
;;
SELECT * FROM v_star_join
;;
SELECT word FROM v_union
;;
SELECT * FROM v_union
;;
SELECT doc FROM v_json
;;
SELECT json_extract(doc, '$.k') AS k FROM v_json
;;
SELECT all_tokens FROM v_json_array
;;
SELECT s FROM v_sub
;;
SELECT y FROM v_derived
;;
SELECT plain FROM v_cte
;;
SELECT who, total FROM v_join
;;
SELECT shade, tint FROM `v quoted`
;;
SELECT hue FROM v_comment
;;
SELECT tone FROM v_case
;;
SELECT z FROM (SELECT pw AS z FROM v_rename) t
;;
WITH c AS (SELECT harmless AS q FROM v_of_view) SELECT q FROM c
;;
SELECT (SELECT pw FROM v_rename WHERE id = 1) AS inner_value
;;
SELECT id FROM v_rename UNION ALL SELECT pw FROM v_rename
;;
SELECT group_concat(pw) AS all_of_them FROM v_rename
;;
SELECT o.id, r.pw FROM orders o JOIN v_rename r ON r.id = o.user_id
