# views.sql: the view-rename fixture of TestMariaDBViewLeakCorpus (issue 34). The test creates a
# database of its own (canary_ and 12 hex digits: the accounts of .ci/mariadb.sh may create and
# read those) as the admin account and runs these statements in it, one per ';;' entry. Views
# rename secret-named columns, compute from them, nest, union and expand stars; the planted
# secrets are listed in myCanaries.
;;
CREATE TABLE users (id INT PRIMARY KEY, name VARCHAR(32), password VARCHAR(64), api_token VARCHAR(64), note TEXT)
;;
INSERT INTO users VALUES
  (1, 'ann', 'HunterTwoAlpaca9', 'tok-VaultSecretIndigo4', 'plain note'),
  (2, 'bob', 'ArchivePassCobalt7', 'tok-RestoreTokenOrchid5', 'second note')
;;
CREATE TABLE orders (id INT PRIMARY KEY, user_id INT, total INT)
;;
INSERT INTO orders VALUES (10, 1, 100), (11, 2, 250)
;;
CREATE VIEW v_rename AS SELECT id, password AS pw, name FROM users
;;
CREATE VIEW v_list (a, b, c) AS SELECT id, api_token, name FROM users
;;
CREATE VIEW v_computed AS SELECT id, CONCAT('x', password) AS label, UPPER(api_token) AS shout, LENGTH(name) AS n FROM users
;;
CREATE VIEW v_of_view AS SELECT pw AS harmless, name FROM v_rename
;;
CREATE VIEW v_deep AS SELECT harmless AS h, name AS who FROM v_of_view
;;
CREATE VIEW v_star AS SELECT * FROM users
;;
CREATE VIEW v_union AS SELECT id, name AS word FROM users UNION ALL SELECT id, password FROM users
;;
CREATE VIEW v_json AS SELECT id, JSON_OBJECT('k', password) AS doc FROM users
;;
CREATE VIEW v_sub AS SELECT id, (SELECT password FROM users u2 WHERE u2.id = users.id) AS s FROM users
;;
CREATE VIEW v_derived AS SELECT t.x AS y FROM (SELECT password AS x FROM users) t
;;
CREATE VIEW v_join AS SELECT o.id AS order_id, o.total, u.password AS who FROM orders o JOIN users u ON u.id = o.user_id
;;
CREATE VIEW v_counts AS SELECT COUNT(password) AS n, MAX(id) AS top FROM users
;;
CREATE VIEW v_clean AS SELECT id, name, note FROM users
