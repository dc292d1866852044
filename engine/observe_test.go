package engine_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"mtk/engine"
	"mtk/engine/enginetest"
	"mtk/internal/clock"
	"mtk/internal/testenv"
)

// observed collects what Options.Observe hears.
type observed struct {
	mu   sync.Mutex
	list []engine.Observation
}

func (o *observed) observe(ob engine.Observation) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.list = append(o.list, ob)
}

func (o *observed) last(t *testing.T) engine.Observation {
	t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.list) == 0 {
		t.Fatal("nothing observed")
	}
	return o.list[len(o.list)-1]
}

// Observe hears the table that answered, whether it was a fallback, and the kind of a failure.
func TestObserveTablesFallbacksAndErrors(t *testing.T) {
	ch := testenv.ClickHouse(t)
	ds, err := enginetest.Generate(smallConfig)
	if err != nil {
		t.Fatal(err)
	}
	if err := ds.Write(context.Background(), ch.Conn); err != nil {
		t.Fatal(err)
	}
	var obs observed
	svc := engine.New(ch.Conn, engine.Options{HTTP: ch.Reads(t), Clock: clock.NewFake(testNow), Observe: obs.observe})
	scope := scopeOf(ds.Projects[0])
	run := func(body string) engine.Observation {
		t.Helper()
		svc.Query(context.Background(), scope, mustInput(t, body)) //nolint:errcheck // the observation tells
		return obs.last(t)
	}
	want := func(got, w engine.Observation) {
		t.Helper()
		got.Took = 0
		if got != w {
			t.Errorf("observed %+v, want %+v", got, w)
		}
	}
	fine := `{"project_id":"prj_1","fields":["leads"],"time":{"start":"2024-03-09","end":"2024-03-10","granularity":"15min"}}`
	want(run(fine), engine.Observation{Table: "raw"})
	want(run(`{"project_id":"prj_1","fields":["clicks"],"time":{"start":"2024-03-09","end":"2024-03-10","granularity":"hour"}}`),
		engine.Observation{Table: "hourly"})
	want(run(`{"project_id":"prj_1","fields":["clicks"],"time":{"start":"2024-03-09","end":"2024-03-10","granularity":"day"}}`),
		engine.Observation{Table: "daily"})
	if err := ch.Conn.Exec(context.Background(), "ALTER TABLE facts_raw DROP PARTITION 202403"); err != nil {
		t.Fatal(err)
	}
	want(run(fine), engine.Observation{Table: "hourly", Fallback: true})
	want(run(`{"project_id":"prj_1","fields":["clicks"],"source":"x"}`), engine.Observation{ErrorKind: engine.ErrorInvalid})

	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	<-ctx.Done()
	svc.Query(ctx, scope, mustInput(t, fine)) //nolint:errcheck
	want(obs.last(t), engine.Observation{Table: "raw", ErrorKind: engine.ErrorTimeout})
}
