package platform

import (
	"context"
	"fmt"
	"time"

	"mtk/internal/apperr"
	"mtk/internal/ids"
)

// The workspace tiers of the contract.
const (
	TierDefault    = "default"
	TierGrowth     = "growth"
	TierEnterprise = "enterprise"
)

// tierPlans gives each tier its request limit per minute, its sync interval and whether its
// queries may use sub-hour granularities.
var tierPlans = map[string]struct {
	RequestsPerMinute int
	SyncInterval      time.Duration
	SubHour           bool
}{
	TierDefault:    {120, 30 * time.Minute, false},
	TierGrowth:     {300, 10 * time.Minute, true},
	TierEnterprise: {1000, 5 * time.Minute, true},
}

// ValidTier reports whether tier is one of the contract's tiers.
func ValidTier(tier string) bool { _, ok := tierPlans[tier]; return ok }

// RequestsPerMinute is tier's rate limit; unknown tiers get the default tier's.
func RequestsPerMinute(tier string) int {
	if p, ok := tierPlans[tier]; ok {
		return p.RequestsPerMinute
	}
	return tierPlans[TierDefault].RequestsPerMinute
}

// SubHourGranularities reports whether tier's queries may use 5 to 30 minute granularities;
// unknown tiers (and none) are the default tier, which may not.
func SubHourGranularities(tier string) bool { return tierPlans[tier].SubHour }

// SyncInterval is how often tier's connections are synced.
func SyncInterval(tier string) time.Duration {
	if p, ok := tierPlans[tier]; ok {
		return p.SyncInterval
	}
	return tierPlans[TierDefault].SyncInterval
}

// Workspaces keeps the workspaces.
type Workspaces struct{ db }

// Workspace is a tenant: everything else belongs to one.
type Workspace struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Tier      string    `json:"tier"`
	CreatedAt time.Time `json:"created_at"`
}

// CreateWorkspace makes a workspace with the given tier.
func (s *Workspaces) CreateWorkspace(ctx context.Context, name, tier string) (Workspace, error) {
	if name == "" {
		return Workspace{}, apperr.Missing("name is required.", "name: required")
	}
	if !ValidTier(tier) {
		return Workspace{}, apperr.Invalid("Unknown tier.", fmt.Sprintf("tier: %q is not one of default, growth, enterprise", tier))
	}
	w := Workspace{ID: ids.New(ids.Workspace), Name: name, Tier: tier, CreatedAt: s.clock.Now()}
	_, err := s.pool.Exec(ctx, "INSERT INTO workspaces (id, name, tier, created_at) VALUES ($1, $2, $3, $4)",
		w.ID, w.Name, w.Tier, w.CreatedAt)
	return w, err
}

// Workspace returns one workspace.
func (s *Workspaces) Workspace(ctx context.Context, id string) (Workspace, error) {
	var w Workspace
	err := s.pool.QueryRow(ctx, "SELECT id, name, tier, created_at FROM workspaces WHERE id = $1", id).
		Scan(&w.ID, &w.Name, &w.Tier, &w.CreatedAt)
	if isNoRows(err) {
		return w, apperr.NotFound("Workspace not found.")
	}
	return w, err
}

// WorkspaceByName returns the oldest workspace with that name, for idempotent seeding.
func (s *Workspaces) WorkspaceByName(ctx context.Context, name string) (Workspace, error) {
	var w Workspace
	err := s.pool.QueryRow(ctx, "SELECT id, name, tier, created_at FROM workspaces WHERE name = $1 ORDER BY created_at, id LIMIT 1", name).
		Scan(&w.ID, &w.Name, &w.Tier, &w.CreatedAt)
	if isNoRows(err) {
		return w, apperr.NotFound("Workspace not found.")
	}
	return w, err
}
