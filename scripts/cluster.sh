#!/usr/bin/env bash
# Installs (only when missing) and starts, or stops, the local two-shard ClickHouse cluster that
# the cluster tests use: one ZooKeeper (ON CLUSTER DDL needs it, even without replicas) and two
# clickhouse-server processes, each one shard of the cluster `mtk_test` (and of
# `mtk_test_replicated`, see remote_servers). Data lives under .data/cluster/ in the repository.
#
#   scripts/cluster.sh start   # idempotent: safe while they run
#   scripts/cluster.sh stop
#   scripts/cluster.sh status
#
# Ports: ZooKeeper 12181; shard 1 native 19101, HTTP 18201, interserver 18301; shard 2 native
# 19102, HTTP 18202, interserver 18302. Environment: MTK_DATA (.data).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/clickhouse-xml.sh
. "$root/scripts/clickhouse-xml.sh"
data=${MTK_DATA:-$root/.data}/cluster
logs=$data
# shellcheck source=scripts/processes.sh
. "$root/scripts/processes.sh"
cluster=mtk_test
zk_port=12181
shards=(1 2)

log() { printf 'cluster: %s\n' "$*" >&2; }

install_missing() {
	local want=()
	command -v clickhouse-server >/dev/null 2>&1 || want+=(clickhouse-server clickhouse-client)
	[ -f /usr/share/java/zookeeper.jar ] || want+=(zookeeper)
	[ ${#want[@]} -eq 0 ] && return 0
	if [ "$(id -u)" != 0 ]; then
		log "missing packages (${want[*]}): run as root, or install them with apt-get"
		exit 1
	fi
	log "apt-get install ${want[*]}"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${want[@]}" >/dev/null
}

# --- ZooKeeper ----------------------------------------------------------------------------------

zk_start() {
	if port_open "$zk_port"; then
		log "zookeeper already listening on $zk_port"
		zk_wait_serving
		return
	fi
	local dir=$data/zookeeper
	mkdir -p "$dir/data"
	cat >"$dir/zoo.cfg" <<CFG
tickTime=500
dataDir=$dir/data
clientPort=$zk_port
clientPortAddress=127.0.0.1
maxClientCnxns=0
admin.enableServer=false
4lw.commands.whitelist=srvr
autopurge.purgeInterval=1
CFG
	log "starting zookeeper on $zk_port, data in $dir"
	nohup java -Xmx256m -XX:+UseSerialGC -cp /usr/share/java/zookeeper.jar \
		org.apache.zookeeper.server.quorum.QuorumPeerMain "$dir/zoo.cfg" >"$dir/stdout.log" 2>&1 </dev/null &
	echo $! >"$dir/server.pid"
	wait_port "$zk_port" zookeeper
	zk_wait_serving
}

# zk_wait_serving waits until ZooKeeper takes sessions: its port opens earlier, and a ClickHouse
# 18.16 that starts before then crashes on its first ON CLUSTER query.
zk_wait_serving() {
	local i
	for i in $(seq 1 150); do
		zk_serving && return 0
		sleep 0.1
	done
	log "zookeeper does not serve on $zk_port; see $data/zookeeper/stdout.log"
	return 1
}

zk_serving() {
	(
		exec 3<>"/dev/tcp/127.0.0.1/$zk_port" || exit 1
		printf srvr >&3
		timeout 2 cat <&3 | grep -q '^Mode: standalone'
	) 2>/dev/null
}

# --- ClickHouse shards --------------------------------------------------------------------------

native_port() { echo $((19100 + $1)); }

# remote_servers: the cluster's shards, one replica each, as every server sees them. Without
# replicas internal_replication stays off: 18.16 refuses ALTER ... ON CLUSTER on plain MergeTree
# tables of a shard that says it replicates internally. ${cluster}_replicated is the same shards
# with it on, for the test of the Replicated* tables that clusters with replicas get.
remote_servers() {
	local s name internal
	printf '    <remote_servers>\n'
	for name in "$cluster" "${cluster}_replicated"; do
		internal=false
		[ "$name" = "$cluster" ] || internal=true
		printf '        <%s>\n' "$name"
		for s in "${shards[@]}"; do
			printf '            <shard><internal_replication>%s</internal_replication><replica><host>127.0.0.1</host><port>%s</port></replica></shard>\n' \
				"$internal" "$(native_port "$s")"
		done
		printf '        </%s>\n' "$name"
	done
	printf '    </remote_servers>\n'
}

ch_config() {
	local s=$1
	ch_write_config "$data/shard$1" 2000000000 268435456 <<XML
    <http_port>$((18200 + s))</http_port>
    <tcp_port>$(native_port "$s")</tcp_port>
    <interserver_http_port>$((18300 + s))</interserver_http_port>
    <interserver_http_host>127.0.0.1</interserver_http_host>
$(remote_servers)
    <zookeeper><node><host>127.0.0.1</host><port>$zk_port</port></node></zookeeper>
    <distributed_ddl><path>/clickhouse/$cluster/task_queue/ddl</path></distributed_ddl>
    <macros><cluster>$cluster</cluster><shard>$s</shard><replica>replica1</replica></macros>
XML
}

ch_start() {
	local s=$1 port dir=$data/shard$1
	port=$(native_port "$s")
	if port_open "$port"; then
		log "shard $s already listening on $port"
		return 0
	fi
	ch_config "$s"
	log "starting shard $s on $port (native) and $((18200 + s)) (http), data in $dir"
	nohup clickhouse-server --config-file="$dir/config.xml" >"$dir/log/stdout.log" 2>&1 </dev/null &
	echo $! >"$dir/server.pid"
}

case ${1:-start} in
start)
	install_missing
	zk_start
	for s in "${shards[@]}"; do ch_start "$s"; done
	for s in "${shards[@]}"; do wait_port "$(native_port "$s")" "shard $s"; done
	log "ready: cluster $cluster, shards clickhouse://127.0.0.1:19101 and clickhouse://127.0.0.1:19102"
	;;
stop)
	for s in "${shards[@]}"; do stop_pidfile "$data/shard$s/server.pid" "shard $s"; done
	stop_pidfile "$data/zookeeper/server.pid" zookeeper
	;;
status)
	port_open "$zk_port" && log "zookeeper up on $zk_port" || log "zookeeper down"
	for s in "${shards[@]}"; do
		port_open "$(native_port "$s")" && log "shard $s up on $(native_port "$s")" || log "shard $s down"
	done
	;;
*)
	echo "usage: $0 start|stop|status" >&2
	exit 2
	;;
esac
