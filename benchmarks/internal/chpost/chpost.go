// Package chpost sends one statement to ClickHouse's HTTP interface, as the floor runs send
// theirs: one POST with the statement as its body and its settings as URL parameters, the whole
// answer read.
package chpost

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// Post sends sql to the server at base with the parameters q and the headers h (nil: none) and
// returns the answer's body; a status other than 200 is an error quoting the body's start.
func Post(ctx context.Context, hc *http.Client, base string, q url.Values, h http.Header, sql string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/?"+q.Encode(), strings.NewReader(sql))
	if err != nil {
		return nil, err
	}
	for k, v := range h {
		req.Header[k] = v
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d: %.300s", resp.StatusCode, body)
	}
	return body, nil
}
