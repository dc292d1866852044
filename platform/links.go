package platform

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"mtk/internal/apperr"
	"mtk/internal/ids"
	"mtk/platform/marker"
	"mtk/platform/utm"
)

// Limits of a tracking link's members and of what a click records.
const (
	maxLinkName    = 255
	maxLinkMessage = 1000
	maxUserAgent   = 512
	maxIP          = 64
)

// LinkPath is where a link's slug is served: {base URL}/l/<slug>.
const LinkPath = "/l/"

// Links keeps the tracking links and their clicks, and decodes the messages that carry a click.
type Links struct{ db }

// LinkInput is what creating a tracking link takes.
type LinkInput struct {
	Name    string     `json:"name"`
	Phone   string     `json:"phone"`
	Message string     `json:"message"`
	UTM     utm.Params `json:"utm"`
}

// Link is a created tracking link: visiting URL records a click and opens a chat with Phone,
// prefilled with Message carrying the click id.
type Link struct {
	ID   string `json:"id"`
	Slug string `json:"slug"`
	URL  string `json:"url"`
}

// normalize validates in and returns it cleaned: the phone as digits only, UTM values decoded and
// trimmed as the utm package does for event bodies.
func (in LinkInput) normalize() (LinkInput, error) {
	var p problems
	in.Name = p.text("name", in.Name, maxLinkName)
	in.Message = p.text("message", in.Message, maxLinkMessage)
	phone := strings.TrimSpace(in.Phone)
	in.Phone = strings.Map(func(r rune) rune {
		if strings.ContainsRune(" +-().", r) {
			return -1
		}
		return r
	}, phone)
	switch {
	case phone == "":
		p.missing("phone")
	case !digits(in.Phone) || len(in.Phone) < 8 || len(in.Phone) > 15:
		p.bad("phone", "%q is not an international phone number (8 to 15 digits with the country code, e.g. +55 11 91234-5678)", phone)
	}
	in.UTM = utm.Extract(in.UTM, "", nil)
	for _, m := range []struct{ member, value string }{
		{"utm.utm_source", in.UTM.Source}, {"utm.utm_medium", in.UTM.Medium}, {"utm.utm_campaign", in.UTM.Campaign},
		{"utm.utm_content", in.UTM.Content}, {"utm.utm_term", in.UTM.Term},
	} {
		switch {
		case utf8.RuneCountInString(m.value) > utm.MaxValue:
			p.bad(m.member, "at most %d characters", utm.MaxValue)
		case strings.ContainsRune(m.value, 0):
			p.bad(m.member, "must not contain NUL characters")
		}
	}
	return in, p.err("Invalid tracking link.")
}

func digits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// slugAttempts bounds the retries of CreateLink when a new slug is taken.
const slugAttempts = 5

// CreateLink makes a tracking link of a workspace; its URL is baseURL/l/<slug>.
func (s *Links) CreateLink(ctx context.Context, workspaceID, baseURL string, in LinkInput) (Link, error) {
	in, err := in.normalize()
	if err != nil {
		return Link{}, err
	}
	l := Link{ID: ids.New(ids.Link)}
	for range slugAttempts {
		l.Slug = ids.Random(5)
		_, err = s.pool.Exec(ctx, `INSERT INTO tracking_links (id, workspace_id, slug, name, phone, message,
			utm_source, utm_medium, utm_campaign, utm_content, utm_term, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
			l.ID, workspaceID, l.Slug, in.Name, in.Phone, in.Message,
			in.UTM.Source, in.UTM.Medium, in.UTM.Campaign, in.UTM.Content, in.UTM.Term, s.clock.Now())
		if violated(err) != "tracking_links_slug_key" {
			break
		}
	}
	if err != nil {
		return Link{}, err
	}
	l.URL = baseURL + LinkPath + l.Slug
	return l, nil
}

// Click is one visit of a tracking link.
type Click struct {
	// UTM is what the visited URL carried: the click records the link's own UTM overlaid with it,
	// member by member.
	UTM       utm.Params
	IP        string
	UserAgent string
}

// LinkClick is a recorded click of a tracking link.
type LinkClick struct {
	ID                  int64
	LinkID, WorkspaceID string
	UTM                 utm.Params // the link's own, overlaid with the visited URL's
	IP, UserAgent       string
	At                  time.Time
}

// ClickHook queues, in the transaction that records click, what the click causes (the firing
// of click_tracking_link triggers): both are stored, or neither.
type ClickHook func(ctx context.Context, w *pgx.Batch, click LinkClick) error

// FollowLink records a click of the link with slug, with what hook queues for it, and returns
// where the visitor goes: the chat with the link's phone, its message prefilled with the click id
// as an invisible marker.
func (s *Links) FollowLink(ctx context.Context, slug string, click Click, hook ClickHook) (string, error) {
	var (
		phone, message string
		p              utm.Params
	)
	k := LinkClick{IP: storable(click.IP, maxIP), UserAgent: storable(click.UserAgent, maxUserAgent), At: s.clock.Now()}
	err := s.pool.QueryRow(ctx, `SELECT id, workspace_id, phone, message, utm_source, utm_medium, utm_campaign,
		utm_content, utm_term FROM tracking_links WHERE slug = $1`, slug).
		Scan(&k.LinkID, &k.WorkspaceID, &phone, &message, &p.Source, &p.Medium, &p.Campaign, &p.Content, &p.Term)
	if isNoRows(err) {
		return "", apperr.NotFound("Tracking link not found.")
	}
	if err != nil {
		return "", err
	}
	p = p.Overlay(click.UTM)
	k.UTM = utm.Params{Source: storable(p.Source, utm.MaxValue), Medium: storable(p.Medium, utm.MaxValue),
		Campaign: storable(p.Campaign, utm.MaxValue), Content: storable(p.Content, utm.MaxValue), Term: storable(p.Term, utm.MaxValue)}
	for range clickIDAttempts {
		k.ID = newClickID()
		err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			w := &pgx.Batch{}
			w.Queue(`INSERT INTO link_clicks (id, link_id, utm_source, utm_medium, utm_campaign,
				utm_content, utm_term, ip, user_agent, clicked_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
				k.ID, k.LinkID, k.UTM.Source, k.UTM.Medium, k.UTM.Campaign, k.UTM.Content, k.UTM.Term, k.IP, k.UserAgent, k.At)
			if hook != nil {
				if err := hook(ctx, w, k); err != nil {
					return err
				}
			}
			return tx.SendBatch(ctx, w).Close()
		})
		if violated(err) != "link_clicks_pkey" {
			break
		}
	}
	if err != nil {
		return "", err
	}
	return WhatsAppURL(phone, marker.Embed(message, uint64(k.ID))), nil
}

// Click ids are random in [1, clickIDLimit): a sequence would tell every workspace how many clicks
// the whole platform records. Below 2^53 they are exact JSON numbers in every client (decoded_id).
const (
	clickIDLimit    = 1 << 53
	clickIDAttempts = 5 // retries of FollowLink when a new id is taken
)

// newClickID returns a random click id.
func newClickID() int64 {
	var b [8]byte
	for {
		if _, err := rand.Read(b[:]); err != nil {
			panic("platform: no randomness: " + err.Error())
		}
		if id := int64(binary.BigEndian.Uint64(b[:]) % clickIDLimit); id > 0 {
			return id
		}
	}
}

// WhatsAppURL opens a chat with phone (digits) prefilled with text. Spaces are written %20, as
// the chat app's own links do.
func WhatsAppURL(phone, text string) string {
	return "https://wa.me/" + phone + "?text=" + strings.ReplaceAll(url.QueryEscape(text), "+", "%20")
}

// storable makes a value a visitor sent fit a text column: valid UTF-8 without NUL characters, cut
// to at most n characters.
func storable(s string, n int) string {
	s = strings.ReplaceAll(strings.ToValidUTF8(s, ""), "\x00", "")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

// QueueClickLeads queues, in the caller's transaction, giving each click of ids its person: the
// lead at the same index of leads. A click keeps the first lead it was given.
func QueueClickLeads(w *pgx.Batch, ids []int64, leads []string) {
	w.Queue(`UPDATE link_clicks k SET lead_id = c.lead FROM unnest($1::bigint[], $2::text[]) AS c (id, lead)
		WHERE k.id = c.id AND k.lead_id IS NULL`, ids, leads)
}
