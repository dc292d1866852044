package conversions

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/ingest/capi"
	"mtk/ingest/outbox"
	"mtk/internal/clock"
	"mtk/platform"
)

// Delivery limits.
const (
	// MaxAttempts is how many failed sends make a conversion dead.
	MaxAttempts = 8
	// MaxAge is how old an event the API accepts.
	MaxAge       = 7 * 24 * time.Hour
	firstBackoff = 30 * time.Second
	maxBackoff   = time.Hour
	deliverBatch = 5 * capi.MaxBatch
)

// Deliverer sends queued conversions (see the package comment).
type Deliverer struct {
	pool   *pgxpool.Pool
	client *http.Client
	clock  clock.Clock
	log    *slog.Logger

	// connections give each project's credentials for the network's conversions API.
	connections *platform.Connections
	// Observe, when set, is told after each committed RunOnce that settled conversions how many
	// it sent and how many it made dead (metrics); those queued dead at once never reach it.
	Observe func(sent, dead int)
}

// NewDeliverer returns a Deliverer; client nil means one with a 30 s timeout.
func NewDeliverer(pool *pgxpool.Pool, connections *platform.Connections, client *http.Client, clk clock.Clock, log *slog.Logger) *Deliverer {
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
	}
	return &Deliverer{pool: pool, connections: connections, client: client, clock: clk, log: log}
}

type queued struct {
	id                int64
	project, pixel    string
	eventTime         time.Time
	payload           json.RawMessage
	attempts          int
	outcome, errorMsg string // set by send: StatusSent, StatusDead, or "" for a retry
	now               bool   // retry at once (another event of its request was the bad one)
}

// RunOnce sends every due conversion, a batch at a time, each given outbox.BatchTimeout, and returns
// how many were sent.
func (d *Deliverer) RunOnce(ctx context.Context) (int, error) {
	total := 0
	for {
		bctx, cancel := context.WithTimeout(ctx, outbox.BatchTimeout)
		sent, due, err := d.batch(bctx)
		cancel()
		total += sent
		if err != nil || due < deliverBatch {
			return total, err
		}
	}
}

// batch sends the oldest due conversions, at most deliverBatch, and returns how many were sent
// and how many were due.
func (d *Deliverer) batch(ctx context.Context) (sent, due int, err error) {
	dead := 0
	err = pgx.BeginFunc(ctx, d.pool, func(tx pgx.Tx) error {
		now := d.clock.Now()
		rows, err := tx.Query(ctx, `SELECT id, project_id, pixel_id, event_time, payload, attempts FROM conversion_outbox
			WHERE status = 'pending' AND next_attempt_at <= $1 ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED`, now, deliverBatch)
		if err != nil {
			return err
		}
		queue, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (*queued, error) {
			q := &queued{}
			return q, r.Scan(&q.id, &q.project, &q.pixel, &q.eventTime, &q.payload, &q.attempts)
		})
		if err != nil || len(queue) == 0 {
			return err
		}
		due = len(queue)
		groups := map[[2]string][]*queued{}
		var order [][2]string
		for _, q := range queue {
			k := [2]string{q.project, q.pixel}
			if _, ok := groups[k]; !ok {
				order = append(order, k)
			}
			groups[k] = append(groups[k], q)
		}
		for _, k := range order {
			d.sendGroup(ctx, k[0], k[1], groups[k], now)
		}
		w := &pgx.Batch{}
		for _, q := range queue {
			switch d.record(w, q, now) {
			case StatusSent:
				sent++
			case StatusDead:
				dead++
			}
		}
		return tx.SendBatch(ctx, w).Close()
	})
	if err == nil && d.Observe != nil && sent+dead > 0 {
		d.Observe(sent, dead)
	}
	return sent, due, err
}

// record queues q's outcome and returns the status it gets: StatusSent, StatusDead, or
// StatusPending for a retry.
func (d *Deliverer) record(w *pgx.Batch, q *queued, now time.Time) string {
	switch {
	case q.outcome == StatusSent:
		w.Queue("UPDATE conversion_outbox SET status = 'sent', sent_at = $2, attempts = attempts + 1, last_error = '' WHERE id = $1", q.id, now)
		return StatusSent
	case q.outcome == StatusDead:
		w.Queue("UPDATE conversion_outbox SET status = 'dead', attempts = attempts + 1, last_error = $2 WHERE id = $1", q.id, q.errorMsg)
		return StatusDead
	case q.now:
		w.Queue("UPDATE conversion_outbox SET last_error = $2 WHERE id = $1", q.id, q.errorMsg)
	case q.attempts+1 >= MaxAttempts:
		w.Queue("UPDATE conversion_outbox SET status = 'dead', attempts = attempts + 1, last_error = $2 WHERE id = $1",
			q.id, fmt.Sprintf("gave up after %d attempts: %s", MaxAttempts, q.errorMsg))
		return StatusDead
	default:
		w.Queue("UPDATE conversion_outbox SET attempts = attempts + 1, next_attempt_at = $2, last_error = $3 WHERE id = $1",
			q.id, now.Add(Backoff(q.attempts+1)), q.errorMsg)
	}
	return StatusPending
}

// Backoff is the wait after the n-th failed attempt: 30 s, doubling, at most an hour.
func Backoff(n int) time.Duration {
	b := firstBackoff
	for i := 1; i < n && b < maxBackoff; i++ {
		b *= 2
	}
	return min(b, maxBackoff)
}

// sendGroup sends one pixel's conversions in requests of at most capi.MaxBatch events.
func (d *Deliverer) sendGroup(ctx context.Context, project, pixel string, qs []*queued, now time.Time) {
	var fresh []*queued
	for _, q := range qs {
		if q.eventTime.Before(now.Add(-MaxAge)) {
			q.outcome, q.errorMsg = StatusDead, tooOld
			continue
		}
		fresh = append(fresh, q)
	}
	creds, ok, err := d.connections.ConversionCredentials(ctx, project)
	if err != nil || !ok {
		msg := "no active alpha_ads connection with api_base_url and access_token in the project"
		if err != nil {
			msg = "credentials not read: " + err.Error()
		}
		for _, q := range fresh {
			q.errorMsg = msg
		}
		return
	}
	endpoint := strings.TrimRight(creds.BaseURL, "/") + "/" + url.PathEscape(pixel) + "/events?access_token=" + url.QueryEscape(creds.AccessToken)
	for len(fresh) > 0 {
		n := min(capi.MaxBatch, len(fresh))
		d.send(ctx, endpoint, fresh[:n])
		fresh = fresh[n:]
	}
}

const tooOld = "event_time is more than 7 days old: the API refuses it"

var badEvent = regexp.MustCompile(`^data\[(\d+)\]`)

// send posts one request and sets each conversion's outcome.
func (d *Deliverer) send(ctx context.Context, endpoint string, qs []*queued) {
	var body bytes.Buffer
	body.WriteString(`{"data":[`)
	for i, q := range qs {
		if i > 0 {
			body.WriteByte(',')
		}
		body.Write(q.payload)
	}
	body.WriteString(`]}`)
	fail := func(msg string) {
		for _, q := range qs {
			q.errorMsg = msg
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, &body)
	if err != nil {
		fail(err.Error())
		return
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := d.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // without the URL, which holds the token
		}
		fail("request failed: " + err.Error())
		return
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode == http.StatusOK {
		for _, q := range qs {
			q.outcome = StatusSent
		}
		return
	}
	var apiErr struct {
		Error struct {
			Message string `json:"message"`
			Code    int    `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal(raw, &apiErr) //nolint:errcheck // an unreadable body is a plain failure
	msg := fmt.Sprintf("HTTP %d: %s", resp.StatusCode, apiErr.Error.Message)
	if m := badEvent.FindStringSubmatch(apiErr.Error.Message); resp.StatusCode == http.StatusBadRequest && m != nil {
		bad, _ := strconv.Atoi(m[1])
		for i, q := range qs {
			if i == bad {
				q.outcome, q.errorMsg = StatusDead, msg
			} else {
				q.now, q.errorMsg = true, "sent again: another event of its request was refused"
			}
		}
		return
	}
	fail(msg)
}
