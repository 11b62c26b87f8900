#!/usr/bin/env bash
# redis.sh — make sure the Redis binaries the tests start exist.
#
# Meant to be SOURCED by .ci/run (or by a developer): `source .ci/redis.sh`.
# It installs Debian's redis-server (redis-server and redis-cli), without
# recommended packages, when a binary is missing. It starts nothing: the
# tests (internal/redistest) start each server, and a 3-master cluster, on
# free loopback ports with their own directories, and stop them.

superbiz_redis_install() {
	local missing=0 bin
	for bin in redis-server redis-cli; do
		command -v "$bin" >/dev/null 2>&1 || missing=1
	done
	[ "$missing" -eq 0 ] && return 0
	echo "redis.sh: installing redis-server" >&2
	apt-get update -qq >&2 || { echo "redis.sh: apt-get update failed" >&2; return 1; }
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server >&2 ||
		{ echo "redis.sh: apt-get install redis-server failed" >&2; return 1; }
	# The tests never use the packaged service (if one started): they start
	# their own servers on free loopback ports.
	for bin in redis-server redis-cli; do
		command -v "$bin" >/dev/null 2>&1 || { echo "redis.sh: $bin still missing after install" >&2; return 1; }
	done
}

superbiz_redis_install || return 1
