// Package chhttp reads SELECT answers from ClickHouse's HTTP interface: the statement (its
// values already bound) is POSTed with its settings as URL parameters and the answer comes back
// in the Native format, which ClickHouse 18.16 and current ClickHouse both write alike over
// HTTP and which decodes into exactly the Go values clickhouse-go's native protocol scans into
// (decode.go). It exists because the native protocol's fixed cost
// per statement was most of what separated an answer from its SQL sent over HTTP (issue 41,
// docs/benchmarks.md); clickhouse-go's own HTTP protocol cannot talk to 18.16. Inserts stay on
// the native protocol.
package chhttp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
)

// Client sends statements to one ClickHouse server's HTTP interface, keeping its connections
// alive between statements.
type Client struct {
	base     string // http://host:port/
	database string
	user     string
	password string
	hc       *http.Client
	mu       sync.Mutex
	zone     *time.Location // the server's time zone, read at the first statement (serverZone)
}

// Options say where the HTTP interface is.
type Options struct {
	// URL is the interface's address, e.g. http://127.0.0.1:8123.
	URL string
	// Database, User and Password as for the native connection.
	Database, User, Password string
	// MaxIdleConns is how many connections stay open between statements (default 16, as
	// mtk's native pool).
	MaxIdleConns int
}

// New returns a Client for opts.
func New(opts Options) (*Client, error) {
	u, err := url.Parse(opts.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("chhttp: %q is not an http(s) URL", opts.URL)
	}
	if opts.MaxIdleConns <= 0 {
		opts.MaxIdleConns = 16
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns, tr.MaxIdleConnsPerHost = opts.MaxIdleConns, opts.MaxIdleConns
	tr.DisableCompression = true // answers are small; gzip would cost both sides CPU
	tr.Proxy = nil               // ClickHouse is reached directly, as the native protocol does
	return &Client{base: u.Scheme + "://" + u.Host + "/", database: opts.Database, user: opts.User,
		password: opts.Password, hc: &http.Client{Transport: tr}}, nil
}

// Query runs sql (one SELECT, its values bound) with settings and returns its answer, read
// whole. Cancelling ctx aborts the request and kills the statement on the server (ClickHouse
// 18.16 goes on with a query whose HTTP client left), by the query id each statement carries.
func (c *Client) Query(ctx context.Context, sql string, settings clickhouse.Settings) (*Rows, error) {
	id, err := queryID()
	if err != nil {
		return nil, err
	}
	// wait_end_of_query: the server buffers the whole answer before it sends the status, so an
	// exception is always a status, never text after the first rows.
	// buffer_size: where it buffers it (answerBuffer).
	// default_format: the statement's text stays as bound (decode.go reads Native).
	q := url.Values{"query_id": {id}, "wait_end_of_query": {"1"}, "buffer_size": {answerBuffer},
		"default_format": {"Native"}}
	if c.database != "" {
		q.Set("database", c.database)
	}
	for k, v := range settings {
		q.Set(k, fmt.Sprint(v))
	}
	zone, err := c.serverZone(ctx)
	if err != nil {
		return nil, err
	}
	body, err := c.post(ctx, q, sql)
	if err != nil {
		if ctx.Err() != nil {
			c.kill(id)
		}
		return nil, err
	}
	return decode(body, zone)
}

// answerBuffer is the buffer_size sent with every statement: the bytes of its answer the server
// keeps in memory before the rest goes to a temporary file. With wait_end_of_query and the
// default buffer_size (1 MiB), both ClickHouse 18.16 and current ClickHouse keep nothing in
// memory (HTTPHandler only does for a buffer_size above 1 MiB) and write every answer to a
// temporary file, read it back and delete it: an extra file per statement, measured at several
// milliseconds a statement on a loaded machine (issue 41, docs/benchmarks.md). Dashboard
// answers are kilobytes; the rare one beyond 4 MiB (tens of thousands of rows) still goes on to
// the file, as every answer did before.
const answerBuffer = "4194304"

// serverZone is the server's time zone, in which clickhouse-go gives a Date and a DateTime
// whose type names none (the HTTP interface of 18.16 names none in Native's types).
func (c *Client) serverZone(ctx context.Context) (*time.Location, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.zone != nil {
		return c.zone, nil
	}
	body, err := c.post(ctx, url.Values{"default_format": {"TabSeparated"}}, "SELECT timezone()")
	if err != nil {
		return nil, err
	}
	zone, err := time.LoadLocation(strings.TrimSpace(string(body)))
	if err != nil {
		return nil, fmt.Errorf("chhttp: the server's time zone: %w", err)
	}
	c.zone = zone
	return zone, nil
}

// post sends one statement and returns the answer's body, or the server's exception as a
// *clickhouse.Exception (so that callers map it by code as they map the native protocol's).
func (c *Client) post(ctx context.Context, q url.Values, sql string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"?"+q.Encode(), strings.NewReader(sql))
	if err != nil {
		return nil, err
	}
	if c.user != "" {
		req.Header.Set("X-ClickHouse-User", c.user)
	}
	if c.password != "" {
		req.Header.Set("X-ClickHouse-Key", c.password)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, exception(resp, body)
	}
	return body, nil
}

// exceptionLine is how both ClickHouse versions start an exception's text: "Code: 159, e.displayText() = DB::Exception: ..."
// (18.16) or "Code: 159. DB::Exception: ..." (current).
var exceptionLine = regexp.MustCompile(`^Code: (\d+)[.,] (?:e\.displayText\(\) = )?(DB::Exception: )?`)

// exception is the server's error as clickhouse-go reports it.
func exception(resp *http.Response, body []byte) error {
	if m := exceptionLine.FindSubmatch(body); m != nil {
		code, _ := strconv.Atoi(string(m[1]))
		msg := strings.TrimSpace(string(body[len(m[0]):]))
		return &clickhouse.Exception{Code: int32(code), Name: "DB::Exception", Message: msg}
	}
	if code, err := strconv.Atoi(resp.Header.Get("X-ClickHouse-Exception-Code")); err == nil {
		return &clickhouse.Exception{Code: int32(code), Name: "DB::Exception", Message: strings.TrimSpace(string(body))}
	}
	return fmt.Errorf("chhttp: HTTP %d: %.200s", resp.StatusCode, body)
}

// killWithin bounds the kill of a cancelled statement.
const killWithin = 5 * time.Second

// kill ends the statement id on the server, without waiting for it to stop (ASYNC).
func (c *Client) kill(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), killWithin)
	defer cancel()
	// id is hex from queryID: safe inside the literal.
	_, _ = c.post(ctx, url.Values{}, "KILL QUERY WHERE query_id = '"+id+"' ASYNC")
}

// queryID is a fresh statement id.
func queryID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", errors.New("chhttp: no randomness for a query id")
	}
	return "mtk-read-" + hex.EncodeToString(b[:]), nil
}
