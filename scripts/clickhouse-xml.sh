# Shared by services.sh and cluster.sh (sourced): the configuration files of a local
# clickhouse-server whose data lives under one folder.

# ch_write_config DIR MAX_MEMORY CACHE_BYTES writes DIR/users.xml (the passwordless default user
# on loopback, queries limited to MAX_MEMORY bytes) and DIR/config.xml with the settings both
# scripts share; the server's own part (ports, cluster) comes on standard input, as XML elements.
ch_write_config() {
	local dir=$1 max_memory=$2 cache=$3 own
	own=$(cat)
	mkdir -p "$dir/data" "$dir/tmp" "$dir/user_files" "$dir/format_schemas" "$dir/log"
	cat >"$dir/users.xml" <<XML
<?xml version="1.0"?>
<yandex>
    <profiles><default><max_memory_usage>$max_memory</max_memory_usage></default></profiles>
    <users>
        <default>
            <password></password>
            <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
            <profile>default</profile>
            <quota>default</quota>
        </default>
    </users>
    <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors>
        <result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time>
    </interval></default></quotas>
</yandex>
XML
	cat >"$dir/config.xml" <<XML
<?xml version="1.0"?>
<yandex>
    <logger>
        <level>warning</level>
        <log>$dir/log/server.log</log>
        <errorlog>$dir/log/server.err.log</errorlog>
        <size>100M</size>
        <count>2</count>
    </logger>
    <listen_host>127.0.0.1</listen_host>
    <max_connections>1024</max_connections>
    <keep_alive_timeout>10</keep_alive_timeout>
    <max_concurrent_queries>200</max_concurrent_queries>
    <uncompressed_cache_size>$cache</uncompressed_cache_size>
    <mark_cache_size>$cache</mark_cache_size>
    <path>$dir/data/</path>
    <tmp_path>$dir/tmp/</tmp_path>
    <user_files_path>$dir/user_files/</user_files_path>
    <format_schema_path>$dir/format_schemas/</format_schema_path>
    <users_config>$dir/users.xml</users_config>
    <default_profile>default</default_profile>
    <default_database>default</default_database>
    <timezone>UTC</timezone>
    <mlock_executable>false</mlock_executable>
    <builtin_dictionaries_reload_interval>3600</builtin_dictionaries_reload_interval>
    <max_session_timeout>3600</max_session_timeout>
    <default_session_timeout>60</default_session_timeout>
$own
</yandex>
XML
}
