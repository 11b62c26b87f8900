# views.sql: the view-rename fixture of TestSQLiteViewLeakCorpus (issue 34), SQLite's twin of
# mariadb/views.sql. The test writes these statements into a new SQLite file, one per ';;'
# entry. Views rename secret-named columns, compute from them, nest, union, expand stars, use
# SQLite's own syntax (quoted identifiers "x" and [x], || concatenation, JSON functions,
# comments, a CTE in the body); the planted secrets are listed in myCanaries.
;;
CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT, password TEXT, api_token TEXT, note TEXT)
;;
INSERT INTO users VALUES
  (1, 'ann', 'HunterTwoAlpaca9', 'tok-VaultSecretIndigo4', 'plain note'),
  (2, 'bob', 'ArchivePassCobalt7', 'tok-RestoreTokenOrchid5', 'second note')
;;
CREATE TABLE orders (id INTEGER PRIMARY KEY, user_id INTEGER, total INTEGER)
;;
INSERT INTO orders VALUES (10, 1, 100), (11, 2, 250)
;;
CREATE VIEW v_rename AS SELECT id, password AS pw, name FROM users
;;
CREATE VIEW v_list (a, b, c) AS SELECT id, api_token, name FROM users
;;
CREATE VIEW v_computed AS SELECT id, 'x' || password AS label, upper(api_token) AS shout, length(name) AS n FROM users
;;
CREATE VIEW v_of_view AS SELECT pw AS harmless, name FROM v_rename
;;
CREATE VIEW v_deep AS SELECT harmless AS h, name AS who FROM v_of_view
;;
CREATE VIEW v_star AS SELECT * FROM users
;;
CREATE VIEW v_star_rename AS SELECT * FROM v_rename
;;
CREATE VIEW v_star_join AS SELECT * FROM v_rename a JOIN v_rename b ON a.id = b.id
;;
CREATE VIEW v_union AS SELECT id, name AS word FROM users UNION ALL SELECT id, password FROM users
;;
CREATE VIEW v_json AS SELECT id, json_object('k', password) AS doc FROM users
;;
CREATE VIEW v_json_array AS SELECT json_group_array(api_token) AS all_tokens FROM users
;;
CREATE VIEW v_sub AS SELECT id, (SELECT password FROM users u2 WHERE u2.id = users.id) AS s FROM users
;;
CREATE VIEW v_derived AS SELECT t.x AS y FROM (SELECT password AS x FROM users) t
;;
CREATE VIEW v_cte AS WITH c(k) AS (SELECT api_token FROM users) SELECT k AS plain FROM c
;;
CREATE VIEW v_join AS SELECT o.id AS order_id, o.total, u.password AS who FROM orders o JOIN users u ON u.id = o.user_id
;;
CREATE VIEW "v quoted" AS SELECT id, "password" AS "shade", [api_token] AS [tint] FROM users
;;
CREATE VIEW v_comment AS /* a comment AS it */ SELECT id, -- AS comment
  password AS hue FROM users
;;
CREATE VIEW V_Case AS SELECT id, PassWord AS tone FROM Users
;;
CREATE VIEW v_counts AS SELECT count(password) AS n, max(id) AS top FROM users
;;
CREATE VIEW v_clean AS SELECT id, name, note FROM users
