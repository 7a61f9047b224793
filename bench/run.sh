#!/usr/bin/env bash
# keel's benchmarks, by name: `./build.sh bench [name] [args]`. They measure and record into
# bench/results/; none of them asserts a speed.
#
#   browser [--no-build] [--runs N] [--warmup N] [--loads N] [--out DIR]   (the default)
#             builds pkg/, then in headless Chromium: engine overhead per step, worker cold start,
#             package size -> bench/results/browser.{md,json}
#   size [--write] [--no-ablation]
#             bench/size/measure.sh: the engine's wasm size per crate (same as ./build.sh size)
#   recovery  a real-model recovery benchmark: not built yet (issue 5)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

die() {
	printf 'error: %s\n' "$*" >&2
	exit 1
}

bench_browser() {
	local build=1 args=()
	for arg in "$@"; do
		if [[ $arg == --no-build ]]; then build=0; else args+=("$arg"); fi
	done
	# The figures are recorded as this tree's: measure a package built from it.
	if [[ $build == 1 ]]; then
		bash ./build.sh build
	elif ! compgen -G "pkg/*.wasm" >/dev/null; then
		die "no pkg/*.wasm: drop --no-build or run ./build.sh build"
	fi
	[[ -d bench/node_modules/playwright-core ]] || die "bench/node_modules is missing: run ./build.sh setup"
	printf '==> browser benchmark (headless Chromium)\n'
	node bench/browser/run.mjs "${args[@]}"
}

# What the results record as the command that made them.
export KEEL_BENCH_COMMAND="./build.sh bench $*"
name=${1:-browser}
(($#)) && shift
case $name in
browser) bench_browser "$@" ;;
size) bash bench/size/measure.sh "$@" ;;
recovery)
	# Exits non-zero: a caller asking for this benchmark must not take silence for a result.
	printf 'bench recovery: not built yet (issue 5: a real-model recovery benchmark)\n' >&2
	exit 2
	;;
-h | --help | help) sed -n '2,/^set /{/^#/s/^# \{0,1\}//p}' "$0" ;;
*) die "unknown benchmark '$name' (browser | size | recovery)" ;;
esac
