#!/usr/bin/env bash
# Installs (only when missing) chDB's libchdb.so, the current ClickHouse engine as a library, for
# the conformance tests (internal/chdb): the npm package @chdb/lib-linux-x64-gnu, unpacked under
# .data/chdb/<version>/. Prints the library's path; `make test` passes it in MTK_CHDB_LIB.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
version=26.5.3
dir=${MTK_DATA:-$root/.data}/chdb/$version
lib=$dir/libchdb.so

log() { printf 'chdb: %s\n' "$*" >&2; }

if [ ! -f "$lib" ]; then
	if ! command -v npm >/dev/null 2>&1; then
		log "apt-get install npm"
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends npm >/dev/null
	fi
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	log "npm pack @chdb/lib-linux-x64-gnu@$version (about 170 MB)"
	(cd "$tmp" && npm pack --silent "@chdb/lib-linux-x64-gnu@$version" >/dev/null 2>&1)
	tar -xzf "$tmp"/chdb-lib-linux-x64-gnu-"$version".tgz -C "$tmp" package/libchdb.so
	mkdir -p "$dir"
	mv "$tmp/package/libchdb.so" "$lib.part"
	mv "$lib.part" "$lib"
fi
echo "$lib"
