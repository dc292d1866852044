package wire

import (
	"context"
	"time"

	"mtk/api"
	"mtk/api/idempotency"
	"mtk/ingest/events"
	"mtk/ingest/fires"
	"mtk/platform"
	"mtk/tag"
)

// API is what the HTTP layer serves over s (api.New, api.Worker): each of its narrow interfaces
// filled with the service of s that implements it. It is the one place the API is put together,
// for `mtk serve` and for every test and benchmark that serves it.
func (s *System) API() api.Deps {
	d := api.Deps{
		Config: s.Config, Clock: s.Clock, Log: s.Log, Limits: s.Limits,
		Postgres: s.Postgres, ClickHouse: s.ClickHouse, Idempotency: idempotency.NewStore(s.Postgres),
		Users: s.Store.Users, Keys: s.Store.Keys, Projects: s.Store.Projects, Connections: s.Store.Connections,
		Containers: s.Store.Containers, Links: s.Store.Links, OAuth: s.Store.OAuth,
		Answers: s.Queries, Events: s.Events, Orders: s.Orders, Objects: s.Objects,
		Stats: func(ctx context.Context, te platform.TriggerEvents, now time.Time) ([]events.TriggerStat, error) {
			return events.TriggerStats(ctx, s.ClickHouse, te, now)
		},
		Fires:   fires.New(s.Postgres, s.Store.Containers, s.Clock),
		Scripts: tag.NewScripts(s.Store.Containers),
	}
	// A nil *metrics.Metrics in the interface would not be nil: Metrics is optional.
	if s.Metrics != nil {
		d.Metrics = s.Metrics
	}
	return d
}
