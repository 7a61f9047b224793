#!/usr/bin/env bash
# Backquotes in single quotes are markdown here, not command substitutions.
# shellcheck disable=SC2016
# Measures how big keel is as a wasm32 release module, and which crate the bytes come from.
#
# usage: bench/size/measure.sh [--write] [--no-ablation]
#   --write        also replace the generated part of bench/results/wasm-size.md
#   --no-ablation  skip the variant builds (serde_json without preserve_order, opt-level "s")
#
# Builds bench/size (a cdylib whose one export drives the whole engine) with keel's release
# profile for wasm32-unknown-unknown, runs wasm-opt -Os from npm binaryen (build.sh's), and reports
# raw and gzip -9 bytes (gzip -n: no file name or time in the header, as a web server sends it). Then
# code bytes per crate: before wasm-opt from DWARF line tables and v0 symbol names (inlining seen
# through), after it per function from the "name" section. Then the ablations. Builds go to
# target/bench-size/ (or $KEEL_SIZE_TARGET_DIR), so re-runs are incremental. The report (markdown)
# goes to stdout, progress to stderr. See bench/results/wasm-size.md for the method and caveats.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# build.sh defines everything when sourced (and cds to the root): TOOLS_DIR, BINARYEN_VERSION,
# binaryen_ok, WASM_TARGET. It runs nothing.
# shellcheck source=SCRIPTDIR/../../build.sh
source "$HERE/../../build.sh"
# shellcheck source=generated.sh
source "$HERE/generated.sh"

WRITE=0
ABLATION=1
for arg in "$@"; do
	case $arg in
	--write) WRITE=1 ;;
	--no-ablation) ABLATION=0 ;;
	*) die "unknown option '$arg' (--write, --no-ablation)" ;;
	esac
done

MANIFEST="$HERE/Cargo.toml"
TARGET="${KEEL_SIZE_TARGET_DIR:-$ROOT/target/bench-size}"
OUT="$TARGET/out"
RESULTS="$ROOT/bench/results/wasm-size.md"
ARTIFACT="$WASM_TARGET/release/keel_size_bench.wasm"
SIZES=(python3 "$HERE/wasm_sizes.py")
REL_OUT="${OUT#"$ROOT"/}" # for the paths shown in the report
SYSROOT="$(rustc --print sysroot)"
mkdir -p "$OUT"

step() { printf '==> %s\n' "$*" >&2; }

# build <target dir> [cargo args...]: a release wasm32 build of bench/size into <target dir>.
build() {
	local dir=$1
	shift
	step "cargo build --release --target $WASM_TARGET $* (CARGO_TARGET_DIR=${dir#"$ROOT"/})"
	CARGO_TARGET_DIR="$dir" cargo build --quiet --release --target "$WASM_TARGET" "$@" >&2
}

# sizes <file>: "raw gzip" bytes.
sizes() {
	printf '%s %s\n' "$(wc -c <"$1")" "$(gzip -9 -n -c "$1" | wc -c)"
}

WASM_OPT=
if binaryen_ok; then
	WASM_OPT="$TOOLS_DIR/node_modules/.bin/wasm-opt"
fi
# opt <in> <out> [flags...]: wasm-opt, or nothing without binaryen.
opt() {
	local in=$1 out=$2
	shift 2
	[[ -n $WASM_OPT ]] || return 0
	step "wasm-opt $* ${in##*/}"
	"$WASM_OPT" "$@" "$in" -o "$out"
}

# ---------------------------------------------------------------------------------------------------
# The module as shipped: keel's profile, nothing else. Then the same with v0 symbol names and DWARF
# line tables, for attribution: names say which crate defines a function, line tables which crate
# each byte's source line is in. Its code differs by a few bytes only (the report says how many).

build "$TARGET/shipped" --locked --manifest-path "$MANIFEST"
cp "$TARGET/shipped/$ARTIFACT" "$OUT/shipped.wasm"
RUSTFLAGS="${RUSTFLAGS:-} -C symbol-mangling-version=v0" build "$TARGET/v0" --locked \
	--manifest-path "$MANIFEST" --config 'profile.release.debug="line-tables-only"'
cp "$TARGET/v0/$ARTIFACT" "$OUT/v0.wasm"

"${SIZES[@]}" strip "$OUT/shipped.wasm" "$OUT/shipped.stripped.wasm"
opt "$OUT/shipped.wasm" "$OUT/shipped.Os.wasm" -Os
opt "$OUT/shipped.wasm" "$OUT/shipped.O.wasm" -O
# wasm-opt optimises less when DWARF is there (and does not update it): names only.
"${SIZES[@]}" strip "$OUT/v0.wasm" "$OUT/v0.names.wasm" --debug-only
opt "$OUT/v0.names.wasm" "$OUT/v0.Os.names.wasm" -Os --debuginfo

# variant <name> <dir>: builds bench/size from a copy of the tree in <dir> (made by the caller) into
# its own target dir, and leaves $OUT/<name>.wasm, .stripped.wasm and .Os.wasm.
variant() {
	local name=$1 dir=$2
	shift 2
	build "$TARGET/$name" --offline --manifest-path "$dir/bench/size/Cargo.toml" "$@"
	cp "$TARGET/$name/$ARTIFACT" "$OUT/$name.wasm"
	"${SIZES[@]}" strip "$OUT/$name.wasm" "$OUT/$name.stripped.wasm"
	opt "$OUT/$name.wasm" "$OUT/$name.Os.wasm" -Os
}

# copy_tree <dir>: the files the build reads, mtimes kept so that re-runs stay incremental.
copy_tree() {
	local dir=$1
	rm -rf "$dir"
	mkdir -p "$dir/bench/size"
	cp -pR "$ROOT/Cargo.toml" "$ROOT/Cargo.lock" "$ROOT/src" "$dir/"
	cp -pR "$HERE/Cargo.toml" "$HERE/Cargo.lock" "$HERE/src" "$dir/bench/size/"
}

# edit <file> <sed script>: edits a copied file, keeping its mtime, so re-runs stay incremental.
edit() {
	local stamp
	stamp="$(stat -c %Y "$1")"
	sed -i "$2" "$1"
	touch -d "@$stamp" "$1"
}

VARIANTS=()
if [[ $ABLATION == 1 ]]; then
	tree="$TARGET/tree-no-preserve-order"
	copy_tree "$tree"
	# The feature off, and its one API keel uses (Map::shift_remove) replaced by Map::remove.
	for manifest in "$tree/Cargo.toml" "$tree/bench/size/Cargo.toml"; do
		edit "$manifest" 's/^\(serde_json = .*\), "preserve_order"\]/\1]/'
		if grep -q preserve_order "$manifest" || ! grep -q '^serde_json = ' "$manifest"; then
			die "could not turn preserve_order off in $manifest"
		fi
	done
	while IFS= read -r file; do
		edit "$file" 's/\.shift_remove(/.remove(/g'
	done < <(grep -rl 'shift_remove(' "$tree/src")
	variant no-preserve-order "$tree"
	VARIANTS+=("no-preserve-order|serde_json without \`preserve_order\` (objects become BTreeMaps; \`shift_remove\` → \`remove\`)")
	variant opt-s "$ROOT" --config 'profile.release.opt-level="s"'
	VARIANTS+=("opt-s|\`opt-level = \"s\"\` instead of \`\"z\"\`")
fi

# ---------------------------------------------------------------------------------------------------
# The report.

row() { # row <label> <file>
	local raw gz
	read -r raw gz < <(sizes "$2")
	printf '| %s | %s | %s |\n' "$1" "$raw" "$gz"
}

dep_version() { # dep_version <crate> [lock file]: its locked version
	awk -v n="$1" '$0 == "name = \"" n "\"" {getline; gsub(/version = |"/, ""); print; exit}' "${2:-$HERE/Cargo.lock}"
}

# Crates bench/size locks at another version than the root does (none, unless someone updated one).
lock_drift() {
	local name
	while IFS= read -r name; do
		[[ $(dep_version "$name") == "$(dep_version "$name" "$ROOT/Cargo.lock")" ]] || printf ' %s' "$name"
	done < <(sed -n 's/^name = "\(.*\)"$/\1/p' "$HERE/Cargo.lock" | grep -vx 'keel-size-bench')
}

report() {
	local v
	printf '### Machine and tools\n\n'
	printf -- '- date: %s\n' "$(date -u '+%Y-%m-%d %H:%M UTC')"
	printf -- '- machine: `%s`\n' "$(uname -a)"
	printf -- '- rustc: `%s` (LLVM %s)\n' "$(rustc --version)" "$(rustc -vV | sed -n 's/^LLVM version: //p')"
	printf -- '- wasm-opt: %s\n' "${WASM_OPT:+$("$WASM_OPT" --version) (npm binaryen@$BINARYEN_VERSION)}"
	[[ -n $WASM_OPT ]] || printf -- '  **not found** (run ./build.sh setup): figures after wasm-opt are missing\n'
	local drift
	drift="$(lock_drift)"
	printf -- '- crates (bench/size/Cargo.lock, %s):' \
		"${drift:+**versions differ from the root lock for$drift**}${drift:-same versions as the root lock}"
	for v in serde serde_json indexmap hashbrown regex-lite strsim thiserror futures-util zmij itoa memchr; do
		printf ' %s %s,' "$v" "$(dep_version "$v")"
	done | sed 's/,$//'
	printf '\n- profile: `lto = true`, `codegen-units = 1`, `opt-level = "s"`, `panic = "abort"`, target %s\n\n' "$WASM_TARGET"

	printf '### Totals\n\n'
	printf '| module | raw bytes | gzip -9 -n bytes |\n|---|---:|---:|\n'
	row 'cargo output (with its "name", "producers" and "target_features" sections)' "$OUT/shipped.wasm"
	row 'cargo output without custom sections' "$OUT/shipped.stripped.wasm"
	if [[ -n $WASM_OPT ]]; then
		row '**after `wasm-opt -Os`**' "$OUT/shipped.Os.wasm"
		row 'after `wasm-opt -O` (what wasm-pack runs by default)' "$OUT/shipped.O.wasm"
	fi
	local code data
	code="$("${SIZES[@]}" sections "$OUT/v0.wasm" | awk '$1 == "code" {print $2}')"
	data="$("${SIZES[@]}" sections "$OUT/v0.wasm" | awk '$1 == "data" {print $2}')"
	printf '\nThe build used for attribution (v0 symbol names, DWARF line tables) has %s bytes of code and %s\n' "$code" "$data"
	printf 'of data, against %s and %s in the shipped build.\n\n' \
		"$("${SIZES[@]}" sections "$OUT/shipped.wasm" | awk '$1 == "code" {print $2}')" \
		"$("${SIZES[@]}" sections "$OUT/shipped.wasm" | awk '$1 == "data" {print $2}')"

	printf '### Bytes per crate, before wasm-opt (inlining seen through)\n\n'
	printf 'Each byte of code counts for the crate of the source line it was compiled from (DWARF line\n'
	printf 'tables), wherever it was inlined; standard-library lines (Vec, Option, iterators, drop glue)\n'
	printf 'count for the crate whose function they are in, as a cost of using them.\n\n'
	"${SIZES[@]}" attribute "$REL_OUT/v0.wasm" --root "$ROOT" --sysroot "$SYSROOT"
	if [[ -n $WASM_OPT ]]; then
		printf '\n### Bytes per function and crate, after `wasm-opt -Os`\n\n'
		printf 'wasm-opt keeps function names (`--debuginfo`) but not line tables, so this view is per function:\n'
		printf 'a function counts whole for the crate that defines it, code inlined into it included.\n\n'
		"${SIZES[@]}" crates "$REL_OUT/v0.Os.names.wasm" --sysroot "$SYSROOT" --top 25
	fi

	if ((${#VARIANTS[@]})); then
		local base_raw base_gz name label raw gz kind
		printf '\n### Ablations\n\nThe same scenario, one change at a time. Δ is against the shipped build above.\n\n'
		printf '| variant | stage | raw bytes | gzip -9 bytes | Δ raw | Δ gzip |\n|---|---|---:|---:|---:|---:|\n'
		for kind in stripped Os; do
			[[ $kind == Os && -z $WASM_OPT ]] && continue
			read -r base_raw base_gz < <(sizes "$OUT/shipped.$kind.wasm")
			for v in "${VARIANTS[@]}"; do
				name=${v%%|*}
				label=${v#*|}
				read -r raw gz < <(sizes "$OUT/$name.$kind.wasm")
				printf '| %s | %s | %s | %s | %+d | %+d |\n' "$label" \
					"$([[ $kind == Os ]] && echo 'after `wasm-opt -Os`' || echo 'before wasm-opt, no custom sections')" \
					"$raw" "$gz" "$((raw - base_raw))" "$((gz - base_gz))"
			done
		done
	fi
}

REPORT="$(report)"
printf '%s\n' "$REPORT"

if [[ $WRITE == 1 ]]; then
	write_generated measure.sh "$REPORT" "$RESULTS" "$OUT"
fi
