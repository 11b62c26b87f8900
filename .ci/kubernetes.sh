#!/usr/bin/env bash
# kubernetes.sh — start a throwaway Kubernetes API server (with its etcd) for
# the query_kubernetes integration tests.
#
# Meant to be SOURCED by .ci/run (or by a developer): `source .ci/kubernetes.sh`.
# It installs Debian's etcd-server when etcd is missing, builds the upstream
# kube-apiserver v1.34.0 from .ci/kube-apiserver/ once and keeps the binary
# in ${XDG_CACHE_HOME:-$HOME/.cache}/superbiz-ci/ (a later run on the same
# machine reuses it: the build costs about 1,100 CPU-seconds, 10 minutes on an
# idle two-core machine, and 1.8 GB of memory), starts etcd and the API server on free loopback ports with RBAC
# and static token authentication, creates the read-only ClusterRole of
# docs/SPEC.md#query_kubernetes (file testdata below) bound to the user
# `reader` and a powerful role bound to `power`, writes one kubeconfig per
# user, exports their paths, and installs an EXIT trap that stops the API
# server, then etcd.
#
# A bare control plane: no controller manager, scheduler or kubelet, so
# objects stay exactly as the tests write them (pods' /status included).
#
# Exports:
#   SUPERBIZ_TEST_KUBECONFIG              the admin (system:masters)
#   SUPERBIZ_TEST_KUBE_READER_KUBECONFIG  bound to the read-only ClusterRole only
#   SUPERBIZ_TEST_KUBE_POWER_KUBECONFIG   bound to a role that can also delete pods and read secrets
#   SUPERBIZ_KUBE_DIR                     the throwaway directory (data, certs, logs)
# SUPERBIZ_KUBE_APISERVER names a kube-apiserver binary to use instead of building one.

superbiz_kube_free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

superbiz_kube_start() {
	local here cache bin d etcd_port peer_port api_port i
	here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

	if ! command -v etcd >/dev/null 2>&1; then
		echo "kubernetes.sh: installing etcd-server" >&2
		apt-get update -qq >&2 || { echo "kubernetes.sh: apt-get update failed" >&2; return 1; }
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends etcd-server >&2 ||
			{ echo "kubernetes.sh: apt-get install etcd-server failed" >&2; return 1; }
	fi

	bin="${SUPERBIZ_KUBE_APISERVER:-}"
	if [ -z "$bin" ]; then
		cache="${XDG_CACHE_HOME:-$HOME/.cache}/superbiz-ci"
		# the binary's name carries a hash of the module that builds it, so
		# a change of version rebuilds it
		bin="$cache/kube-apiserver-$(cat "$here/kube-apiserver/go.mod" "$here/kube-apiserver/main.go" | sha256sum | cut -c1-12)"
		if [ ! -x "$bin" ]; then
			mkdir -p "$cache"
			echo "kubernetes.sh: building kube-apiserver v1.34.0 into $bin (about 10 minutes on two cores)" >&2
			local start=$SECONDS
			(cd "$here/kube-apiserver" && go build -trimpath -ldflags=-s -o "$bin.tmp" .) >&2 ||
				{ echo "kubernetes.sh: building kube-apiserver failed" >&2; return 1; }
			mv "$bin.tmp" "$bin"
			echo "kubernetes.sh: kube-apiserver built in $((SECONDS - start)) s" >&2
		fi
	fi

	d="$(mktemp -d "${TMPDIR:-/tmp}/superbiz-kube.XXXXXX")" || return 1
	SUPERBIZ_KUBE_DIR="$d"
	export SUPERBIZ_KUBE_DIR
	etcd_port="$(superbiz_kube_free_port)" && peer_port="$(superbiz_kube_free_port)" && api_port="$(superbiz_kube_free_port)" || return 1

	# Stop the servers when the sourcing shell exits, keeping any EXIT trap it had.
	local prev
	prev="$(trap -p EXIT | sed -e "s/^trap -- '//" -e "s/' EXIT\$//")"
	# shellcheck disable=SC2064
	trap "superbiz_kube_stop; ${prev:-:}" EXIT

	etcd --name superbiz --data-dir "$d/etcd" --listen-client-urls "http://127.0.0.1:$etcd_port" \
		--advertise-client-urls "http://127.0.0.1:$etcd_port" --listen-peer-urls "http://127.0.0.1:$peer_port" \
		--initial-advertise-peer-urls "http://127.0.0.1:$peer_port" --initial-cluster "superbiz=http://127.0.0.1:$peer_port" \
		>"$d/etcd.log" 2>&1 &
	echo $! >"$d/etcd.pid"

	openssl genrsa -out "$d/sa.key" 2048 2>/dev/null && openssl rsa -in "$d/sa.key" -pubout -out "$d/sa.pub" 2>/dev/null ||
		{ echo "kubernetes.sh: openssl could not make the service-account key" >&2; return 1; }
	local admin_token reader_token power_token
	admin_token="admin-$(openssl rand -hex 16)"
	reader_token="reader-$(openssl rand -hex 16)"
	power_token="power-$(openssl rand -hex 16)"
	{
		echo "$admin_token,admin,1,system:masters"
		echo "$reader_token,reader,2"
		echo "$power_token,power,3"
	} >"$d/tokens.csv"
	chmod 600 "$d/tokens.csv"

	for i in $(seq 1 50); do
		curl -fsS "http://127.0.0.1:$etcd_port/health" >/dev/null 2>&1 && break
		if [ "$i" -eq 50 ]; then
			echo "kubernetes.sh: etcd did not answer within 10 s; its log:" >&2
			cat "$d/etcd.log" >&2
			return 1
		fi
		sleep 0.2
	done

	"$bin" --etcd-servers="http://127.0.0.1:$etcd_port" --bind-address=127.0.0.1 --advertise-address=127.0.0.1 \
		--secure-port="$api_port" --cert-dir="$d/certs" --token-auth-file="$d/tokens.csv" --authorization-mode=RBAC \
		--service-account-issuer=https://kubernetes.default.svc --service-account-key-file="$d/sa.pub" \
		--service-account-signing-key-file="$d/sa.key" --service-cluster-ip-range=10.96.0.0/24 \
		>"$d/apiserver.log" 2>&1 &
	echo $! >"$d/apiserver.pid"

	local server="https://127.0.0.1:$api_port"
	for i in $(seq 1 300); do
		[ "$(curl -ksS -H "Authorization: Bearer $admin_token" "$server/readyz" 2>/dev/null)" = "ok" ] && break
		if [ "$i" -eq 300 ] || ! kill -0 "$(cat "$d/apiserver.pid")" 2>/dev/null; then
			echo "kubernetes.sh: the API server was not ready within 60 s; the end of its log:" >&2
			tail -n 40 "$d/apiserver.log" >&2
			return 1
		fi
		sleep 0.2
	done

	# The roles: the read-only ClusterRole of SPEC for reader; for power,
	# the same plus delete on pods and read on secrets (the hostile case).
	local f
	for f in clusterrole-reader.json clusterrole-power.json binding-reader.json binding-power.json; do
		if ! curl -ksS -f -H "Authorization: Bearer $admin_token" -H "Content-Type: application/json" \
			--data-binary "@$here/kubernetes/$f" "$server$(case $f in clusterrole*) echo /apis/rbac.authorization.k8s.io/v1/clusterroles ;; *) echo /apis/rbac.authorization.k8s.io/v1/clusterrolebindings ;; esac)" >/dev/null; then
			echo "kubernetes.sh: creating $f failed" >&2
			return 1
		fi
	done

	local user token
	for user in admin reader power; do
		token="$(eval echo "\$${user}_token")"
		cat >"$d/$user.kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: superbiz-test
  cluster:
    server: $server
    insecure-skip-tls-verify: true
users:
- name: $user
  user:
    token: $token
contexts:
- name: superbiz-$user
  context:
    cluster: superbiz-test
    user: $user
current-context: superbiz-$user
EOF
		chmod 600 "$d/$user.kubeconfig"
	done
	SUPERBIZ_TEST_KUBECONFIG="$d/admin.kubeconfig"
	SUPERBIZ_TEST_KUBE_READER_KUBECONFIG="$d/reader.kubeconfig"
	SUPERBIZ_TEST_KUBE_POWER_KUBECONFIG="$d/power.kubeconfig"
	export SUPERBIZ_TEST_KUBECONFIG SUPERBIZ_TEST_KUBE_READER_KUBECONFIG SUPERBIZ_TEST_KUBE_POWER_KUBECONFIG
	echo "kubernetes.sh: API server ready on $server (dir $d)" >&2
}

# superbiz_kube_stop stops the API server, then etcd (the API server can
# take 30 s to exit once its storage is gone), and removes the directory.
superbiz_kube_stop() {
	local d="${SUPERBIZ_KUBE_DIR:-}" name pid i
	[ -n "$d" ] || return 0
	for name in apiserver etcd; do
		[ -f "$d/$name.pid" ] || continue
		pid="$(cat "$d/$name.pid")"
		kill "$pid" 2>/dev/null || continue
		for i in $(seq 1 100); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -9 "$pid" 2>/dev/null || true
	done
	rm -rf "$d"
	SUPERBIZ_KUBE_DIR=""
}

superbiz_kube_start || return 1
