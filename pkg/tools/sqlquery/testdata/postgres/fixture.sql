-- Fixture for the query_postgres integration tests (loaded by .ci/postgres.sh
-- into the `shop` database as the postgres superuser): the MariaDB fixture's
-- tables (../fixture.sql) in PostgreSQL's types, plus the objects
-- the hostile corpus aims at: a sequence, a volatile function and a
-- procedure that write, and a table of secrets. Checked by a checksum query
-- before and after the corpus runs.
CREATE TABLE customers (
  id INT PRIMARY KEY,
  name VARCHAR(64) NOT NULL,
  tier VARCHAR(16) NOT NULL
);

CREATE TABLE orders (
  id INT PRIMARY KEY,
  customer_id INT NOT NULL,
  status VARCHAR(16) NOT NULL,
  amount_cents INT NOT NULL,
  created_at TIMESTAMP NOT NULL,
  note TEXT NULL
);
CREATE INDEX idx_orders_status ON orders (status);
CREATE INDEX idx_orders_customer ON orders (customer_id);

CREATE TABLE payments (
  id INT PRIMARY KEY,
  order_id INT NOT NULL,
  gateway VARCHAR(32) NOT NULL,
  latency_ms INT NOT NULL,
  outcome VARCHAR(16) NOT NULL,
  created_at TIMESTAMP NOT NULL
);

-- The rows are ../fixture.sql's own: .ci/postgres.sh loads its INSERT statements
-- after this file, so both engines hold the same data.

-- Secrets an application keeps: masked by column name and by what an alias
-- is computed from.
CREATE TABLE api_clients (
  id INT PRIMARY KEY,
  service VARCHAR(32) NOT NULL,
  api_key TEXT NOT NULL,
  settings JSONB NOT NULL
);
INSERT INTO api_clients VALUES
  (1, 'stripe', 'tulip-harbor-cobalt-17', '{"endpoint": "https://api.stripe.test", "password": "pg-fixture-pass-1"}');

-- What the hostile corpus aims at.
CREATE SEQUENCE order_numbers START 1000;
CREATE TABLE audit_log (id SERIAL PRIMARY KEY, what TEXT NOT NULL);
CREATE FUNCTION log_and_count() RETURNS INT VOLATILE LANGUAGE sql AS
  $$ INSERT INTO audit_log (what) VALUES ('written by a function') RETURNING id $$;
CREATE FUNCTION public.lower(x INT) RETURNS INT VOLATILE LANGUAGE sql AS
  $$ INSERT INTO audit_log (what) VALUES ('written by public.lower') RETURNING x $$;
CREATE PROCEDURE write_audit() LANGUAGE sql AS
  $$ INSERT INTO audit_log (what) VALUES ('written by a procedure') $$;
CREATE VIEW paid_orders AS SELECT id, amount_cents FROM orders WHERE status = 'paid';

-- Issue 34's probes: a users table whose password the server would quote in
-- an error text (password::int) and return inside whole-row values; extended
-- statistics whose sampled values pg_stats_ext shows; stored options with
-- passwords behind pg_user_mappings' unlisted twins; user functions that
-- would win over the built-in of the same name if the search path let them.
CREATE TABLE users (id INT PRIMARY KEY, name TEXT NOT NULL, password TEXT NOT NULL);
INSERT INTO users VALUES (1, 'alice', 'HunterTwoAlpaca9');
CREATE STATISTICS users_mcv (mcv) ON name, password FROM users;
ANALYZE users;
CREATE TYPE credential AS (login TEXT, secret TEXT);
CREATE TABLE vault (id INT PRIMARY KEY, cred credential NOT NULL);
INSERT INTO vault VALUES (1, ROW('svc', 'VaultSecretIndigo4'));
CREATE FOREIGN DATA WRAPPER superbiz_fdw;
CREATE SERVER superbiz_srv FOREIGN DATA WRAPPER superbiz_fdw OPTIONS (host 'db.internal', password 'SrvOptionSecret5');
CREATE USER MAPPING FOR PUBLIC SERVER superbiz_srv OPTIONS (user 'app', password 'UmOptionSecret6');
CREATE FUNCTION public.length(x INT) RETURNS INT LANGUAGE sql AS $$ SELECT 424242 $$;
CREATE FUNCTION public."Lower"(x TEXT) RETURNS TEXT LANGUAGE sql AS $$ SELECT 'user code ran' $$;
CREATE VIEW mapping_view AS SELECT srvname, umoptions AS opts FROM pg_user_mappings;
-- Views that rename a secret column (issue 34, the view-rename leak): what
-- the server resolves pw and k to is users.password.
CREATE VIEW user_logins AS SELECT id, name, password AS pw FROM users;
CREATE VIEW user_keys AS SELECT id, pw AS k FROM user_logins;
CREATE VIEW flagged_orders AS SELECT id, status FROM orders WHERE note <> 'ViewLiteralSecret2';

-- The SELECT-only role reads the schema; nothing more.
GRANT SELECT ON ALL TABLES IN SCHEMA public TO ro;
