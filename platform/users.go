package platform

import (
	"context"
	"errors"
	"fmt"
	"net/mail"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"golang.org/x/crypto/bcrypt"

	"mtk/internal/apperr"
	"mtk/internal/ids"
	"mtk/internal/ttlcache"
)

// The membership roles.
const (
	RoleOwner  = "owner"
	RoleAdmin  = "admin"
	RoleMember = "member"
)

// Users keeps the users, their memberships of workspaces and the standing of their login tokens.
type Users struct {
	db
	tokens *ttlcache.Cache[string, tokenState]
	// members are the memberships read, by user and workspace id (KeyCacheTTL).
	members *ttlcache.Cache[[2]string, Membership]
}

// User is a person who signs in.
type User struct {
	ID        string    `json:"id"`
	Email     string    `json:"email"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"created_at"`
	// TokenGeneration is what a login token issued now carries (auth.LoginToken.Generation);
	// Login reads it.
	TokenGeneration int64 `json:"-"`
}

// minPasswordLength is the shortest password accepted.
const minPasswordLength = 8

// bcryptCost is bcrypt's work factor for new passwords.
const bcryptCost = 11

// NormalizeEmail trims and lower-cases an address.
func NormalizeEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// passwordProblem words what is wrong with a new password, or is empty.
func passwordProblem(password string) string {
	if len(password) < minPasswordLength {
		return fmt.Sprintf("password: must be at least %d characters", minPasswordLength)
	}
	return ""
}

// CreateUser makes a user and, when workspaceID is not empty, a membership with role.
func (s *Users) CreateUser(ctx context.Context, email, name, password, workspaceID, role string) (User, error) {
	email = NormalizeEmail(email)
	var problems []string
	if _, err := mail.ParseAddress(email); err != nil || strings.ContainsAny(email, "<> ") {
		problems = append(problems, fmt.Sprintf("email: %q is not an e-mail address", email))
	}
	if p := passwordProblem(password); p != "" {
		problems = append(problems, p)
	}
	if role != RoleOwner && role != RoleAdmin && role != RoleMember {
		problems = append(problems, fmt.Sprintf("role: %q is not one of owner, admin, member", role))
	}
	if len(problems) > 0 {
		return User{}, apperr.Invalid("Invalid user.", problems...)
	}
	if name == "" {
		name = email
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(password), bcryptCost)
	if err != nil {
		return User{}, err
	}
	u := User{ID: ids.New(ids.User), Email: email, Name: name, CreatedAt: s.clock.Now()}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return User{}, err
	}
	defer tx.Rollback(ctx) //nolint:errcheck
	_, err = tx.Exec(ctx, "INSERT INTO users (id, email, name, password_hash, created_at) VALUES ($1, $2, $3, $4, $5)",
		u.ID, u.Email, u.Name, string(hash), u.CreatedAt)
	if isUniqueViolation(err) {
		return User{}, apperr.Invalid("A user with this e-mail exists.", "email: already registered")
	}
	if err != nil {
		return User{}, err
	}
	if workspaceID != "" {
		_, err = tx.Exec(ctx, "INSERT INTO memberships (workspace_id, user_id, role, created_at) VALUES ($1, $2, $3, $4)",
			workspaceID, u.ID, role, u.CreatedAt)
		if isForeignKeyViolation(err) {
			return User{}, apperr.NotFound("Workspace not found.")
		}
		if err != nil {
			return User{}, err
		}
	}
	return u, tx.Commit(ctx)
}

// UserByEmail returns the user with that address.
func (s *Users) UserByEmail(ctx context.Context, email string) (User, error) {
	var u User
	err := s.pool.QueryRow(ctx, "SELECT id, email, name, created_at FROM users WHERE email = $1", NormalizeEmail(email)).
		Scan(&u.ID, &u.Email, &u.Name, &u.CreatedAt)
	if isNoRows(err) {
		return u, apperr.NotFound("User not found.")
	}
	return u, err
}

// dummyHash is compared against when the e-mail is unknown, so that a wrong address and a wrong
// password take the same time.
var dummyHash, _ = bcrypt.GenerateFromPassword([]byte("mtk-timing-equaliser"), bcryptCost)

// Login checks an e-mail and password and returns the user and their role in their first
// workspace (member when they belong to none).
func (s *Users) Login(ctx context.Context, email, password string) (User, string, error) {
	var u User
	var hash string
	err := s.pool.QueryRow(ctx, "SELECT id, email, name, created_at, token_generation, password_hash FROM users WHERE email = $1",
		NormalizeEmail(email)).Scan(&u.ID, &u.Email, &u.Name, &u.CreatedAt, &u.TokenGeneration, &hash)
	bad := apperr.Unauthenticated(apperr.CodeInvalidCredentials, "Invalid e-mail or password.")
	if isNoRows(err) {
		bcrypt.CompareHashAndPassword(dummyHash, []byte(password)) //nolint:errcheck
		return User{}, "", bad
	}
	if err != nil {
		return User{}, "", err
	}
	if bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) != nil {
		return User{}, "", bad
	}
	role := RoleMember
	err = s.pool.QueryRow(ctx, "SELECT role FROM memberships WHERE user_id = $1 ORDER BY created_at, workspace_id LIMIT 1", u.ID).Scan(&role)
	if err != nil && !isNoRows(err) {
		return User{}, "", err
	}
	return u, role, nil
}

// SetPassword replaces the password of the user with that e-mail and moves their token
// generation, so that every login token issued before is refused from now on (on other servers
// when they hear of it: Services.Subscribe).
func (s *Users) SetPassword(ctx context.Context, email, password string) (User, error) {
	if p := passwordProblem(password); p != "" {
		return User{}, apperr.Invalid("Invalid password.", p)
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(password), bcryptCost)
	if err != nil {
		return User{}, err
	}
	var u User
	err = s.pool.QueryRow(ctx, `UPDATE users SET password_hash = $2, token_generation = token_generation + 1 WHERE email = $1
		RETURNING id, email, name, created_at, token_generation`, NormalizeEmail(email), string(hash)).
		Scan(&u.ID, &u.Email, &u.Name, &u.CreatedAt, &u.TokenGeneration)
	if isNoRows(err) {
		return u, apperr.NotFound("User not found.")
	}
	if err != nil {
		return u, err
	}
	s.tokens.Forget(func(_ string, st tokenState) bool { return st.userID == u.ID })
	return u, nil
}

// Membership is a user's standing in a workspace: the workspace's tier and the user's role.
type Membership struct {
	Tier string
	Role string
}

// Writes reports whether the role may write the workspace's data and tracking (owner or admin);
// a member reads.
func (m Membership) Writes() bool { return m.Role == RoleOwner || m.Role == RoleAdmin }

// Membership is userID's standing in workspaceID; ok is false when they are not a member.
func (s *Users) Membership(ctx context.Context, userID, workspaceID string) (Membership, bool, error) {
	m, err := s.members.Load([2]string{userID, workspaceID}, s.clock.Now(), func() (m Membership, err error) {
		err = s.pool.QueryRow(ctx, `SELECT w.tier, m.role FROM memberships m JOIN workspaces w ON w.id = m.workspace_id
			WHERE m.user_id = $1 AND m.workspace_id = $2`, userID, workspaceID).Scan(&m.Tier, &m.Role)
		if isNoRows(err) {
			return m, errNotMember
		}
		return m, err
	})
	if errors.Is(err, errNotMember) {
		return Membership{}, false, nil
	}
	return m, err == nil, err
}

// errNotMember is what Membership's load returns for no membership, so that it is not kept: a
// membership made by another process shows at once.
var errNotMember = errors.New("platform: not a member")

// WorkspaceIDsOf lists the workspaces userID belongs to.
func (s *Users) WorkspaceIDsOf(ctx context.Context, userID string) ([]string, error) {
	rows, err := s.pool.Query(ctx, "SELECT workspace_id FROM memberships WHERE user_id = $1 ORDER BY created_at, workspace_id", userID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// ManagedWorkspace is a workspace whose owners and admins may connect platforms to it.
type ManagedWorkspace struct {
	ID   string
	Name string
}

// ManagedWorkspaces lists the workspaces in which userID is an owner or an admin: those they may
// grant a platform access to. Members may not: a key outlives the person who made it.
func (s *Users) ManagedWorkspaces(ctx context.Context, userID string) ([]ManagedWorkspace, error) {
	rows, err := s.pool.Query(ctx, `SELECT w.id, w.name FROM memberships m JOIN workspaces w ON w.id = m.workspace_id
		WHERE m.user_id = $1 AND m.role IN ('owner', 'admin') ORDER BY m.created_at, w.id`, userID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowToStructByPos[ManagedWorkspace])
}

// Manages reports whether userID is an owner or an admin of workspaceID.
func (s *Users) Manages(ctx context.Context, userID, workspaceID string) (bool, error) {
	wss, err := s.ManagedWorkspaces(ctx, userID)
	return slices.ContainsFunc(wss, func(w ManagedWorkspace) bool { return w.ID == workspaceID }), err
}
