package config

import (
	"fmt"
	"net"
	"net/url"
)

// ClickHouse's HTTP interface, over which the engine reads (issue 41: the native protocol's
// fixed cost per statement measured about twice the HTTP interface's, docs/benchmarks.md).

// ReadsNative is the MTK_CLICKHOUSE_HTTP_URL that keeps the engine's reads on the native
// protocol.
const ReadsNative = "off"

// ClickHouseReadURL is where the engine reads: ClickHouseHTTPURL when set, none ("": the native
// protocol) when it is "off" or the database is spread over a cluster, and otherwise the native
// URL's host on ClickHouse's HTTP port: 8123, or 18123 for the native port 19000 (scripts/services.sh
// and docker-compose.yml publish ClickHouse's ports so).
func (c Config) ClickHouseReadURL() string {
	switch {
	case c.ClickHouseHTTPURL == ReadsNative:
		return ""
	case c.ClickHouseHTTPURL != "":
		return c.ClickHouseHTTPURL
	case c.ClickHouseCluster != "":
		return ""
	}
	u, err := url.Parse(c.ClickHouseURL)
	if err != nil || u.Hostname() == "" {
		return ""
	}
	port := "8123"
	if u.Port() == "19000" {
		port = "18123"
	}
	return "http://" + net.JoinHostPort(u.Hostname(), port)
}

// checkHTTPURL is Validate's check of MTK_CLICKHOUSE_HTTP_URL.
func (c Config) checkHTTPURL() error {
	if c.ClickHouseHTTPURL == "" || c.ClickHouseHTTPURL == ReadsNative {
		return nil
	}
	if err := checkURL(c.ClickHouseHTTPURL, "http", "https"); err != nil {
		return fmt.Errorf("MTK_CLICKHOUSE_HTTP_URL: %w (or %s)", err, ReadsNative)
	}
	return nil
}
