#!/usr/bin/env bash
# make run: start the ad network simulator in the background, migrate, seed the demo (which
# backfills 90 days from the simulator), print how to call it, then serve in the foreground
# (the server also runs the sync scheduler). With --prepare it stops before serving (make replicas
# serves itself).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .data
ADSIM_LISTEN="${MTK_ADSIM_URL:-http://127.0.0.1:18900}"
ADSIM_LISTEN="${ADSIM_LISTEN#http://}"
# adsim_up needs no curl: a fresh machine may not have it.
adsim_up() { (exec 3<>"/dev/tcp/${ADSIM_LISTEN%:*}/${ADSIM_LISTEN##*:}") 2>/dev/null; }
if ! adsim_up; then
    # Seed 3 has an alpha account in BRL and America/Sao_Paulo, like the demo project.
    nohup bin/adsim -listen "$ADSIM_LISTEN" -seed 3 -days 90 >.data/adsim.log 2>&1 &
    echo "adsim started (pid $!, log .data/adsim.log)"
    for _ in $(seq 50); do
        adsim_up && break
        sleep 0.1
    done
fi
bin/mtk migrate
bin/mtk seed demo
[ "${1:-}" = --prepare ] && exit 0
echo
echo "Demo shop (the tag installed; its events show in the dashboard's Tags view): http://shop.localhost:$(listen="${MTK_LISTEN:-127.0.0.1:8080}"; echo "${listen##*:}")/demo-shop/"
MTK_DEMO_SHOP="${MTK_DEMO_SHOP:-on}" exec bin/mtk serve
