#!/usr/bin/env bash
# Installs (only when missing) the npm package @apidevtools/swagger-parser, a second validator of
# the OpenAPI document besides kin-openapi (api/openapi_swaggerparser_test.go), with its
# dependencies under .data/swagger-parser/<version>/. Prints that directory; `make test` passes it
# in MTK_SWAGGER_PARSER.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
version=13.1.0
dir=${MTK_DATA:-$root/.data}/swagger-parser/$version

log() { printf 'swagger-parser: %s\n' "$*" >&2; }

if [ ! -f "$dir/node_modules/@apidevtools/swagger-parser/package.json" ]; then
	if ! command -v npm >/dev/null 2>&1; then
		log "apt-get install npm"
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends npm >/dev/null
	fi
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	log "npm install @apidevtools/swagger-parser@$version"
	(cd "$tmp" && npm install --silent --no-save --no-audit --no-fund --no-package-lock \
		--prefix "$tmp" "@apidevtools/swagger-parser@$version" >/dev/null)
	mkdir -p "$(dirname "$dir")"
	rm -rf "$dir.part"
	mv "$tmp" "$dir.part"
	trap - EXIT
	rm -rf "$dir"
	mv "$dir.part" "$dir"
fi
echo "$dir"
