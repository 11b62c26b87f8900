#!/usr/bin/env bash
# mariadb.sh — start a throwaway MariaDB for the query_mysql integration tests.
#
# Meant to be SOURCED by .ci/run (or by a developer): `source .ci/mariadb.sh`.
# It installs Debian's mariadb-server-core and mariadb-client-core when mariadbd
# is missing (those packages start no system service), initialises a data
# directory under a temporary directory, starts mariadbd on 127.0.0.1:33306 and
# a socket, waits until it answers, creates the `shop` database, a SELECT-only
# account `ro`@`127.0.0.1` and a privileged account `admin`@`127.0.0.1`, loads
# the fixture, exports the two DSNs the tests read, and installs an EXIT trap
# that stops the server by its pid file.
#
# Exports:
#   SUPERBIZ_TEST_MYSQL_DSN        the SELECT-only account (go-sql-driver DSN)
#   SUPERBIZ_TEST_MYSQL_ADMIN_DSN  the privileged account (ALL on shop + PROCESS)
#   SUPERBIZ_MARIADB_DIR           the throwaway directory (data, socket, log)
# Override the port with SUPERBIZ_MARIADB_PORT (default 33306).

superbiz_mariadb_start() {
	local here fixture port d i
	here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
	fixture="$here/../pkg/tools/sqlquery/testdata/fixture.sql"
	port="${SUPERBIZ_MARIADB_PORT:-33306}"

	if ! command -v mariadbd >/dev/null 2>&1; then
		echo "mariadb.sh: installing mariadb-server-core and mariadb-client-core" >&2
		apt-get update -qq >&2 || { echo "mariadb.sh: apt-get update failed" >&2; return 1; }
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
			mariadb-server-core mariadb-client-core >&2 ||
			{ echo "mariadb.sh: apt-get install mariadb-server-core mariadb-client-core failed" >&2; return 1; }
	fi
	# Debian installs mariadbd under /usr/sbin, which a minimal PATH may lack.
	case ":$PATH:" in *:/usr/sbin:*) ;; *) PATH="$PATH:/usr/sbin" ;; esac

	d="$(mktemp -d "${TMPDIR:-/tmp}/superbiz-mariadb.XXXXXX")" || return 1
	SUPERBIZ_MARIADB_DIR="$d"
	export SUPERBIZ_MARIADB_DIR

	if ! mariadb-install-db --no-defaults --datadir="$d/data" --user=root \
		--auth-root-authentication-method=normal >"$d/install.log" 2>&1; then
		echo "mariadb.sh: mariadb-install-db failed:" >&2
		cat "$d/install.log" >&2
		return 1
	fi

	mariadbd --no-defaults --datadir="$d/data" --user=root --socket="$d/sock" \
		--port="$port" --bind-address=127.0.0.1 --skip-log-bin \
		--pid-file="$d/mariadbd.pid" >"$d/server.log" 2>&1 &

	# Stop the server when the sourcing shell exits, keeping any EXIT trap it had.
	local prev
	prev="$(trap -p EXIT | sed -e "s/^trap -- '//" -e "s/' EXIT\$//")"
	# shellcheck disable=SC2064
	trap "superbiz_mariadb_stop; ${prev:-:}" EXIT

	for i in $(seq 1 300); do
		if mariadb --no-defaults -uroot --socket="$d/sock" -e 'select 1' >/dev/null 2>&1; then
			break
		fi
		if [ "$i" -eq 300 ]; then
			echo "mariadb.sh: mariadbd did not answer within 30 s; server log:" >&2
			cat "$d/server.log" >&2
			return 1
		fi
		sleep 0.1
	done

	if ! mariadb --no-defaults -uroot --socket="$d/sock" <<SQL; then
-- mariadb-install-db grants every account (PUBLIC) write access to test and
-- test_%: remove that, so the SELECT-only account really is SELECT-only.
DELETE FROM mysql.db WHERE Db IN ('test', 'test\\_%') AND User IN ('', 'PUBLIC');
FLUSH PRIVILEGES;
DROP DATABASE IF EXISTS test;
CREATE DATABASE shop CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
CREATE USER 'ro'@'127.0.0.1' IDENTIFIED BY 'ro-secret';
GRANT SELECT ON shop.* TO 'ro'@'127.0.0.1';
CREATE USER 'admin'@'127.0.0.1' IDENTIFIED BY 'admin-secret';
GRANT ALL PRIVILEGES ON shop.* TO 'admin'@'127.0.0.1';
GRANT PROCESS ON *.* TO 'admin'@'127.0.0.1';
-- The canary suite (e2e/canary_test.go) plants its corpus in databases of its
-- own, canary_*, created and dropped by admin, read by ro: never in shop,
-- whose checksum other tests compare.
GRANT ALL PRIVILEGES ON \`canary\\_%\`.* TO 'admin'@'127.0.0.1';
GRANT SELECT ON \`canary\\_%\`.* TO 'ro'@'127.0.0.1';
SQL
		echo "mariadb.sh: creating the shop database and accounts failed" >&2
		return 1
	fi
	if ! mariadb --no-defaults --default-character-set=utf8mb4 -uroot --socket="$d/sock" shop <"$fixture"; then
		echo "mariadb.sh: loading the fixture $fixture failed" >&2
		return 1
	fi

	SUPERBIZ_TEST_MYSQL_DSN="ro:ro-secret@tcp(127.0.0.1:$port)/shop"
	SUPERBIZ_TEST_MYSQL_ADMIN_DSN="admin:admin-secret@tcp(127.0.0.1:$port)/shop"
	export SUPERBIZ_TEST_MYSQL_DSN SUPERBIZ_TEST_MYSQL_ADMIN_DSN
	echo "mariadb.sh: MariaDB ready on 127.0.0.1:$port (dir $d)" >&2
}

# superbiz_mariadb_stop stops the server started above by its pid file and
# removes the throwaway directory.
superbiz_mariadb_stop() {
	local d="${SUPERBIZ_MARIADB_DIR:-}" pid i
	[ -n "$d" ] || return 0
	if [ -f "$d/mariadbd.pid" ]; then
		pid="$(cat "$d/mariadbd.pid")"
		kill "$pid" 2>/dev/null || true
		for i in $(seq 1 100); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
	fi
	rm -rf "$d"
	SUPERBIZ_MARIADB_DIR=""
}

superbiz_mariadb_start || return 1
