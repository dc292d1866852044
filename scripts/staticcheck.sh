#!/usr/bin/env bash
# Installs (only when missing) staticcheck, the linter `make test` runs after gofmt and go vet:
# `go install` of a pinned version into .data/tools/staticcheck/<version>/. Prints the binary's
# path; `make lint` runs it. The version must support the go line of go.mod (v0.8.x: go1.26).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
version=v0.8.2
dir=${MTK_DATA:-$root/.data}/tools/staticcheck/$version
bin=$dir/staticcheck

log() { printf 'staticcheck: %s\n' "$*" >&2; }

if [ ! -x "$bin" ]; then
	log "go install honnef.co/go/tools/cmd/staticcheck@$version"
	mkdir -p "$dir"
	GOBIN="$dir" go install "honnef.co/go/tools/cmd/staticcheck@$version"
fi
echo "$bin"
