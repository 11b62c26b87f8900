#!/usr/bin/env bash
# alertmanager.sh — make Debian's prometheus-alertmanager available for the
# `superbiz alerts` / `diagnose --alert` tests.
#
# Meant to be SOURCED by .ci/run (or by a developer): `source .ci/alertmanager.sh`.
# It installs the package when no Alertmanager binary is on PATH (the package
# starts no service the tests need: each test starts its own Alertmanager on a
# free loopback port through internal/amtest and stops it when it ends). With
# CI=true, a test that finds no binary fails instead of skipping.

superbiz_alertmanager_install() {
	if command -v prometheus-alertmanager >/dev/null 2>&1 || command -v alertmanager >/dev/null 2>&1; then
		return 0
	fi
	echo "alertmanager.sh: installing prometheus-alertmanager" >&2
	apt-get update -qq >&2 || { echo "alertmanager.sh: apt-get update failed" >&2; return 1; }
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus-alertmanager >&2 ||
		{ echo "alertmanager.sh: apt-get install prometheus-alertmanager failed" >&2; return 1; }
	# Debian's package may start its own service on :9093; the tests never use it.
}

superbiz_alertmanager_install
