#!/usr/bin/env bash
# postgres.sh — start a throwaway PostgreSQL cluster for the query_postgres
# integration tests.
#
# Meant to be SOURCED by .ci/run (or by a developer): `source .ci/postgres.sh`.
# It installs Debian's postgresql when initdb is missing (the packaged
# cluster on 5432 is never used, nor started by us), runs initdb as the
# `postgres` user in a temporary directory (initdb refuses root), starts the
# server on 127.0.0.1 and a free port with fsync off and its socket in that
# directory, waits until it answers, creates the `shop` database with the
# fixture, a SELECT-only role `ro`, a second read-only role `reader` (member
# of pg_read_all_data), a `monitor` role (member of pg_monitor, which reads
# every setting) and a superuser `admin` with passwords (scram), sets the
# credential-bearing settings the corpus aims at (archive_command,
# restore_command, primary_conninfo, ssl_passphrase_command: inert on this
# cluster), exports the DSNs the tests read, and installs an EXIT trap that
# stops the server.
#
# Exports:
#   SUPERBIZ_TEST_POSTGRES_DSN         the SELECT-only role (libpq URL)
#   SUPERBIZ_TEST_POSTGRES_READER_DSN  a role holding pg_read_all_data only
#   SUPERBIZ_TEST_POSTGRES_MONITOR_DSN a role holding pg_monitor only
#   SUPERBIZ_TEST_POSTGRES_ADMIN_DSN   a superuser (the hostile corpus runs on it)
#   SUPERBIZ_POSTGRES_DIR              the throwaway directory (data, socket, log)
# Override the port with SUPERBIZ_POSTGRES_PORT (default: a free one).

superbiz_postgres_start() {
	local here fixture port d bin i
	here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
	fixture="$here/../pkg/tools/sqlquery/testdata/postgres/fixture.sql"

	bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
	if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
		echo "postgres.sh: installing postgresql" >&2
		apt-get update -qq >&2 || { echo "postgres.sh: apt-get update failed" >&2; return 1; }
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >&2 ||
			{ echo "postgres.sh: apt-get install postgresql failed" >&2; return 1; }
		bin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"
	fi
	if ! id postgres >/dev/null 2>&1; then
		echo "postgres.sh: the postgres user is missing (the postgresql package creates it)" >&2
		return 1
	fi

	port="${SUPERBIZ_POSTGRES_PORT:-}"
	if [ -z "$port" ]; then
		port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null)" ||
			port=35432
	fi

	d="$(mktemp -d "${TMPDIR:-/tmp}/superbiz-postgres.XXXXXX")" || return 1
	chown postgres: "$d" && chmod 700 "$d"
	SUPERBIZ_POSTGRES_DIR="$d"
	export SUPERBIZ_POSTGRES_DIR

	echo "postgres-secret" >"$d/pw" && chown postgres: "$d/pw"
	if ! runuser -u postgres -- "$bin/initdb" -D "$d/data" -A scram-sha-256 -U postgres \
		--pwfile="$d/pw" --no-sync >"$d/initdb.log" 2>&1; then
		echo "postgres.sh: initdb failed:" >&2
		cat "$d/initdb.log" >&2
		return 1
	fi
	# Local socket connections as postgres need no password; TCP always does.
	sed -i 's/^local\(\s\+all\s\+all\s\+\)scram-sha-256/local\1trust/' "$d/data/pg_hba.conf"

	runuser -u postgres -- "$bin/pg_ctl" -D "$d/data" -l "$d/server.log" -w -t 30 \
		-o "-c listen_addresses=127.0.0.1 -p $port -c unix_socket_directories=$d -c fsync=off -c full_page_writes=off -c synchronous_commit=off -c shared_preload_libraries=pg_stat_statements" \
		start >&2 || {
		echo "postgres.sh: pg_ctl start failed; server log:" >&2
		cat "$d/server.log" >&2
		return 1
	}

	# Stop the server when the sourcing shell exits, keeping any EXIT trap it had.
	local prev
	prev="$(trap -p EXIT | sed -e "s/^trap -- '//" -e "s/' EXIT\$//")"
	# shellcheck disable=SC2064
	trap "superbiz_postgres_stop; ${prev:-:}" EXIT

	local psql=("$bin/psql" -X -q -v ON_ERROR_STOP=1 -h "$d" -p "$port" -U postgres)
	for i in $(seq 1 100); do
		runuser -u postgres -- "${psql[@]}" -d postgres -c 'select 1' >/dev/null 2>&1 && break
		if [ "$i" -eq 100 ]; then
			echo "postgres.sh: the server did not answer within 10 s; server log:" >&2
			cat "$d/server.log" >&2
			return 1
		fi
		sleep 0.1
	done

	if ! runuser -u postgres -- "${psql[@]}" -d postgres <<'SQL' >&2; then
CREATE ROLE admin LOGIN SUPERUSER PASSWORD 'admin-secret';
CREATE ROLE ro LOGIN PASSWORD 'ro-secret';
CREATE ROLE reader LOGIN PASSWORD 'reader-secret' IN ROLE pg_read_all_data;
CREATE ROLE monitor LOGIN PASSWORD 'monitor-secret' IN ROLE pg_monitor;
CREATE DATABASE shop OWNER admin;
ALTER SYSTEM SET archive_command = 'curl -u archiver:ArchivePassCobalt7 -T %p https://backup.test/%f';
ALTER SYSTEM SET restore_command = 'restore --token RestoreTokenOrchid5 %f %p';
ALTER SYSTEM SET primary_conninfo = 'host=primary.test user=replicator password=ReplPassMagenta3';
ALTER SYSTEM SET ssl_passphrase_command = 'echo PassphraseSaffron8';
SELECT pg_reload_conf();
SQL
		echo "postgres.sh: creating the roles and the shop database failed" >&2
		return 1
	fi
	# The schema and the objects the corpus aims at, then the MariaDB
	# fixture's rows (its INSERT statements are valid PostgreSQL too).
	if ! { cat "$fixture" && sed -n '/^INSERT INTO/,/;$/p' "$here/../pkg/tools/sqlquery/testdata/fixture.sql"; } |
		runuser -u postgres -- "${psql[@]}" -d shop -f - >&2; then
		echo "postgres.sh: loading the fixture $fixture failed" >&2
		return 1
	fi

	SUPERBIZ_TEST_POSTGRES_DSN="postgres://ro:ro-secret@127.0.0.1:$port/shop?sslmode=disable"
	SUPERBIZ_TEST_POSTGRES_READER_DSN="postgres://reader:reader-secret@127.0.0.1:$port/shop?sslmode=disable"
	SUPERBIZ_TEST_POSTGRES_MONITOR_DSN="postgres://monitor:monitor-secret@127.0.0.1:$port/shop?sslmode=disable"
	SUPERBIZ_TEST_POSTGRES_ADMIN_DSN="postgres://admin:admin-secret@127.0.0.1:$port/shop?sslmode=disable"
	export SUPERBIZ_TEST_POSTGRES_DSN SUPERBIZ_TEST_POSTGRES_READER_DSN SUPERBIZ_TEST_POSTGRES_MONITOR_DSN SUPERBIZ_TEST_POSTGRES_ADMIN_DSN
	echo "postgres.sh: PostgreSQL ready on 127.0.0.1:$port (dir $d)" >&2
}

# superbiz_postgres_stop stops the server started above and removes the
# throwaway directory.
superbiz_postgres_stop() {
	local d="${SUPERBIZ_POSTGRES_DIR:-}" bin
	[ -n "$d" ] || return 0
	bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
	if [ -f "$d/data/postmaster.pid" ] && [ -n "$bin" ]; then
		runuser -u postgres -- "$bin/pg_ctl" -D "$d/data" -m immediate -w -t 10 stop >/dev/null 2>&1 || true
	fi
	rm -rf "$d"
	SUPERBIZ_POSTGRES_DIR=""
}

superbiz_postgres_start || return 1
