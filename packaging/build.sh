#!/usr/bin/env bash
# The server packages, from the release archives of scripts/dist.sh:
# graphmem-server wheels (one per platform, console script `graphmem`) and
# the graphmem-server npm package with one graphmem-server-<os>-<cpu>
# package per platform.
#   packaging/build.sh [DIST_DIR [OUT_DIR]]     # default dist, dist/packages
set -euo pipefail
cd "$(dirname "$0")/.."
dist="${1:-dist}"
out="${2:-$dist/packages}"
mkdir -p "$out"
python3 packaging/pypi/build_wheels.py "$dist" "$out"
node packaging/npm/build.mjs "$dist" "$out"
