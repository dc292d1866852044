package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"time"

	"github.com/shopspring/decimal"
)

// demoClient asks the demo project's queries over HTTP.
type demoClient struct {
	url, key, project string
	hc                http.Client
}

// sums are a row's tx_revenue and tx_count, exact as answered.
type sums [2]decimal.Decimal

func (s sums) add(o sums) sums { return sums{s[0].Add(o[0]), s[1].Add(o[1])} }

// answer is an answer's rows by the value of key (null: ""), its view and its db time.
type answer struct {
	view string
	rows map[string]sums
	db   time.Duration
}

// dbDur is Server-Timing's db;dur (milliseconds).
var dbDur = regexp.MustCompile(`db;dur=([0-9.]+)`)

// query asks tx_revenue and tx_count over the last 30 days with metadata meta, rows keyed by key
// ("" for a total).
func (c *demoClient) query(ctx context.Context, meta map[string]any, key string) (answer, error) {
	body, err := json.Marshal(map[string]any{"project_id": c.project, "fields": []string{"tx_revenue", "tx_count"},
		"time": map[string]any{"range": "last_30_days"}, "metadata": meta, "limit": 1000})
	if err != nil {
		return answer{}, err
	}
	req, err := http.NewRequestWithContext(ctx, "POST", c.url+"/v3/query", bytes.NewReader(body))
	if err != nil {
		return answer{}, err
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return answer{}, err
	}
	if resp.StatusCode != http.StatusOK {
		return answer{}, fmt.Errorf("%s: %d %s", body, resp.StatusCode, raw)
	}
	var ans struct {
		View string                       `json:"view"`
		Data []map[string]json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(raw, &ans); err != nil {
		return answer{}, err
	}
	out := answer{view: ans.View, rows: map[string]sums{}}
	if m := dbDur.FindStringSubmatch(resp.Header.Get("Server-Timing")); m != nil {
		ms, _ := strconv.ParseFloat(m[1], 64)
		out.db = time.Duration(ms * float64(time.Millisecond))
	}
	for _, row := range ans.Data {
		var k string
		if key != "" {
			_ = json.Unmarshal(row[key], &k) // null stays ""
		}
		var v sums
		for i, f := range []string{"tx_revenue", "tx_count"} {
			v[i], _ = decimal.NewFromString(string(row[f])) // null adds nothing
		}
		out.rows[k] = out.rows[k].add(v)
	}
	return out, nil
}

// total sums an answer's rows.
func (a answer) total() sums {
	var s sums
	for _, v := range a.rows {
		s = s.add(v)
	}
	return s
}
