# Sourced by the scripts that start local processes (services.sh, cluster.sh, replicas.sh): how
# they wait for a port and stop a process by its pid file. The sourcing script defines log() and
# logs, the folder its processes' logs are under.

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# wait_port waits up to 30 s for port $1 to accept connections ($2 names the process).
wait_port() {
	local port=$1 name=$2 i
	for i in $(seq 1 150); do
		port_open "$port" && return 0
		sleep 0.2
	done
	log "$name did not open port $port; see its log under $logs"
	return 1
}

# stop_pidfile stops the process of pidfile $1 ($2 names it) and waits up to 20 s for it to end.
# The pid is read once: a server may remove its own pid file as it exits (Redis does).
stop_pidfile() {
	local pidfile=$1 name=$2 pid i
	pid=$(cat "$pidfile" 2>/dev/null) || pid=
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		log "stopping $name"
		kill "$pid"
		for i in $(seq 1 100); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.2
		done
	fi
	rm -f "$pidfile"
}
