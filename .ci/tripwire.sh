#!/usr/bin/env bash
# tripwire.sh — fail CI when a test touches a default server port.
#
# Meant to be SOURCED by .ci/run (or by a developer) from the repository root,
# right before the tests: `source .ci/tripwire.sh`, then the tests, then
# `superbiz_tripwire_check`. It builds internal/testenv/tripwire and starts it
# in the background on each free default port (11434 Ollama, 9090 Prometheus,
# 9093 Alertmanager, 3306 MySQL, 5432 PostgreSQL; a busy one is listed as not watched). A test
# must use its own server on a free port or an address that cannot answer, so
# any connection the tripwire records is a bug: superbiz_tripwire_check stops
# it and fails with the recorded lines (port, first line, time, client).
# An EXIT trap stops it however the sourcing shell ends, and the tripwire
# exits by itself when that shell is gone (killed without its trap).
# SUPERBIZ_TRIPWIRE_PORTS (comma-separated) replaces the watched ports.

superbiz_tripwire_start() {
	local d i
	d="$(mktemp -d "${TMPDIR:-/tmp}/superbiz-tripwire.XXXXXX")" || return 1
	SUPERBIZ_TRIPWIRE_DIR="$d" SUPERBIZ_TRIPWIRE_TMP="$d"
	go build -o "$d/tripwire" ./internal/testenv/tripwire ||
		{ echo "tripwire.sh: building internal/testenv/tripwire failed" >&2; return 1; }
	"$d/tripwire" -out "$d/record" -ready "$d/ready" ${SUPERBIZ_TRIPWIRE_PORTS:+-ports "$SUPERBIZ_TRIPWIRE_PORTS"} 2>"$d/stderr" &
	SUPERBIZ_TRIPWIRE_PID=$!

	# Stop it when the sourcing shell exits, keeping any EXIT trap it had.
	local prev
	prev="$(trap -p EXIT | sed -e "s/^trap -- '//" -e "s/' EXIT\$//")"
	# shellcheck disable=SC2064
	trap "superbiz_tripwire_cleanup; ${prev:-:}" EXIT

	for i in $(seq 1 100); do
		[ -f "$d/ready" ] && break
		if ! kill -0 "$SUPERBIZ_TRIPWIRE_PID" 2>/dev/null || [ "$i" -eq 100 ]; then
			echo "tripwire.sh: the tripwire did not start:" >&2
			cat "$d/stderr" >&2
			return 1
		fi
		sleep 0.1
	done
	grep 'not watched' "$d/stderr" >&2 || true
	echo "tripwire.sh: watching $(tr '\n' ' ' <"$d/ready")" >&2
}

# superbiz_tripwire_stop stops the tripwire (it records the connections in
# hand first); a second call does nothing.
superbiz_tripwire_stop() {
	local pid="${SUPERBIZ_TRIPWIRE_PID:-}"
	[ -n "$pid" ] || return 0
	SUPERBIZ_TRIPWIRE_PID=""
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}

# superbiz_tripwire_report prints the recorded connections and fails when
# there are any.
superbiz_tripwire_report() {
	local record="${SUPERBIZ_TRIPWIRE_DIR:-}/record"
	[ -s "$record" ] || return 0
	echo "tripwire: tests connected to a default server port (port, first line, time, client):" >&2
	cat "$record" >&2
	return 1
}

# superbiz_tripwire_check stops the tripwire and fails, printing every
# recorded connection, when a test touched a default port.
superbiz_tripwire_check() {
	superbiz_tripwire_stop
	if ! superbiz_tripwire_report; then
		echo "tripwire: give each such test its own server on a free port, or an address that cannot answer" >&2
		SUPERBIZ_TRIPWIRE_DIR="" # reported once: the EXIT trap only removes the directory
		return 1
	fi
	echo "tripwire: no test connected to a default server port"
}

# superbiz_tripwire_cleanup runs on exit: it stops the tripwire, prints
# what it recorded when nobody has (the tests failed first), and removes
# its directory.
superbiz_tripwire_cleanup() {
	superbiz_tripwire_stop
	superbiz_tripwire_report || true
	rm -rf "${SUPERBIZ_TRIPWIRE_TMP:-}"
}

superbiz_tripwire_start || return 1
