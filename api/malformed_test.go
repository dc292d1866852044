package api_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"mtk/internal/apitest"
)

// TestMalformedRequestEchoesNothing: a request the server cannot read as HTTP is 400
// invalid_request "Malformed HTTP request." in the envelope, and the answer holds no byte of what
// was sent on the connection: not the bad request's path, header values or X-Request-Id, and not
// the credential of a request pipelined after it (behind a proxy that reuses upstream
// connections, another user's). Sent over a raw socket to a real listener.
func TestMalformedRequestEchoesNothing(t *testing.T) {
	srv := apitest.Start(t, apitest.Options{RateLimitsOff: true})
	const token = "mtk_live_secretSECRETsecretSECRETsecretSECRETsec"
	pipelined := "GET /v3/projects HTTP/1.1\r\nHost: pipelined.example\r\nAuthorization: Bearer " + token + "\r\n\r\n"
	// Marks the bytes of the bad request, which must not come back either.
	const marked = "\r\nHost: markhost.example\r\nX-Request-Id: markid-7\r\nX-Marker: markvalue\r\n"
	for name, bad := range map[string]string{
		"header without a colon": "GET /v3/markpath HTTP/1.1" + marked + "Markline without colon\r\n\r\n",
		"space in a header name": "GET /v3/markpath HTTP/1.1" + marked + "Mark Name: x\r\n\r\n",
		"bad Content-Length":     "POST /v3/markpath HTTP/1.1" + marked + "Content-Length: markten\r\n\r\n",
		"bad request line":       "GET\x01/v3/markpath\x01HTTP/1.1" + marked + "\r\n",
	} {
		t.Run(name, func(t *testing.T) {
			raw := exchangeRaw(t, srv.URL, bad+pipelined)
			resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(raw)), nil)
			if err != nil {
				t.Fatalf("unreadable answer: %v\n%q", err, raw)
			}
			body, _ := io.ReadAll(resp.Body)
			var env struct {
				Error struct {
					Type, Code, Message string
					RequestID           string `json:"request_id"`
				} `json:"error"`
			}
			if err := json.Unmarshal(body, &env); err != nil || resp.StatusCode != 400 || env.Error.Type != "validation_error" ||
				env.Error.Code != "invalid_request" || env.Error.Message != "Malformed HTTP request." ||
				!strings.HasPrefix(env.Error.RequestID, "req_") || env.Error.RequestID != resp.Header.Get("X-Request-Id") {
				t.Fatalf("want 400 invalid_request in the envelope with a new request id: %d %s", resp.StatusCode, body)
			}
			for _, sent := range []string{token, "secret", "pipelined", "mark", "Markline", "/v3/"} {
				if bytes.Contains(bytes.ToLower(raw), bytes.ToLower([]byte(sent))) {
					t.Fatalf("the answer carries %q, which the request sent:\n%s", sent, raw)
				}
			}
		})
	}
}

// exchangeRaw writes req on a new connection to base and returns everything the server sends
// until it closes the connection.
func exchangeRaw(t *testing.T, base, req string) []byte {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(conn, req); err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(conn)
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	return raw
}
