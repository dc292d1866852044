package platform

import (
	"context"
	"testing"
	"time"

	"mtk/internal/apperr"
	"mtk/internal/clock"
	"mtk/internal/testenv"
)

var t0 = time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)

// newTestStore is a store on the test's own database with a moved clock and one project.
func newTestStore(t *testing.T) (*Services, *clock.Fake, Project) {
	t.Helper()
	clk := clock.NewFake(t0)
	s := New(testenv.Postgres(t).Pool, clk)
	ctx := context.Background()
	ws, err := s.Workspaces.CreateWorkspace(ctx, "acme", TierDefault)
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Projects.CreateProject(ctx, ProjectInput{WorkspaceID: ws.ID, Name: "Shop", Currency: "BRL", Timezone: "America/Sao_Paulo"})
	if err != nil {
		t.Fatal(err)
	}
	return s, clk, p
}

func TestContainerStatusRule(t *testing.T) {
	now := t0
	at := func(d time.Duration) *time.Time { x := now.Add(-d); return &x }
	cases := []struct {
		name     string
		current  string
		verified bool
		last     *time.Time
		want     string
	}{
		{"new", ContainerPending, false, nil, ContainerPending},
		{"verified, no event", ContainerPending, true, nil, ContainerPendingEvents},
		{"event just now", ContainerPendingEvents, true, at(0), ContainerValid},
		{"event without a verified domain", ContainerPending, false, at(time.Hour), ContainerValid},
		{"event 23h59m ago", ContainerValid, true, at(24*time.Hour - time.Minute), ContainerValid},
		{"event exactly 24h ago", ContainerValid, true, at(24 * time.Hour), ContainerNotReceiving},
		{"event long ago, unverified", ContainerValid, false, at(30 * 24 * time.Hour), ContainerNotReceiving},
		{"back to valid", ContainerNotReceiving, true, at(time.Second), ContainerValid},
		{"deleted stays deleted", ContainerDeleted, true, at(0), ContainerDeleted},
	}
	for _, c := range cases {
		if got := ContainerStatus(c.current, c.verified, c.last, now); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

// wantStatus checks a container's stored status and last event time.
func wantStatus(t *testing.T, s *Services, id, status string, last *time.Time) {
	t.Helper()
	f, err := s.Containers.statusFactsOf(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if f.status != status || !sameTime(f.lastEventAt, last) {
		t.Fatalf("status %s, last event %v; want %s, %v", f.status, f.lastEventAt, status, last)
	}
}

func TestContainerStatusTransitions(t *testing.T) {
	s, clk, p := newTestStore(t)
	ctx := context.Background()
	c, err := s.Containers.CreateContainer(ctx, ContainerInput{ProjectID: p.ID, Domain: "shop.example"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Status != ContainerPending || len(c.VerifiedDomains) != 1 || c.VerifiedDomains[0] != (VerifiedDomain{"shop.example", DomainPending}) {
		t.Fatalf("new container %+v", c)
	}
	if err := s.Containers.VerifyContainerDomain(ctx, c.ID, "other.example"); err == nil {
		t.Fatal("verified a domain that is not the container's")
	}
	if err := s.Containers.VerifyContainerDomain(ctx, c.ID, "Shop.Example"); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, s, c.ID, ContainerPendingEvents, nil)

	first := clk.Now()
	if err := s.Containers.TouchContainer(ctx, c.ID, first); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, s, c.ID, ContainerValid, &first)

	// Events within a minute do not rewrite last_event_at; an older arrival never moves it back.
	clk.Advance(30 * time.Second)
	for _, at := range []time.Time{clk.Now(), first.Add(-time.Hour)} {
		if err := s.Containers.TouchContainer(ctx, c.ID, at); err != nil {
			t.Fatal(err)
		}
		wantStatus(t, s, c.ID, ContainerValid, &first)
	}
	clk.Advance(time.Minute)
	second := clk.Now()
	if err := s.Containers.TouchContainer(ctx, c.ID, second); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, s, c.ID, ContainerValid, &second)

	clk.Set(second.Add(EventWindow - time.Second))
	if n, err := s.Containers.RefreshContainerStatuses(ctx, clk.Now()); err != nil || n != 0 {
		t.Fatalf("refresh before 24h changed %d: %v", n, err)
	}
	wantStatus(t, s, c.ID, ContainerValid, &second)
	clk.Set(second.Add(EventWindow))
	if n, err := s.Containers.RefreshContainerStatuses(ctx, clk.Now()); err != nil || n != 1 {
		t.Fatalf("refresh after 24h changed %d: %v", n, err)
	}
	wantStatus(t, s, c.ID, ContainerNotReceiving, &second)
	if n, err := s.Containers.RefreshContainerStatuses(ctx, clk.Now()); err != nil || n != 0 {
		t.Fatalf("second refresh changed %d: %v", n, err)
	}

	// An arrival time inside the window makes the container valid again; one older than the window
	// only moves last_event_at.
	if err := s.Containers.TouchContainer(ctx, c.ID, second.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	late := second.Add(time.Hour)
	wantStatus(t, s, c.ID, ContainerValid, &late)
	clk.Advance(48 * time.Hour)
	if err := s.Containers.TouchContainer(ctx, c.ID, late.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	stale := late.Add(time.Minute)
	wantStatus(t, s, c.ID, ContainerNotReceiving, &stale)
	now := clk.Now()
	if err := s.Containers.TouchContainer(ctx, c.ID, now); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, s, c.ID, ContainerValid, &now)

	// Deleted is terminal: not found, never touched nor refreshed, and its domain is free again.
	if err := s.Containers.DeleteContainer(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	for _, err := range []error{
		s.Containers.TouchContainer(ctx, c.ID, now), s.Containers.VerifyContainerDomain(ctx, c.ID, "shop.example"), s.Containers.DeleteContainer(ctx, c.ID),
	} {
		if e, ok := apperr.As(err); !ok || e.Code != apperr.CodeResourceNotFound {
			t.Fatalf("deleted container: %v", err)
		}
	}
	if _, err := s.Containers.ContainerIn(ctx, p.WorkspaceID, c.ID); err == nil {
		t.Fatal("deleted container found")
	}
	clk.Advance(48 * time.Hour)
	if n, err := s.Containers.RefreshContainerStatuses(ctx, clk.Now()); err != nil || n != 0 {
		t.Fatalf("refresh changed %d: %v", n, err)
	}
	var status string
	if err := s.pool.QueryRow(ctx, "SELECT status FROM containers WHERE id = $1", c.ID).Scan(&status); err != nil || status != ContainerDeleted {
		t.Fatalf("deleted container is now %q (%v)", status, err)
	}
	if _, err := s.Containers.CreateContainer(ctx, ContainerInput{ProjectID: p.ID, Domain: "shop.example"}); err != nil {
		t.Fatalf("domain of a deleted container: %v", err)
	}
}

func TestRefreshTouchesOnlyChangedContainers(t *testing.T) {
	s, clk, p := newTestStore(t)
	ctx := context.Background()
	mk := func(domain string) string {
		c, err := s.Containers.CreateContainer(ctx, ContainerInput{ProjectID: p.ID, Domain: domain})
		if err != nil {
			t.Fatal(err)
		}
		return c.ID
	}
	quiet, busy, fresh := mk("quiet.example"), mk("busy.example"), mk("fresh.example")
	if err := s.Containers.TouchContainer(ctx, quiet, clk.Now()); err != nil {
		t.Fatal(err)
	}
	clk.Advance(20 * time.Hour)
	if err := s.Containers.TouchContainer(ctx, busy, clk.Now()); err != nil {
		t.Fatal(err)
	}
	clk.Advance(5 * time.Hour)
	n, err := s.Containers.RefreshContainerStatuses(ctx, clk.Now())
	if err != nil || n != 1 {
		t.Fatalf("refresh changed %d: %v", n, err)
	}
	for id, want := range map[string]string{quiet: ContainerNotReceiving, busy: ContainerValid, fresh: ContainerPending} {
		f, err := s.Containers.statusFactsOf(ctx, id)
		if err != nil || f.status != want {
			t.Fatalf("%s: %s, want %s (%v)", id, f.status, want, err)
		}
	}
}
