#!/usr/bin/env bash
# Backquotes in single quotes are markdown here, not command substitutions.
# shellcheck disable=SC2016
# Measures the wasm module keel-agent ships (pkg/keel_bg.wasm: keel's cdylib, browser bindings
# included, after wasm-bindgen and wasm-opt), and what each build lever does to it.
#
# usage: bench/size/shipped.sh [--write] [--levels "s z"] [--shipped-flags]
#   --write         also replace the generated part of bench/results/wasm-size.md between
#                   <!-- shipped.sh: begin --> and <!-- shipped.sh: end -->
#   --levels LIST   the cargo opt-levels to build (default "s z"); each is one release build
#   --shipped-flags only the wasm-opt flags wasm-pack is configured with (one wasm-opt run per
#                   level instead of seven: for measuring a code change, not the flags)
#
# For each opt-level: `cargo build --lib --release --target wasm32-unknown-unknown` with the
# profile's opt-level overridden (CARGO_PROFILE_RELEASE_OPT_LEVEL), the profile's own level into
# target/ (wasm-pack's build, reused), each other into target/bench-size/opt-<level> (or under
# $KEEL_SIZE_TARGET_DIR), then `wasm-bindgen --target web` as wasm-pack runs
# it, then each wasm-opt flag set (npm binaryen, build.sh's). Reports raw and gzip -9 -n bytes of
# each, pkg/keel_bg.wasm as built by ./build.sh beside them, then where the bytes of the module
# built with the profile's own opt-level and wasm-pack's configured wasm-opt flags go: per
# section, per crate and per keel module, from a copy that keeps the function names
# (wasm-bindgen --keep-debug, wasm-opt --debuginfo). The report (markdown) goes to stdout,
# progress to stderr.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# build.sh defines everything when sourced (and cds to the root): TOOLS_DIR, BINARYEN_VERSION,
# binaryen_ok, WASM_TARGET, PKG_DIR, OUT_NAME. It runs nothing.
# shellcheck source=SCRIPTDIR/../../build.sh
source "$HERE/../../build.sh"
# shellcheck source=generated.sh
source "$HERE/generated.sh"

WRITE=0
LEVELS=(s z)
ONLY_SHIPPED=0
while (($#)); do
	case $1 in
	--write) WRITE=1 ;;
	--shipped-flags) ONLY_SHIPPED=1 ;;
	--levels)
		[[ $# -ge 2 ]] || die "--levels needs a list, e.g. --levels \"s z\""
		read -r -a LEVELS <<<"$2"
		shift
		;;
	*) die "unknown option '$1' (--write, --levels LIST, --shipped-flags)" ;;
	esac
	shift
done
for level in "${LEVELS[@]}"; do
	[[ $level =~ ^(0|1|2|3|s|z)$ ]] || die "opt-level '$level' is not one of 0 1 2 3 s z"
done

TARGET="${KEEL_SIZE_TARGET_DIR:-$ROOT/target/bench-size}"
OUT="$TARGET/shipped-out"
RESULTS="$ROOT/bench/results/wasm-size.md"
SIZES=(python3 "$HERE/wasm_sizes.py")
SYSROOT="$(rustc --print sysroot)"
mkdir -p "$OUT"

step() { printf '==> %s\n' "$*" >&2; }
sizes() { printf '%s %s\n' "$(wc -c <"$1")" "$(gzip -9 -n -c "$1" | wc -c)"; }

binaryen_ok || die "no wasm-opt from npm binaryen@$BINARYEN_VERSION in $TOOLS_DIR: run ./build.sh setup"
WASM_OPT="$TOOLS_DIR/node_modules/.bin/wasm-opt"
command -v wasm-bindgen >/dev/null || die "no wasm-bindgen on PATH: run ./build.sh setup"

# The profile's own opt-level and the wasm-opt flags wasm-pack is configured with (Cargo.toml's
# [package.metadata.wasm-pack.profile.release]; wasm-pack's default is -O).
PROFILE_LEVEL="$(awk '/^\[profile.release\]/ {p = 1; next} /^\[/ {p = 0} p && /^opt-level/ {gsub(/[" ]/, ""); split($0, a, "="); print a[2]}' Cargo.toml)"
SHIPPED_FLAGS="$(awk '/^\[package.metadata.wasm-pack.profile.release\]/ {p = 1; next} /^\[/ {p = 0}
	p && /^wasm-opt/ {sub(/^[^[]*\[/, ""); sub(/\].*/, ""); gsub(/[",]/, " "); gsub(/  +/, " "); sub(/^ /, ""); sub(/ $/, ""); print}' Cargo.toml)"
SHIPPED_FLAGS="${SHIPPED_FLAGS:--O}"

# The wasm-opt flag sets tried on each build: label|flags. wasm-opt reads the module's
# target_features section for which features it may use, so it is stripped last (--strip-target-features).
STRIP="--strip-debug --strip-producers"
FLAG_SETS=(
	"none|"
	"-O (wasm-pack's default)|-O"
	"-Os|-Os"
	"-Oz|-Oz"
	"-Oz --converge|-Oz --converge"
	"-Oz, $STRIP|-Oz $STRIP"
	"-Oz --converge, $STRIP|-Oz --converge $STRIP"
)
listed=0
for entry in "${FLAG_SETS[@]}"; do [[ ${entry#*|} == "$SHIPPED_FLAGS" ]] && listed=1; done
((listed)) || FLAG_SETS+=("$SHIPPED_FLAGS (Cargo.toml's)|$SHIPPED_FLAGS")
if ((ONLY_SHIPPED)); then
	for entry in "${FLAG_SETS[@]}"; do [[ ${entry#*|} == "$SHIPPED_FLAGS" ]] && FLAG_SETS=("$entry") && break; done
fi

# target_dir <level>: the profile's own level builds where wasm-pack does (so a ./build.sh build
# before is reused); other levels in their own dirs, so that re-runs are incremental.
target_dir() {
	if [[ $1 == "$PROFILE_LEVEL" ]]; then
		printf '%s\n' "${CARGO_TARGET_DIR:-$ROOT/target}"
	else
		printf '%s\n' "$TARGET/opt-$1"
	fi
}

# bindgen <level> <out dir> [wasm-bindgen flags...]: the cargo build at <level>, through wasm-bindgen.
bindgen() {
	local level=$1 dir=$2
	shift 2
	mkdir -p "$dir"
	wasm-bindgen "$(target_dir "$level")/$WASM_TARGET/release/$OUT_NAME.wasm" --out-dir "$dir" \
		--out-name "$OUT_NAME" --target web "$@"
}

declare -A RESULT # "<level>|<flags>" -> "raw gz"
for level in "${LEVELS[@]}"; do
	dir="$(target_dir "$level")"
	step "cargo build --lib --release --target $WASM_TARGET, opt-level $level (CARGO_TARGET_DIR=${dir#"$ROOT"/})"
	CARGO_PROFILE_RELEASE_OPT_LEVEL="$level" CARGO_TARGET_DIR="$dir" \
		cargo build --quiet --locked --lib --release --target "$WASM_TARGET" >&2
	step "wasm-bindgen (opt-level $level)"
	bindgen "$level" "$OUT/$level"
	for entry in "${FLAG_SETS[@]}"; do
		flags=${entry#*|}
		out="$OUT/$level/opt-${flags// /_}.wasm"
		if [[ -z $flags ]]; then
			cp "$OUT/$level/${OUT_NAME}_bg.wasm" "$out"
		else
			step "wasm-opt $flags (opt-level $level)"
			# shellcheck disable=SC2086 # flags are words
			"$WASM_OPT" $flags "$OUT/$level/${OUT_NAME}_bg.wasm" -o "$out"
		fi
		RESULT["$level|$flags"]="$(sizes "$out")"
	done
done

# The attribution copy: the profile's opt-level (or the first built) and the configured flags, with
# names kept. --debuginfo keeps the name section through wasm-opt; the stripping flags are left out
# (they would drop it), so its code is the shipped module's.
NAMED_LEVEL="$PROFILE_LEVEL"
[[ " ${LEVELS[*]} " == *" $NAMED_LEVEL "* ]] || NAMED_LEVEL=${LEVELS[0]}
step "wasm-bindgen --keep-debug, wasm-opt $SHIPPED_FLAGS --debuginfo (opt-level $NAMED_LEVEL, for names)"
bindgen "$NAMED_LEVEL" "$OUT/named" --keep-debug
NAMED_FLAGS=()
for flag in $SHIPPED_FLAGS; do [[ $flag == --strip-* ]] || NAMED_FLAGS+=("$flag"); done
"$WASM_OPT" "${NAMED_FLAGS[@]}" --debuginfo "$OUT/named/${OUT_NAME}_bg.wasm" -o "$OUT/named.wasm"
"${SIZES[@]}" strip "$OUT/named.wasm" "$OUT/named.stripped.wasm"

report() {
	local level entry flags label raw gz base_raw base_gz
	printf '### Machine, tools and pkg/\n\n'
	printf -- '- date: %s\n' "$(date -u '+%Y-%m-%d %H:%M UTC')"
	printf -- '- rustc: `%s`; wasm-bindgen: `%s`; wasm-opt: `%s` (npm binaryen@%s)\n' \
		"$(rustc --version)" "$(wasm-bindgen --version)" "$("$WASM_OPT" --version)" "$BINARYEN_VERSION"
	printf -- '- Cargo.toml: `opt-level = "%s"`; wasm-pack runs `wasm-opt %s`\n' "$PROFILE_LEVEL" "$SHIPPED_FLAGS"
	if [[ -f $PKG_DIR/${OUT_NAME}_bg.wasm ]]; then
		read -r raw gz < <(sizes "$PKG_DIR/${OUT_NAME}_bg.wasm")
		printf -- '- `%s/%s_bg.wasm` as `./build.sh build` left it: **%s bytes raw, %s bytes (%.1f KiB) gzip -9**\n' \
			"$PKG_DIR" "$OUT_NAME" "$raw" "$gz" "$(awk -v g="$gz" 'BEGIN {print g / 1024}')"
	fi
	printf '\n### Build levers: opt-level × wasm-opt flags\n\n'
	printf 'Each row is the same source: `cargo build --lib --release` with `opt-level` overridden, then\n'
	printf '`wasm-bindgen --target web`, then wasm-opt with the flags shown. Δ is against opt-level\n'
	printf '"%s" with `wasm-opt %s`, the build as configured.\n\n' "$PROFILE_LEVEL" "$SHIPPED_FLAGS"
	printf '| opt-level | wasm-opt flags | raw bytes | gzip -9 bytes | gzip KiB | Δ raw | Δ gzip |\n'
	printf '|---|---|---:|---:|---:|---:|---:|\n'
	read -r base_raw base_gz <<<"${RESULT["$PROFILE_LEVEL|$SHIPPED_FLAGS"]:-0 0}"
	for level in "${LEVELS[@]}"; do
		for entry in "${FLAG_SETS[@]}"; do
			label=${entry%%|*}
			flags=${entry#*|}
			read -r raw gz <<<"${RESULT["$level|$flags"]}"
			printf '| %s | %s | %s | %s | %.1f | %s | %s |\n' "$level" "${label:-none}" "$raw" "$gz" \
				"$(awk -v g="$gz" 'BEGIN {print g / 1024}')" \
				"$( ((base_raw)) && printf '%+d' "$((raw - base_raw))")" \
				"$( ((base_gz)) && printf '%+d' "$((gz - base_gz))")"
		done
	done
	printf '\n### Where the bytes of the shipped module go\n\n'
	printf 'opt-level "%s", `wasm-opt %s`, names kept (`%s`).\n\n' "$NAMED_LEVEL" "$SHIPPED_FLAGS" "${OUT#"$ROOT"/}/named.wasm"
	printf 'Sections (the name section is only in this copy):\n\n| section | bytes |\n|---|---:|\n'
	"${SIZES[@]}" sections "$OUT/named.wasm" | awk '{printf "| %s | %s |\n", $1, $2}'
	printf '\nPer crate: a function counts whole for the crate that defines it. These are legacy symbol\n'
	printf 'names, so generic code counts for the crate that defines the generic (`Vec::push` for alloc,\n'
	printf 'a serde_json deserializer for serde_json), not for the crate that instantiated it.\n\n'
	"${SIZES[@]}" crates "$OUT/named.wasm" --sysroot "$SYSROOT" --top 30
	printf '\nPer kind of code, by function name, with what gzip would lose without it (each kind'"'"'s bodies\n'
	printf 'replaced by `unreachable`, the rest unchanged: an upper bound on what removing that code saves,\n'
	printf 'since some of it would be needed in another form):\n\n'
	"${SIZES[@]}" kinds "$OUT/named.wasm"
	printf '\nPer keel module (depth 1, then depth 2), same caveat: keel'"'"'s own functions only.\n\n'
	"${SIZES[@]}" modules "$OUT/named.wasm" --depth 1
	printf '\n'
	"${SIZES[@]}" modules "$OUT/named.wasm" --depth 2
}

REPORT="$(report)"
printf '%s\n' "$REPORT"

if [[ $WRITE == 1 ]]; then
	write_generated shipped.sh "$REPORT" "$RESULTS" "$OUT"
fi
