package events

import (
	"context"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"mtk/platform"
)

// TriggerStat is what the events table says of one trigger: its last firing (null when it has
// not fired within StatsWindow) and its firings in the last 24 hours.
type TriggerStat struct {
	TriggerID   string     `json:"trigger_id"`
	LastFiredAt *time.Time `json:"last_fired_at"`
	Count24h    uint64     `json:"count_24h"`
}

// StatsWindow bounds how far back a trigger's last firing is looked for: events are at most 90
// days old when they arrive (Input's timestamp).
const StatsWindow = maxPast

// TriggerStats reads, from the events table, the firings of a container's triggers: the events
// of the container named by each trigger's config.name (triggers that share a name share them).
// One statement, over the project's rows of the last StatsWindow.
func TriggerStats(ctx context.Context, ch driver.Conn, te platform.TriggerEvents, now time.Time) ([]TriggerStat, error) {
	out := make([]TriggerStat, len(te.TriggerIDs))
	for i, id := range te.TriggerIDs {
		out[i].TriggerID = id
	}
	if len(te.EventNames) == 0 {
		return out, nil
	}
	ctx = clickhouse.Context(ctx, clickhouse.WithSettings(clickhouse.Settings{"max_execution_time": 30}))
	rows, err := ch.Query(ctx, `SELECT name, toInt64(toUnixTimestamp(max(ts))), countIf(ts >= toDateTime(?))
		FROM events WHERE project_id = ? AND ts >= toDateTime(?) AND container_id = ? AND has(?, name)
		GROUP BY name`, now.Add(-24*time.Hour).Unix(), te.ProjectID, now.Add(-StatsWindow).Unix(), te.ContainerID, te.EventNames)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	type stat struct {
		last  time.Time
		count uint64
	}
	byName := map[string]stat{}
	for rows.Next() {
		var name string
		var last int64
		var s stat
		if err := rows.Scan(&name, &last, &s.count); err != nil {
			return nil, err
		}
		s.last = time.Unix(last, 0).UTC()
		byName[name] = s
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i, name := range te.EventNames {
		if s, ok := byName[name]; ok {
			out[i].LastFiredAt, out[i].Count24h = &s.last, s.count
		}
	}
	return out, nil
}
