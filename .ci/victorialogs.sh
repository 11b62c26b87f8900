#!/usr/bin/env bash
# victorialogs.sh — VictoriaLogs for the tests: the binary, a single node
# and a two-storage-node cluster.
#
# Meant to be SOURCED by .ci/run (or by a developer): `source .ci/victorialogs.sh`.
# It installs victoria-logs v1.52.2 once per machine (go install, about two
# minutes on two cores, into $(go env GOPATH)/bin), starts a single node and
# a cluster (two storage nodes behind one insert/select front end) on free
# loopback ports, every one with -retentionPeriod=100y (the default 7 days
# silently drops the fixed-date fixtures), exports
#   SUPERBIZ_VICTORIALOGS_BIN               the binary (internal/vlogstest starts its own servers from it)
#   SUPERBIZ_TEST_VICTORIALOGS_URL          the single node
#   SUPERBIZ_TEST_VICTORIALOGS_CLUSTER_URL  the cluster's front end
# and installs an EXIT trap that stops them. Tests that ingest fixtures or
# stop a storage node start servers of their own from the binary, so no two
# tests share data.

superbiz_victorialogs_version=v1.52.2

superbiz_victorialogs_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# superbiz_victorialogs_run NAME PORT ARGS...: one server, its pid recorded.
superbiz_victorialogs_run() {
	local name="$1" port="$2"
	shift 2
	"$SUPERBIZ_VICTORIALOGS_BIN" -httpListenAddr="127.0.0.1:$port" -storageDataPath="$SUPERBIZ_VICTORIALOGS_DIR/$name" \
		-retentionPeriod=100y -loggerLevel=ERROR "$@" >"$SUPERBIZ_VICTORIALOGS_DIR/$name.log" 2>&1 &
	echo $! >>"$SUPERBIZ_VICTORIALOGS_DIR/pids"
	local i
	for i in $(seq 1 100); do
		curl -fsS "http://127.0.0.1:$port/health" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	echo "victorialogs.sh: $name did not become ready; its log:" >&2
	cat "$SUPERBIZ_VICTORIALOGS_DIR/$name.log" >&2
	return 1
}

superbiz_victorialogs_stop() {
	local pid
	[ -n "${SUPERBIZ_VICTORIALOGS_DIR:-}" ] && [ -f "$SUPERBIZ_VICTORIALOGS_DIR/pids" ] || return 0
	while read -r pid; do
		kill "$pid" 2>/dev/null || true
	done <"$SUPERBIZ_VICTORIALOGS_DIR/pids"
	rm -rf "$SUPERBIZ_VICTORIALOGS_DIR"
}

superbiz_victorialogs_start() {
	local bin gobin single a b front
	gobin="$(go env GOPATH)/bin"
	bin="$gobin/victoria-logs"
	if [ ! -x "$bin" ]; then
		echo "victorialogs.sh: installing victoria-logs $superbiz_victorialogs_version (about two minutes)" >&2
		GOFLAGS=-buildvcs=false go install "github.com/VictoriaMetrics/VictoriaLogs/app/victoria-logs@$superbiz_victorialogs_version" >&2 ||
			{ echo "victorialogs.sh: go install victoria-logs failed" >&2; return 1; }
	fi
	SUPERBIZ_VICTORIALOGS_BIN="$bin"
	export SUPERBIZ_VICTORIALOGS_BIN

	SUPERBIZ_VICTORIALOGS_DIR="$(mktemp -d "${TMPDIR:-/tmp}/superbiz-victorialogs.XXXXXX")" || return 1
	export SUPERBIZ_VICTORIALOGS_DIR
	# Stop the servers when the sourcing shell exits, keeping any EXIT trap it had.
	local prev
	prev="$(trap -p EXIT | sed -e "s/^trap -- '//" -e "s/' EXIT\$//")"
	# shellcheck disable=SC2064
	trap "superbiz_victorialogs_stop; ${prev:-:}" EXIT

	single="$(superbiz_victorialogs_port)" && superbiz_victorialogs_run single "$single" || return 1
	a="$(superbiz_victorialogs_port)" && superbiz_victorialogs_run node-a "$a" || return 1
	b="$(superbiz_victorialogs_port)" && superbiz_victorialogs_run node-b "$b" || return 1
	front="$(superbiz_victorialogs_port)" && superbiz_victorialogs_run front "$front" -storageNode="127.0.0.1:$a,127.0.0.1:$b" || return 1
	SUPERBIZ_TEST_VICTORIALOGS_URL="http://127.0.0.1:$single"
	SUPERBIZ_TEST_VICTORIALOGS_CLUSTER_URL="http://127.0.0.1:$front"
	export SUPERBIZ_TEST_VICTORIALOGS_URL SUPERBIZ_TEST_VICTORIALOGS_CLUSTER_URL
	echo "victorialogs.sh: single node $SUPERBIZ_TEST_VICTORIALOGS_URL, cluster $SUPERBIZ_TEST_VICTORIALOGS_CLUSTER_URL" >&2
}

superbiz_victorialogs_start || return 1
