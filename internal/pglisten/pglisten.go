// Package pglisten hears PostgreSQL notifications for every subscriber of one process on one
// connection of its own (LISTEN for each channel registered), so that a change committed by any
// mtk process shows in every other's caches milliseconds later. What a subscriber caches while
// nobody listens may have missed a notification, so each one is told when the connection is lost
// and when listening has resumed (its resync: forget what was cached, trust versions again); the
// dispatcher connects again with a backoff. platform's revocations and facts' data versions
// subscribe here.
package pglisten

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"regexp"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"mtk/internal/recovered"
)

// Subscriber is what one channel's notifications reach. Its functions, each optional, run on the
// dispatcher's goroutine, one at a time; they must not block.
type Subscriber struct {
	// Notify receives each notification's payload, in commit order.
	Notify func(payload string)
	// Up is called once LISTEN has taken effect on a new connection, before any notification it
	// brings: what was read before may have missed one, and is to be read again.
	Up func()
	// Down is called when the connection is lost, or its setup failed, and when Run ends:
	// notifications may be missed until the next Up.
	Down func()
}

// Backoff bounds the wait before connecting again: it starts at the first and doubles up to the
// second after each failed attempt, and starts over once listening.
var Backoff = [2]time.Duration{100 * time.Millisecond, 10 * time.Second}

// setupTimeout bounds connecting and subscribing: a PostgreSQL that does not answer is tried again.
const setupTimeout = 10 * time.Second

// channelName is what a channel may be called: it is written into LISTEN unquoted.
var channelName = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// Dispatcher listens on its channels and hands each notification to the channel's Subscriber.
type Dispatcher struct {
	connConfig *pgx.ConnConfig
	log        *slog.Logger

	mu   sync.Mutex
	subs map[string]Subscriber
	run  bool
}

// New returns a dispatcher that connects as cfg says (a pool's Config().ConnConfig) and logs a
// lost connection to log (nil: discarded).
func New(cfg *pgx.ConnConfig, log *slog.Logger) *Dispatcher {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Dispatcher{connConfig: cfg, log: log, subs: map[string]Subscriber{}}
}

// Handle registers s for channel, before Run.
func (d *Dispatcher) Handle(channel string, s Subscriber) error {
	if !channelName.MatchString(channel) {
		return fmt.Errorf("pglisten: channel %q: want lower-case letters, digits and _", channel)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.run {
		return fmt.Errorf("pglisten: channel %q registered after Run", channel)
	}
	if _, dup := d.subs[channel]; dup {
		return fmt.Errorf("pglisten: channel %q registered twice", channel)
	}
	for _, f := range []*func(){&s.Up, &s.Down} {
		if *f == nil {
			*f = func() {}
		}
	}
	if s.Notify == nil {
		s.Notify = func(string) {}
	}
	d.subs[channel] = s
	return nil
}

// Run listens until ctx ends, connecting again after a lost connection or a subscriber's panic
// (recovered, logged as the loss's cause); it returns nil then, every subscriber told Down.
func (d *Dispatcher) Run(ctx context.Context) error {
	d.mu.Lock()
	d.run = true
	channels := slices.Sorted(maps.Keys(d.subs))
	d.mu.Unlock()
	wait := Backoff[0]
	for {
		listened := false
		err := recovered.Call(func() error { return d.listen(ctx, channels, &listened) })
		d.each(channels, func(s Subscriber) { s.Down() })
		if ctx.Err() != nil {
			return nil
		}
		if listened {
			wait = Backoff[0]
		}
		d.log.Warn("postgres notifications: not listening, every subscriber reads again once it is back",
			"channels", channels, "retry_in", wait.String(), "error", err)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
		wait = min(2*wait, Backoff[1])
	}
}

// listen connects, listens on channels, tells every subscriber Up, then dispatches until the
// connection fails or ctx ends; listened reports whether it got that far.
func (d *Dispatcher) listen(ctx context.Context, channels []string, listened *bool) error {
	setup, cancel := context.WithTimeout(ctx, setupTimeout)
	defer cancel()
	conn, err := pgx.ConnectConfig(setup, d.connConfig.Copy())
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx)) //nolint:errcheck // a dropped connection
	for _, ch := range channels {
		if _, err := conn.Exec(setup, "LISTEN "+ch); err != nil { // ch matches channelName
			return err
		}
	}
	*listened = true
	d.each(channels, func(s Subscriber) { s.Up() })
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		d.mu.Lock()
		s, ok := d.subs[n.Channel]
		d.mu.Unlock()
		if ok {
			s.Notify(n.Payload)
		}
	}
}

// each calls f with the subscriber of each channel that has one.
func (d *Dispatcher) each(channels []string, f func(Subscriber)) {
	d.mu.Lock()
	subs := make([]Subscriber, 0, len(channels))
	for _, ch := range channels {
		subs = append(subs, d.subs[ch])
	}
	d.mu.Unlock()
	for _, s := range subs {
		f(s)
	}
}
