#!/usr/bin/env bash
# Installs the server packages as a user without Go would, and runs them:
# the wheel into a fresh virtual environment (pip, no index), the npm
# tarballs into an empty folder (npm, offline), each with no Go on PATH;
# each must print this release's version and serve until /readyz answers.
#   packaging/test-install.sh PACKAGES_DIR
# PACKAGES_DIR holds the linux-x64 wheel and npm tarballs (packaging/build.sh
# on the linux/amd64 archive of scripts/dist.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
pkgs="$(cd "${1:?usage: packaging/test-install.sh PACKAGES_DIR}" && pwd)"
version="$(tr -d '[:space:]' <VERSION)"
python="$(command -v python3)"
python="$("$python" -c 'import sys; print(sys.executable)')" # through any shim
tmp="$(mktemp -d)"
server=""
cleanup() {
	[ -z "$server" ] || kill -KILL -- "-$server" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

# PATH without any folder that holds a go command.
nogo=""
IFS=: read -ra dirs <<<"$PATH"
for d in "${dirs[@]}"; do
	[ -n "$d" ] && [ ! -x "$d/go" ] && nogo="${nogo:+$nogo:}$d"
done

# check NAME CMD...: CMD version prints this release, then CMD serve
# answers /readyz on a free loopback port; prints the seconds until ready.
check() {
	local name="$1"
	shift
	local out port start
	out="$(env PATH="$nogo" "$@" version)"
	case "$out" in
	"graphmem $version commit "*) ;;
	*) echo "test-install: $name: version printed \"$out\", want graphmem $version commit …" >&2; return 1 ;;
	esac
	port="$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
	# Its own process group: npx does not pass signals on to what it runs.
	setsid env PATH="$nogo" GRAPHMEM_ADDR="127.0.0.1:$port" GRAPHMEM_DATA="$tmp/data-$name" "$@" serve >"$tmp/$name.log" 2>&1 &
	server=$!
	start=$SECONDS
	until curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1; do
		if ! kill -0 "$server" 2>/dev/null || [ $((SECONDS - start)) -gt 60 ]; then
			echo "test-install: $name: serve did not become ready:" >&2
			cat "$tmp/$name.log" >&2
			return 1
		fi
		sleep 0.2
	done
	# SIGTERM to the group, as a terminal's Ctrl-C or a service manager
	# would: everything in it must stop.
	kill -TERM -- "-$server"
	wait "$server" || true
	local n=0
	while pgrep -g "$server" >/dev/null; do
		if [ $((n += 1)) -gt 100 ]; then
			echo "test-install: $name: still running 10 s after SIGTERM:" >&2
			pgrep -a -g "$server" >&2
			return 1
		fi
		sleep 0.1
	done
	server=""
	echo "test-install: $name: $out; serve ready in $((SECONDS - start)) s" >&2
}

( PATH="$nogo"; ! command -v go >/dev/null ) || { echo "test-install: go is still on PATH" >&2; exit 1; }

# pip: the wheel for this machine, from the folder only.
"$python" -m venv "$tmp/venv"
env PATH="$nogo" "$tmp/venv/bin/python" -m pip install -q --no-index --find-links "$pkgs" graphmem-server=="$version"
check pip "$tmp/venv/bin/graphmem"

# npm: the main package and this platform's, from their tarballs, offline
# (the other platforms' optional dependencies are skipped).
mkdir "$tmp/npm"
(cd "$tmp/npm" && env PATH="$nogo" npm init -y >/dev/null &&
	env PATH="$nogo" npm install --offline --no-audit --no-fund --loglevel=error \
		"$pkgs/graphmem-server-$version.tgz" "$pkgs/graphmem-server-linux-x64-$version.tgz" >/dev/null)
check npm env -C "$tmp/npm" npx --offline graphmem-server
