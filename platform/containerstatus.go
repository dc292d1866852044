package platform

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"mtk/internal/apperr"
)

// The container statuses of the spec. Their transitions, which the spec leaves open, follow from
// three facts: whether the container is deleted, whether any of its domains is verified, and when
// its latest event arrived (see ContainerStatus):
//
//	pending                    new container: no verified domain, no event yet
//	pending_receive_events     a domain is verified, no event yet
//	valid_receive_events       an event arrived in the last 24 hours (verified or not)
//	not_receiving_events_p24h  events arrived once, none in the last 24 hours
//	deleted                    terminal: it never changes again and the container is not found
//
// An event moves a container to valid at once (TouchContainer), as verifying a domain moves a
// pending one on (VerifyContainerDomain); the passing of time is applied by the status job
// (RefreshContainerStatuses), which moves valid containers to not_receiving.
const (
	ContainerValid         = "valid_receive_events"
	ContainerPendingEvents = "pending_receive_events"
	ContainerNotReceiving  = "not_receiving_events_p24h"
	ContainerPending       = "pending"
	ContainerDeleted       = "deleted"
)

// EventWindow is how recent a container's latest event must be for it to count as receiving.
const EventWindow = 24 * time.Hour

// ContainerStatus is the status of a container whose status is current, given whether one of its
// domains is verified and when its latest event arrived (nil: never), at now.
func ContainerStatus(current string, verified bool, lastEventAt *time.Time, now time.Time) string {
	switch {
	case current == ContainerDeleted:
		return ContainerDeleted
	case lastEventAt != nil && now.Sub(*lastEventAt) < EventWindow:
		return ContainerValid
	case lastEventAt != nil:
		return ContainerNotReceiving
	case verified:
		return ContainerPendingEvents
	}
	return ContainerPending
}

// statusFacts are what a live container's status is computed from.
type statusFacts struct {
	id, status  string
	verified    bool
	lastEventAt *time.Time
}

const statusFactsSelect = `SELECT c.id, c.status, c.last_event_at,
	EXISTS (SELECT 1 FROM container_domains d WHERE d.container_id = c.id AND d.status = 'verified')
	FROM containers c WHERE c.status <> 'deleted'`

func scanStatusFacts(row pgx.CollectableRow) (statusFacts, error) {
	var f statusFacts
	err := row.Scan(&f.id, &f.status, &f.lastEventAt, &f.verified)
	return f, err
}

func (s *Containers) statusFactsOf(ctx context.Context, id string) (statusFacts, error) {
	return queryOne(ctx, s.db, scanStatusFacts, apperr.NotFound("Container not found."), statusFactsSelect+" AND c.id = $1", id)
}

// setStatus writes the status that f's container has at now with lastEventAt, unless nothing
// changes. It writes only if the row still holds what f read, and reports false when it did not
// (a concurrent update won; the caller reads again).
func (s *Containers) setStatus(ctx context.Context, f statusFacts, lastEventAt *time.Time, now time.Time) (bool, error) {
	status := ContainerStatus(f.status, f.verified, lastEventAt, now)
	if status == f.status && sameTime(lastEventAt, f.lastEventAt) {
		return true, nil
	}
	tag, err := s.pool.Exec(ctx, `UPDATE containers SET status = $2, last_event_at = $3
		WHERE id = $1 AND status = $4 AND last_event_at IS NOT DISTINCT FROM $5`,
		f.id, status, lastEventAt, f.status, f.lastEventAt)
	return tag.RowsAffected() == 1, err
}

func sameTime(a, b *time.Time) bool {
	return a == nil && b == nil || a != nil && b != nil && a.Equal(*b)
}

// statusAttempts bounds the re-reads of a container whose row changed under an update.
const statusAttempts = 5

// recompute re-reads a live container and applies its status at the store's now, with the latest
// event time that lastEvent chooses from what was read.
func (s *Containers) recompute(ctx context.Context, id string, lastEvent func(f statusFacts, now time.Time) *time.Time) error {
	for range statusAttempts {
		f, err := s.statusFactsOf(ctx, id)
		if err != nil {
			return err
		}
		now := s.clock.Now()
		done, err := s.setStatus(ctx, f, lastEvent(f, now), now)
		if err != nil || done {
			return err
		}
	}
	return fmt.Errorf("container %s: status not updated after %d attempts", id, statusAttempts)
}

// touchResolution limits last_event_at writes to one per container per minute while the status
// is already right.
const touchResolution = time.Minute

// TouchContainer records that an event for the container arrived at at (the server's time of
// arrival): last_event_at moves forward and the status follows (valid_receive_events for a
// recent event). A deleted or unknown container is not found.
func (s *Containers) TouchContainer(ctx context.Context, id string, at time.Time) error {
	at = at.UTC().Truncate(time.Microsecond)
	return s.recompute(ctx, id, func(f statusFacts, now time.Time) *time.Time {
		last := f.lastEventAt
		switch {
		case last == nil:
			return &at
		case !at.After(*last):
			return last
		case at.Sub(*last) < touchResolution && ContainerStatus(f.status, f.verified, &at, now) == f.status:
			return last
		}
		return &at
	})
}

// VerifyContainerDomain marks a domain of a live container verified (its own domain, which an
// empty domain means, or one of its allowed hosts) and updates the status: a pending container
// becomes pending_receive_events.
func (s *Containers) VerifyContainerDomain(ctx context.Context, id, domain string) error {
	domain = NormalizeDomain(domain)
	var allowed []string
	var own string
	err := s.pool.QueryRow(ctx, "SELECT domain, allowed_hosts FROM containers WHERE id = $1 AND status <> 'deleted'", id).
		Scan(&own, &allowed)
	if isNoRows(err) {
		return apperr.NotFound("Container not found.")
	}
	if err != nil {
		return err
	}
	if domain == "" {
		domain = own
	}
	if domain != own && !slices.Contains(allowed, domain) {
		return apperr.Invalid("Invalid domain.", fmt.Sprintf("domain: %q is neither the container's domain nor one of its allowed hosts", domain))
	}
	now := s.clock.Now()
	if _, err := s.pool.Exec(ctx, `INSERT INTO container_domains (container_id, domain, status, verified_at, created_at)
		VALUES ($1, $2, $3, $4, $4)
		ON CONFLICT (container_id, domain) DO UPDATE SET status = $3, verified_at = coalesce(container_domains.verified_at, $4)`,
		id, domain, DomainVerified, now); err != nil {
		return err
	}
	return s.recompute(ctx, id, func(f statusFacts, _ time.Time) *time.Time { return f.lastEventAt })
}

// DeleteContainer marks a container deleted, for good: it is not found afterwards and its domain
// may be used by a new container.
func (s *Containers) DeleteContainer(ctx context.Context, id string) error {
	tag, err := s.pool.Exec(ctx, "UPDATE containers SET status = 'deleted' WHERE id = $1 AND status <> 'deleted'", id)
	if err == nil && tag.RowsAffected() == 0 {
		return apperr.NotFound("Container not found.")
	}
	return err
}

// RefreshContainerStatuses is the status job: it applies ContainerStatus at now to every live
// container and returns how many changed. A container updated meanwhile is left to the next run.
func (s *Containers) RefreshContainerStatuses(ctx context.Context, now time.Time) (int, error) {
	rows, err := s.pool.Query(ctx, statusFactsSelect+" ORDER BY c.id")
	if err != nil {
		return 0, err
	}
	all, err := pgx.CollectRows(rows, scanStatusFacts)
	if err != nil {
		return 0, err
	}
	changed := 0
	for _, f := range all {
		if ContainerStatus(f.status, f.verified, f.lastEventAt, now) == f.status {
			continue
		}
		done, err := s.setStatus(ctx, f, f.lastEventAt, now)
		if err != nil {
			return changed, err
		}
		if done {
			changed++
		}
	}
	return changed, nil
}
