package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"mtk/benchmarks/internal/chpost"
)

// agentPrefix starts the User-Agent of every request variant: system.query_log keeps it
// (http_user_agent), so that serverTimes tells the variants apart without touching their
// statements or settings.
const agentPrefix = "floorvariants "

// post sends sql on request variant v and reads the whole answer; a variant with a query_id
// parameter gets a fresh id each time, as the reader's statements do.
func post(ctx context.Context, hc *http.Client, base string, v variant, sql string) ([]byte, error) {
	q := v.params
	if _, ok := q["query_id"]; ok {
		q = url.Values{}
		for k, vv := range v.params {
			q[k] = vv
		}
		q.Set("query_id", fmt.Sprintf("floorvariants-%d", time.Now().UnixNano()))
	}
	return chpost.Post(ctx, hc, base, q, http.Header{"User-Agent": {agentPrefix + v.name}}, sql)
}

// serverTimes prints, per variant and statement, the p50, mean and count of query_duration_ms
// of the statements logged since the run began: request variants by User-Agent, readers (their
// query ids start "mtk-read-") by their connection's client port.
func serverTimes(base string, stmts []statement, since time.Time) error {
	ctx := context.Background()
	send := func(sql string) ([]byte, error) {
		return post(ctx, ownClient(), base, variant{name: "query_log", params: url.Values{"default_format": {"TSVRaw"}}}, sql)
	}
	if _, err := send("SYSTEM FLUSH LOGS"); err != nil {
		return err
	}
	out, err := send(`SELECT if(startsWith(query_id, 'mtk-read-'), concat('reader, port ', toString(port)),
			substring(http_user_agent, ` + fmt.Sprint(len(agentPrefix)+1) + `)) AS v, query,
		quantileExact(0.5)(query_duration_ms), avg(query_duration_ms), count()
		FROM system.query_log
		WHERE type = 2 AND event_date >= toDate(toDateTime(` + fmt.Sprint(since.Unix()) + `)) AND event_time >= toDateTime(` + fmt.Sprint(since.Unix()) + `)
			AND (startsWith(http_user_agent, '` + agentPrefix + `') OR startsWith(query_id, 'mtk-read-'))
		GROUP BY v, query`)
	if err != nil {
		return err
	}
	names := map[string]string{}
	for _, s := range stmts {
		names[s.sql] = s.name
	}
	var lines []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 5 || names[strings.TrimSpace(f[1])] == "" {
			continue
		}
		lines = append(lines, fmt.Sprintf("| %s | %s | %s | %.5s | %s |", f[0], names[strings.TrimSpace(f[1])], f[2], f[3], f[4]))
	}
	slices.Sort(lines)
	fmt.Printf("\nsystem.query_log, query_duration_ms\n\n| variant | statement | p50 | mean | n |\n|---|---|--:|--:|--:|\n%s\n", strings.Join(lines, "\n"))
	return nil
}
