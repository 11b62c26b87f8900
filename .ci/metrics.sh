#!/usr/bin/env bash
# metrics.sh — make sure the metrics and alert servers the tests start exist.
#
# Meant to be SOURCED by .ci/run (or by a developer): `source .ci/metrics.sh`.
# It installs Debian's prometheus (with promtool), prometheus-alertmanager and
# victoria-metrics, without recommended packages, when one of their binaries is
# missing. It starts nothing: the tests (internal/promtest) start each server
# themselves on a free loopback port with their own data, and stop it.

superbiz_metrics_install() {
	local missing=0 bin
	for bin in prometheus promtool prometheus-alertmanager victoria-metrics; do
		command -v "$bin" >/dev/null 2>&1 || missing=1
	done
	[ "$missing" -eq 0 ] && return 0
	echo "metrics.sh: installing prometheus prometheus-alertmanager victoria-metrics" >&2
	apt-get update -qq >&2 || { echo "metrics.sh: apt-get update failed" >&2; return 1; }
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		prometheus prometheus-alertmanager victoria-metrics >&2 ||
		{ echo "metrics.sh: apt-get install prometheus prometheus-alertmanager victoria-metrics failed" >&2; return 1; }
	# The tests never use a packaged service (if one started): they start
	# their own servers on free loopback ports.
	for bin in prometheus promtool prometheus-alertmanager victoria-metrics; do
		command -v "$bin" >/dev/null 2>&1 || { echo "metrics.sh: $bin still missing after install" >&2; return 1; }
	done
}

superbiz_metrics_install || return 1
