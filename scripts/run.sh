#!/usr/bin/env bash
# make run: migrate, seed the demo, print how to call it, then serve in the foreground.
set -euo pipefail
cd "$(dirname "$0")/.."
bin/mtk migrate
bin/mtk seed demo
echo
exec bin/mtk serve
