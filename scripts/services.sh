#!/usr/bin/env bash
# Installs (only when missing) and starts, or stops, the local ClickHouse, PostgreSQL and Redis
# that mtk uses in development, tests and CI (and installs HAProxy, which make replicas runs). Data lives under .data/ in the repository; ports are not the
# defaults so that a system-wide server does not collide.
#
#   scripts/services.sh start   # idempotent: safe while they run
#   scripts/services.sh stop
#   scripts/services.sh status
#   scripts/services.sh chromium   # installs Debian's chromium when missing (the dashboard's browser test)
#
# Environment: MTK_CH_PORT (19000), MTK_CH_HTTP_PORT (18123), MTK_PG_PORT (15432),
# MTK_REDIS_PORT (16379), MTK_DATA (.data).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/clickhouse-xml.sh
. "$root/scripts/clickhouse-xml.sh"
data=${MTK_DATA:-$root/.data}
logs=$data
# shellcheck source=scripts/processes.sh
. "$root/scripts/processes.sh"
ch_port=${MTK_CH_PORT:-19000}
ch_http_port=${MTK_CH_HTTP_PORT:-18123}
pg_port=${MTK_PG_PORT:-15432}
redis_port=${MTK_REDIS_PORT:-16379}
pg_version=15
pg_bin=/usr/lib/postgresql/$pg_version/bin

log() { printf 'services: %s\n' "$*" >&2; }

as_postgres() {
	if [ "$(id -u)" = 0 ]; then
		(cd / && runuser -u postgres -- "$@")
	else
		"$@"
	fi
}

apt_updated=
apt_install() {
	if [ "$(id -u)" != 0 ]; then
		log "missing packages ($*): run as root, or install them with apt-get"
		exit 1
	fi
	if [ -z "$apt_updated" ]; then
		log "apt-get update"
		apt-get update -qq
		apt_updated=1
	fi
	log "apt-get install $*"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

install_missing() {
	local want=()
	command -v clickhouse-server >/dev/null 2>&1 || want+=(clickhouse-server clickhouse-client)
	[ -x "$pg_bin/postgres" ] || want+=(postgresql-$pg_version postgresql-client-$pg_version)
	command -v redis-server >/dev/null 2>&1 || want+=(redis-server)
	command -v runuser >/dev/null 2>&1 || want+=(util-linux)
	# Not a store: the load balancer of make replicas and of cmd/mtk's TestReplicasBehindHAProxy.
	command -v haproxy >/dev/null 2>&1 || want+=(haproxy)
	if [ ${#want[@]} -gt 0 ]; then
		apt_install "${want[@]}"
	fi
}

# --- ClickHouse ---------------------------------------------------------------------------------

ch_config() {
	ch_write_config "$data/clickhouse" 4000000000 1073741824 <<XML
    <http_port>$ch_http_port</http_port>
    <tcp_port>$ch_port</tcp_port>
XML
}

ch_start() {
	if port_open "$ch_port"; then
		log "clickhouse already listening on $ch_port"
		return 0
	fi
	ch_config
	local dir=$data/clickhouse
	log "starting clickhouse on $ch_port (native) and $ch_http_port (http), data in $dir"
	nohup clickhouse-server --config-file="$dir/config.xml" >"$dir/log/stdout.log" 2>&1 </dev/null &
	echo $! >"$dir/server.pid"
	wait_port "$ch_port" clickhouse
}

ch_stop() { stop_pidfile "$data/clickhouse/server.pid" clickhouse; }

# --- PostgreSQL ---------------------------------------------------------------------------------

# pg_dir prints where the cluster lives. The server refuses to run as root, so the postgres user
# must reach the folder; when the checkout sits where it cannot (under /root, say), the cluster
# lives in /var/tmp and .data/postgres links to it.
pg_dir() {
	local dir=$data/postgres
	mkdir -p "$data"
	if [ -L "$dir" ]; then
		readlink "$dir"
		return
	fi
	if [ "$(id -u)" = 0 ] && ! runuser -u postgres -- test -x "$data"; then
		local alt
		alt=/var/tmp/mtk-postgres-$(printf '%s' "$root" | md5sum | cut -c1-12)
		ln -sfn "$alt" "$dir"
		printf '%s\n' "$alt"
		return
	fi
	printf '%s\n' "$dir"
}

pg_start() {
	if port_open "$pg_port"; then
		log "postgresql already listening on $pg_port"
		return 0
	fi
	local dir
	dir=$(pg_dir)
	mkdir -p "$dir"
	[ "$(id -u)" = 0 ] && chown postgres:postgres "$dir"
	chmod 700 "$dir"
	if [ ! -f "$dir/PG_VERSION" ]; then
		log "initdb in $dir"
		as_postgres "$pg_bin/initdb" -D "$dir" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
		cat >>"$dir/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $pg_port
unix_socket_directories = '$dir'
max_connections = 300
shared_buffers = 256MB
fsync = on
synchronous_commit = on
log_min_messages = warning
CONF
	fi
	log "starting postgresql on $pg_port, data in $dir"
	as_postgres "$pg_bin/pg_ctl" -D "$dir" -l "$dir/server.log" -w -t 60 start >/dev/null
	wait_port "$pg_port" postgresql
	as_postgres "$pg_bin/psql" -h 127.0.0.1 -p "$pg_port" -U postgres -d postgres -tAc \
		"SELECT 1 FROM pg_database WHERE datname = 'mtk'" | grep -q 1 ||
		as_postgres "$pg_bin/createdb" -h 127.0.0.1 -p "$pg_port" -U postgres mtk
}

pg_stop() {
	local dir
	dir=$(pg_dir)
	if [ -f "$dir/postmaster.pid" ]; then
		log "stopping postgresql"
		as_postgres "$pg_bin/pg_ctl" -D "$dir" -m fast -w stop >/dev/null || true
	fi
}

# --- Redis --------------------------------------------------------------------------------------

# redis_start runs redis-server with flags only (no config file): the rate-limit counters it
# holds live a minute or a quarter of an hour, so it keeps no snapshot and no append-only file.
redis_start() {
	if port_open "$redis_port"; then
		log "redis already listening on $redis_port"
		return 0
	fi
	local dir=$data/redis
	mkdir -p "$dir"
	log "starting redis on $redis_port, data in $dir"
	redis-server --bind 127.0.0.1 --port "$redis_port" --dir "$dir" --daemonize yes \
		--pidfile "$dir/server.pid" --logfile "$dir/server.log" --save '' --appendonly no >/dev/null
	wait_port "$redis_port" redis
}

redis_stop() { stop_pidfile "$data/redis/server.pid" redis; }

case ${1:-start} in
start)
	install_missing
	ch_start
	pg_start
	redis_start
	log "ready: clickhouse://127.0.0.1:$ch_port  postgres://postgres@127.0.0.1:$pg_port/mtk  redis://127.0.0.1:$redis_port"
	;;
stop)
	ch_stop
	pg_stop
	redis_stop
	;;
chromium)
	[ -x /usr/bin/chromium ] || apt_install chromium
	;;
status)
	port_open "$ch_port" && log "clickhouse up on $ch_port" || log "clickhouse down"
	port_open "$pg_port" && log "postgresql up on $pg_port" || log "postgresql down"
	port_open "$redis_port" && log "redis up on $redis_port" || log "redis down"
	;;
*)
	echo "usage: $0 start|stop|status|chromium" >&2
	exit 2
	;;
esac
