package config

import "testing"

func TestClickHouseReadURL(t *testing.T) {
	for _, tc := range []struct {
		native, http, cluster, want string
	}{
		{"clickhouse://127.0.0.1:19000/mtk", "", "", "http://127.0.0.1:18123"},
		{"clickhouse://clickhouse:9000/mtk", "", "", "http://clickhouse:8123"},
		{"clickhouse://[::1]:9440/mtk?secure=true", "", "", "http://[::1]:8123"},
		{"clickhouse://clickhouse:9000/mtk", "https://ch.example:8443", "", "https://ch.example:8443"},
		{"clickhouse://clickhouse:9000/mtk", "off", "", ""},
		{"clickhouse://shard1:9000/mtk", "", "mtk", ""},
		{"clickhouse://shard1:9000/mtk", "http://shard1:8123", "mtk", "http://shard1:8123"},
	} {
		c := Config{ClickHouseURL: tc.native, ClickHouseHTTPURL: tc.http, ClickHouseCluster: tc.cluster}
		if got := c.ClickHouseReadURL(); got != tc.want {
			t.Errorf("%+v: reads at %q, want %q", tc, got, tc.want)
		}
	}
	for _, bad := range []string{"clickhouse://x:9000", "http://", "8123"} {
		if err := (Config{ClickHouseHTTPURL: bad}).checkHTTPURL(); err == nil {
			t.Errorf("MTK_CLICKHOUSE_HTTP_URL=%q accepted", bad)
		}
	}
}
