package engine

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// A Service runs at most Options.MaxConcurrent statements on ClickHouse at once; the others wait
// for a slot in arrival order. ClickHouse shares its cores among the statements it runs, so past
// about one statement per core more of them only stretch each one: 8 dashboards' statements then
// all finish late together. Waiting in line instead keeps the throughput and cuts the tail
// (benchmarks/README.md).

// defaultSlots is MaxConcurrent when ClickHouse does not say how many cores it has.
const defaultSlots = 4

// slotsFor sizes the Service's slots once, from Options.MaxConcurrent or, when that is 0, from the
// server's cores (its default max_threads) plus one, so that a core never waits for the network.
func (s *Service) slotsFor(ctx context.Context) chan struct{} {
	s.slotsOnce.Do(func() {
		// A panic reading the cores (recovered by the flight) must not leave a nil channel,
		// on which every later query would wait until its deadline.
		defer func() {
			if s.slots == nil {
				s.slots = make(chan struct{}, defaultSlots)
			}
		}()
		n := s.opts.MaxConcurrent
		if n <= 0 {
			n = serverCores(ctx, s.conn) + 1
		}
		s.slots = make(chan struct{}, n)
	})
	return s.slots
}

// serverCores reads the server's default max_threads, its number of cores; defaultSlots-1 when
// it cannot.
func serverCores(ctx context.Context, conn driver.Conn) int {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	var v string
	if err := conn.QueryRow(ctx, "SELECT value FROM system.settings WHERE name = 'max_threads'").Scan(&v); err != nil {
		return defaultSlots - 1
	}
	return coresOf(v)
}

// coresOf reads the number in a max_threads value: "2" on 18.16, "'auto(2)'" on current servers;
// defaultSlots-1 when there is none.
func coresOf(v string) int {
	numbers := strings.FieldsFunc(v, func(r rune) bool { return !unicode.IsDigit(r) })
	if len(numbers) == 0 {
		return defaultSlots - 1
	}
	n, err := strconv.Atoi(numbers[0])
	if err != nil || n <= 0 {
		return defaultSlots - 1
	}
	return n
}

// acquire waits for a slot, at most MaxExecutionTime (then errBusy) or until ctx ends, and
// returns its release.
func (s *Service) acquire(ctx context.Context) (func(), error) {
	slots := s.slotsFor(ctx)
	select {
	case slots <- struct{}{}:
		return held(ctx, func() { <-slots }), nil
	default:
	}
	t := time.NewTimer(s.opts.MaxExecutionTime)
	defer t.Stop()
	select {
	case slots <- struct{}{}:
		return held(ctx, func() { <-slots }), nil
	case <-t.C:
		return nil, errBusy.WithCause(fmt.Errorf("engine: every query slot stayed taken for %s", s.opts.MaxExecutionTime))
	case <-ctx.Done():
		return nil, mapError(ctx.Err())
	}
}
