#!/usr/bin/env bash
# make replicas: mtk scaled out on one machine, over the stores of `make run`: three `--role api`
# replicas, two `--role worker`s sharing the outboxes' partitions, and HAProxy (Debian's, which
# make services installs) in front of the api replicas on the address `make run` serves. The
# HAProxy configuration, the logs and the pids live under .data/replicas/.
#
#   scripts/replicas.sh start   # the stores must run (make services); builds nothing (make build)
#   scripts/replicas.sh stop
#   scripts/replicas.sh status
#   scripts/replicas.sh haproxy-config PORT API_PORT...   # prints HAProxy's configuration
#
# Environment: MTK_LB_PORT (8080), MTK_REDIS_PORT (16379), MTK_DATA (.data).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
data=${MTK_DATA:-$root/.data}
dir=$data/replicas
logs=$dir
# shellcheck source=scripts/processes.sh
. "$root/scripts/processes.sh"
lb_port=${MTK_LB_PORT:-8080}
api_ports=(18081 18082 18083)
worker_ports=(18091 18092)
partitions=4

log() { printf 'replicas: %s\n' "$*" >&2; }

# haproxy_config prints the load balancer's configuration for listening on port $1 of 127.0.0.1:
# round robin over the api replicas on the ports that follow, a replica taken out while its
# /readyz is not 200 (its stores unreachable) and put back once it is; a request that reached no
# live replica (connection refused, or closed before any answer: the replica died) sent again to
# another one, and HAProxy's own 503 in the contract's envelope with Retry-After. cmd/mtk's
# TestReplicasBehindHAProxy and TestHAProxyRetriesPastADeadReplica run HAProxy with it;
# docker/replicas/haproxy.cfg holds the same for compose.
haproxy_config() {
	local port=$1 i=0 api
	shift
	cat <<CFG
global
    log stdout format raw local0
    maxconn 4096

defaults
    mode http
    log global
    option httplog
    timeout connect 5s
    timeout client 60s
    timeout server 60s
    # A request that reached no live replica goes to another one at once (redispatch on every
    # retry). Writes may be sent twice this way: mtk takes them exactly once (event_id,
    # Idempotency-Key, an order's last writer wins).
    retries 3
    option redispatch 1
    retry-on conn-failure empty-response
    # HAProxy's own 503 (no replica left) as mtk words one: the envelope, and when to come back.
    http-error status 503 content-type application/json hdr Retry-After 2 hdr X-Request-Id %[unique-id] lf-string '{"error":{"type":"api_error","code":"service_unavailable","message":"No server is available to answer; retry shortly.","details":[],"request_id":"%[unique-id]"}}'

frontend mtk
    bind 127.0.0.1:$port
    # The client is the peer HAProxy sees: a client-sent X-Forwarded-For is replaced, never
    # appended to, because mtk trusts the header from the balancer (MTK_TRUSTED_PROXIES).
    http-request set-header X-Forwarded-For %[src]
    unique-id-format %[uuid()]
    default_backend api

backend api
    balance roundrobin
    option httpchk GET /readyz
    http-check expect status 200
    default-server inter 1s fall 2 rise 2
CFG
	for api in "$@"; do
		i=$((i + 1))
		printf '    server api%d 127.0.0.1:%d check\n' "$i" "$api"
	done
}

# start_mtk starts one `mtk serve --role $1` named $2 on port $3, logging and keeping its pid
# under $dir.
start_mtk() {
	local role=$1 name=$2 port=$3
	if port_open "$port"; then
		log "$name: port $port is taken already"
		return 1
	fi
	MTK_LISTEN=127.0.0.1:$port MTK_BASE_URL=http://127.0.0.1:$lb_port \
		MTK_REDIS_URL=redis://127.0.0.1:${MTK_REDIS_PORT:-16379} MTK_DRAIN_PARTITIONS=$partitions \
		MTK_TRUSTED_PROXIES=127.0.0.1 \
		nohup bin/mtk serve --role "$role" >"$dir/$name.log" 2>&1 </dev/null &
	echo $! >"$dir/$name.pid"
	log "$name: mtk serve --role $role on 127.0.0.1:$port (pid $!)"
}

start() {
	[ -x bin/mtk ] && [ -x bin/adsim ] || { log "bin/mtk or bin/adsim missing: make build"; exit 1; }
	if port_open "$lb_port"; then
		log "port $lb_port is taken (make run, or replicas already started?)"
		exit 1
	fi
	command -v haproxy >/dev/null 2>&1 || { log "haproxy is missing: make services installs it"; exit 1; }
	mkdir -p "$dir"
	# The simulator and the demo as make run has them, migrated and seeded once here rather than
	# by five processes at once.
	MTK_BASE_URL=http://127.0.0.1:$lb_port scripts/run.sh --prepare
	local i
	for i in "${!api_ports[@]}"; do
		start_mtk api "api$((i + 1))" "${api_ports[$i]}"
	done
	for i in "${!worker_ports[@]}"; do
		start_mtk worker "worker$((i + 1))" "${worker_ports[$i]}"
	done
	for i in "${!api_ports[@]}"; do
		wait_port "${api_ports[$i]}" "api$((i + 1))"
	done
	for i in "${!worker_ports[@]}"; do
		wait_port "${worker_ports[$i]}" "worker$((i + 1))"
	done
	haproxy_config "$lb_port" "${api_ports[@]}" >"$dir/haproxy.cfg"
	haproxy -c -q -f "$dir/haproxy.cfg"
	nohup haproxy -f "$dir/haproxy.cfg" >"$dir/haproxy.log" 2>&1 </dev/null &
	echo $! >"$dir/haproxy.pid"
	wait_port "$lb_port" haproxy
	log "ready: http://127.0.0.1:$lb_port (haproxy over api ${api_ports[*]}; workers ${worker_ports[*]}); logs in $dir"
}

stop() {
	local pidfile
	stop_pidfile "$dir/haproxy.pid" haproxy
	for pidfile in "$dir"/*.pid; do
		[ -e "$pidfile" ] && stop_pidfile "$pidfile" "$(basename "$pidfile" .pid)"
	done
}

status() {
	local i
	port_open "$lb_port" && log "haproxy up on $lb_port" || log "haproxy down"
	for i in "${!api_ports[@]}"; do
		port_open "${api_ports[$i]}" && log "api$((i + 1)) up on ${api_ports[$i]}" || log "api$((i + 1)) down"
	done
	for i in "${!worker_ports[@]}"; do
		port_open "${worker_ports[$i]}" && log "worker$((i + 1)) up on ${worker_ports[$i]}" || log "worker$((i + 1)) down"
	done
}

case ${1:-start} in
start) start ;;
stop) stop ;;
status) status ;;
haproxy-config)
	shift
	haproxy_config "$@"
	;;
*)
	echo "usage: $0 start|stop|status|haproxy-config PORT API_PORT..." >&2
	exit 2
	;;
esac
