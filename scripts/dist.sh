#!/usr/bin/env bash
# Release archives: graphmem for linux, darwin and windows on amd64 and
# arm64, static (CGO_ENABLED=0) and reproducible (-trimpath), each archive
# holding the binary, LICENSE and README.md, plus SHA256SUMS over them.
# The release is VERSION; the commit is stamped with -X main.commit.
#   scripts/dist.sh                      # every target, into dist/
#   DIST_TARGETS="linux/amd64" scripts/dist.sh
# DIST_DIR sets the output folder, DIST_JOBS how many builds run at once
# (default 2: the cross builds share the compiled standard library).
set -euo pipefail
cd "$(dirname "$0")/.."

version="$(tr -d '[:space:]' <VERSION)"
targets="${DIST_TARGETS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64}"
out="${DIST_DIR:-dist}"
jobs="${DIST_JOBS:-2}"

commit="unknown"
if git rev-parse --git-dir >/dev/null 2>&1; then
	commit="$(git rev-parse HEAD)"
	[ -z "$(git status --porcelain --untracked-files=no)" ] || commit="$commit+modified"
fi

rm -rf "$out"
mkdir -p "$out"
out="$(cd "$out" && pwd)"

# build one target: binary, licence and README in a folder, then the archive.
build() {
	local os="${1%/*}" arch="${1#*/}"
	local name="graphmem_${version}_${os}_${arch}" exe="graphmem"
	[ "$os" = windows ] && exe="graphmem.exe"
	local stage="$out/stage/$name"
	mkdir -p "$stage"
	GOOS="$os" GOARCH="$arch" CGO_ENABLED=0 go build -trimpath \
		-ldflags "-s -w -X main.commit=$commit" -o "$stage/$exe" ./cmd/graphmem
	cp LICENSE README.md "$stage/"
	if [ "$os" = windows ] && command -v zip >/dev/null; then
		(cd "$out/stage" && zip -qr "$out/$name.zip" "$name")
	elif [ "$os" = windows ]; then
		(cd "$out/stage" && python3 -m zipfile -c "$out/$name.zip" "$name")
	else
		tar -C "$out/stage" -czf "$out/$name.tar.gz" "$name"
	fi
	echo "dist: $name" >&2
}
export -f build
export out version commit

start=$SECONDS
# A failed build fails the script (xargs exits non-zero), never packs an
# empty folder.
printf '%s\n' $targets | xargs -P "$jobs" -I{} bash -c 'set -euo pipefail; build "$1"' _ {}
rm -rf "$out/stage"
(cd "$out" && sha256sum graphmem_* >SHA256SUMS)
echo "dist: $(printf '%s\n' $targets | wc -l) archives of graphmem $version ($commit) in $out, $((SECONDS - start)) s" >&2
