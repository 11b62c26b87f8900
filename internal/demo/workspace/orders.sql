-- Demo orders database (SQLite). Times are UTC text 'YYYY-MM-DD HH:MM:SS'.
-- The rows are inserted by internal/demo from the same model that writes the logs.
-- There is deliberately no index on payments(order_id) nor on orders(user_id):
-- the full scans behind the demo's payment and slow-response incidents.

CREATE TABLE orders (
    id           INTEGER PRIMARY KEY,
    user_id      INTEGER NOT NULL,
    amount_cents INTEGER NOT NULL CHECK (amount_cents > 0),
    status       TEXT    NOT NULL CHECK (status IN ('PAID', 'PAYMENT_FAILED', 'PAYMENT_TIMEOUT')),
    created_at   TEXT    NOT NULL,
    updated_at   TEXT    NOT NULL
);
CREATE INDEX idx_orders_created_at ON orders (created_at);

CREATE TABLE payments (
    id         INTEGER PRIMARY KEY,
    order_id   INTEGER NOT NULL REFERENCES orders (id),
    provider   TEXT    NOT NULL,
    status     TEXT    NOT NULL CHECK (status IN ('SUCCEEDED', 'TIMEOUT', 'FAILED')),
    latency_ms INTEGER NOT NULL,
    created_at TEXT    NOT NULL
);
CREATE INDEX idx_payments_created_at ON payments (created_at);

CREATE TABLE slow_queries (
    id            INTEGER PRIMARY KEY,
    ts            TEXT    NOT NULL,
    duration_ms   INTEGER NOT NULL,
    rows_examined INTEGER NOT NULL,
    sql_text      TEXT    NOT NULL,
    db            TEXT    NOT NULL
);
CREATE INDEX idx_slow_queries_ts ON slow_queries (ts);
