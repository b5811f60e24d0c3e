#!/usr/bin/env bash
# The release: builds the archives (scripts/dist.sh), the graphmem-server
# wheels and npm packages (packaging/build.sh) and the graphmem clients
# (the Python wheel, the npm package), checks every file it would upload
# (scripts/release_check.py: names, versions against VERSION, metadata,
# SHA256SUMS), then publishes them:
#   scripts/release.sh --check        # build and check, upload nothing (no tokens needed)
#   scripts/release.sh                # build, check, publish
#   scripts/release.sh --no-build ... # use what DIST_DIR already holds
# Publishing needs GH_TOKEN (the archives and SHA256SUMS as the GitHub
# release v<VERSION>, with gh), GRAPHMEM_PYPI_TOKEN (the wheels, with twine)
# and GRAPHMEM_NPM_TOKEN (the npm packages, with npm publish), each tool on
# its default registry. DIST_TARGETS and DIST_DIR are dist.sh's
# (DIST_TARGETS=linux/amd64 builds one platform, quick for a check).
set -euo pipefail
cd "$(dirname "$0")/.."

check="" build=1
for arg in "$@"; do
	case "$arg" in
	--check) check=1 ;;
	--no-build) build="" ;;
	*) echo "release.sh: unknown argument $arg (--check, --no-build)" >&2; exit 2 ;;
	esac
done
version="$(tr -d '[:space:]' <VERSION)"
dist="${DIST_DIR:-dist}"

if [ -z "$check" ]; then
	missing=""
	for v in GH_TOKEN GRAPHMEM_PYPI_TOKEN GRAPHMEM_NPM_TOKEN; do
		[ -n "${!v:-}" ] || missing="$missing $v"
	done
	if [ -n "$missing" ]; then
		echo "release.sh: set$missing to publish, or run with --check to build and check only" >&2
		exit 2
	fi
fi

if [ -n "$build" ]; then
	DIST_DIR="$dist" scripts/dist.sh
	packaging/build.sh "$dist" "$dist/packages" >/dev/null
	mkdir -p "$dist/clients"
	python3 -m pip wheel -q --no-deps -w "$dist/clients" ./clients/python
	clients="$(cd "$dist/clients" && pwd)"
	# npm pack installs the adapters' frameworks first (prepack), so the
	# package carries graphmem/ai and graphmem/langchain.
	(cd clients/typescript && npm ci --no-audit --no-fund >/dev/null && npm pack --pack-destination "$clients" >/dev/null)
fi

python3 scripts/release_check.py "$dist"
[ -z "$check" ] || exit 0

# The archives: a GitHub release of the tag v<VERSION>.
gh release create "v$version" "$dist"/graphmem_* "$dist/SHA256SUMS" --title "graphmem $version" \
	--notes "graphmem $version: archives for each platform, checksums in SHA256SUMS."

# The wheels, on twine's default repository.
TWINE_USERNAME=__token__ TWINE_PASSWORD="$GRAPHMEM_PYPI_TOKEN" \
	python3 -m twine upload --non-interactive "$dist"/packages/*.whl "$dist"/clients/*.whl

# The npm packages on npm's default registry, the platform packages before
# graphmem-server, which names them. The token goes in a throwaway user
# config for the registry npm itself reports.
npmrc="$(mktemp)"
trap 'rm -f "$npmrc"' EXIT
registry="$(npm config get registry)"
registry="${registry#*:}"
printf '%s:_authToken=${GRAPHMEM_NPM_TOKEN}\n' "${registry%/}/" >"$npmrc"
publish() { NPM_CONFIG_USERCONFIG="$npmrc" npm publish --access public "$1"; }
for t in "$dist"/packages/graphmem-server-*-*.tgz; do publish "$t"; done
for t in "$dist"/packages/graphmem-server-"$version".tgz "$dist"/clients/graphmem-"$version".tgz; do publish "$t"; done
echo "release.sh: graphmem $version published" >&2
