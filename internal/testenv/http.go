package testenv

import (
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"

	"mtk/internal/chhttp"
)

// clickhouseHTTP is the test server's HTTP interface, from MTK_CH_HTTP_PORT (scripts/services.sh
// starts it on 18123).
func clickhouseHTTP() string {
	port := os.Getenv("MTK_CH_HTTP_PORT")
	if port == "" {
		port = "18123"
	}
	return "http://127.0.0.1:" + port + "/"
}

// Text runs sql (with its FORMAT clause) in the test database over ClickHouse's HTTP interface
// and returns the output as the server wrote it: the driver, native only, gives values, and a
// test that compares servers wants their text.
func (c CH) Text(t testing.TB, sql string) string {
	t.Helper()
	resp, err := http.Post(c.HTTPURL+"?database="+url.QueryEscape(c.Name), "text/plain", strings.NewReader(sql))
	if err != nil {
		t.Fatalf("testenv: clickhouse http: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("testenv: clickhouse http: %v", err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("testenv: clickhouse http %d: %s\n%s", resp.StatusCode, body, sql)
	}
	return string(body)
}

// HTTPReader is an HTTP reader (internal/chhttp) on the test database.
func (c CH) HTTPReader(t testing.TB) *chhttp.Client {
	t.Helper()
	opts := ClickHouseOptions(t, c.Name)
	r, err := chhttp.New(chhttp.Options{URL: c.HTTPURL, Database: c.Name, User: opts.Auth.Username, Password: opts.Auth.Password})
	if err != nil {
		t.Fatalf("testenv: %v", err)
	}
	return r
}

// ReadsEnv names the variable that sends the engine tests' reads over the native protocol:
// MTK_TEST_READS=native (ClickHouse's HTTP interface otherwise, the product's default), so that
// the same tests prove both paths answer alike.
const ReadsEnv = "MTK_TEST_READS"

// Reads is the HTTP reader, as the product reads by default, or nil (the native protocol) when
// MTK_TEST_READS=native: what a test passes as engine.Options.HTTP.
func (c CH) Reads(t testing.TB) *chhttp.Client {
	t.Helper()
	switch v := os.Getenv(ReadsEnv); v {
	case "native":
		return nil
	case "", "http":
		return c.HTTPReader(t)
	default:
		t.Fatalf("testenv: %s=%q: want http or native", ReadsEnv, v)
		return nil
	}
}
