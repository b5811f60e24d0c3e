#!/usr/bin/env bash
# Runs Schemathesis (versions pinned in scripts/schemathesis/requirements.txt,
# installed in a virtual environment) against a live `graphmem serve` with API
# keys: every phase (examples, coverage, fuzzing, stateful along the
# document's links), every check. Any failure fails the run.
#
#   SCHEMATHESIS_EXAMPLES   test cases per operation and phase (default 40)
#   SCHEMATHESIS_SEED       the seed (default fixed, so CI runs are repeatable)
#   SCHEMATHESIS_VENV       where the virtual environment lives (default
#                           $TMPDIR/graphmem-schemathesis-venv, reused)
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"

venv="${SCHEMATHESIS_VENV:-${TMPDIR:-/tmp}/graphmem-schemathesis-venv}"
reqs="$repo/scripts/schemathesis/requirements.txt"
if ! cmp -s "$reqs" "$venv/requirements.txt" 2>/dev/null; then
	rm -rf "$venv"
	python3 -m venv "$venv"
	"$venv/bin/pip" install -q --disable-pip-version-check -r "$reqs"
	cp "$reqs" "$venv/requirements.txt"
fi

work="$(mktemp -d)"
pid=""
cleanup() {
	if [ -n "$pid" ]; then
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/graphmem" ./cmd/graphmem
key="schemathesis-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
GRAPHMEM_API_KEYS="$key=user:fuzz,user:other" "$work/graphmem" serve \
	--addr 127.0.0.1:0 --data "$work/data" >"$work/serve.out" 2>"$work/serve.log" &
pid=$!
url=""
for _ in $(seq 150); do
	url="$(sed -n 's/^graphmem: listening on //p' "$work/serve.out")"
	[ -n "$url" ] && break
	kill -0 "$pid" 2>/dev/null || { cat "$work/serve.log" >&2; exit 1; }
	sleep 0.2
done
[ -n "$url" ] || { echo "schemathesis.sh: graphmem did not start" >&2; cat "$work/serve.log" >&2; exit 1; }

cd "$work"
status=0
PYTHONPATH="$repo/scripts/schemathesis" SCHEMATHESIS_HOOKS=hooks "$venv/bin/st" run "$url/openapi.json" \
	-H "Authorization: Bearer $key" \
	--phases examples,coverage,fuzzing,stateful --checks all \
	--max-examples "${SCHEMATHESIS_EXAMPLES:-40}" --seed "${SCHEMATHESIS_SEED:-1313}" \
	--workers 1 --request-timeout 30 --output-sanitize false --suppress-health-check too_slow \
	|| status=$?
if [ "$status" -ne 0 ]; then
	echo "schemathesis.sh: failures above; the server log follows" >&2
	grep -v '"level":"INFO"' "$work/serve.log" | tail -n 50 >&2 || true
fi
exit "$status"
