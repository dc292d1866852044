package client_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"mtk/client"
	"mtk/platform"
)

func TestTrackEvent(t *testing.T) {
	w := newWorld(t, platform.TierDefault)
	ctx := context.Background()
	c, _ := w.client(w.trackKey)
	value := int64(19990)
	ev := &client.Event{
		Config: client.EventConfig{Name: "Lead", Alpha: &client.AlphaEvent{Name: "Lead"}},
		Lead:   &client.Lead{Email: "ana@example.com", Phone: "+55 11 98888-7777", FirstName: "Ana"},
		UTM:    &client.UTM{Source: "alpha", Campaign: "Summer|c0"},
		Page:   &client.Page{URL: "https://acme.example/p"}, Cookies: map[string]string{"_fbp": "fb.1.1.1"},
		Value: &value, Properties: map[string]any{"plan": "pro"},
	}
	res, err := c.TrackEvent(ctx, ev)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Success || res.EventID == "" || res.LeadID == nil || res.Timestamp != w.clk.Now().Unix() {
		t.Fatalf("answer %+v", res)
	}
	// The same person by the container's path: the same lead.
	again, err := c.TrackContainerEvent(ctx, w.tn.Container.ID, &client.Event{EventID: "evt-2", Config: client.EventConfig{Name: "PageView"},
		Lead: &client.Lead{Email: " ANA@example.com "}})
	if err != nil {
		t.Fatal(err)
	}
	if again.EventID != "evt-2" || again.LeadID == nil || *again.LeadID != *res.LeadID {
		t.Fatalf("second event %+v, first lead %s", again, *res.LeadID)
	}
	// Public mode sends no credential, even from a client that has one.
	pub, err := c.TrackPublicEvent(ctx, &client.Event{Domain: "acme.example", Source: client.EventSourceWebsite,
		Config: client.EventConfig{Name: "PageView"}})
	if err != nil || !pub.Success || pub.LeadID != nil {
		t.Fatalf("public event %+v, %v", pub, err)
	}

	_, err = c.TrackEvent(ctx, &client.Event{Config: client.EventConfig{Name: "Lead"}, Timestamp: 1})
	e := wantAPIError(t, err, 400, client.ErrorTypeValidation, client.CodeInvalidParameter)
	if len(e.Params()) != 1 || e.Params()[0] != "timestamp" {
		t.Fatalf("params %q of %q", e.Params(), e.Details)
	}
	_, err = c.TrackPublicEvent(ctx, &client.Event{Domain: "nobody.example", Config: client.EventConfig{Name: "PageView"}})
	wantAPIError(t, err, 403, client.ErrorTypeAuthorization, client.CodeAccessDenied)
	reader, _ := w.client(w.readKey)
	_, err = reader.TrackEvent(ctx, ev)
	wantAPIError(t, err, 403, client.ErrorTypeAuthorization, client.CodeInsufficientScope)
}

func TestOrderWebhook(t *testing.T) {
	w := newWorld(t, platform.TierDefault)
	ctx := context.Background()
	c := client.New(w.srv.URL)
	price, cost := int64(19990), int64(8000)
	tx := &client.Transaction{ID: "order-1001", Status: client.TransactionApproved, Value: 19990, CreatedAt: w.clk.Now().Add(-time.Hour),
		Customer: &client.Customer{Email: "ana@example.com"},
		Items:    []client.Item{{ID: "sku-1", Name: "Shoe", Quantity: 1, UnitPrice: &price, Cost: &cost}}}
	if err := c.OrderWebhook(ctx, w.tn.Custom.WebhookKey, tx); err != nil {
		t.Fatal(err)
	}
	tx.Status, tx.UpdatedAt = client.TransactionRefunded, w.clk.Now()
	if err := c.OrderWebhook(ctx, w.tn.Custom.WebhookKey, tx); err != nil {
		t.Fatal(err)
	}
	var status string
	var value, productCost int64
	if err := w.srv.Postgres.QueryRow(ctx, "SELECT status, value, product_cost FROM orders WHERE transaction_id = $1", tx.ID).
		Scan(&status, &value, &productCost); err != nil {
		t.Fatal(err)
	}
	if status != client.TransactionRefunded || value != 19990 || productCost != cost {
		t.Fatalf("stored order: %s %d %d", status, value, productCost)
	}

	err := c.OrderWebhook(ctx, "wrong-key", tx)
	wantAPIError(t, err, 401, client.ErrorTypeAuthentication, client.CodeInvalidAPIKey)
	err = c.OrderWebhook(ctx, w.tn.Custom.WebhookKey, &client.Transaction{ID: "order-2", Status: "shipped"})
	e := wantAPIError(t, err, 400, client.ErrorTypeValidation, client.CodeInvalidParameter)
	if ps := e.Params(); len(ps) != 2 || ps[0] != "transaction.status" || ps[1] != "transaction.created_at" {
		t.Fatalf("params %q of %q", ps, e.Details)
	}
}

func TestLinksAndDecodeMessages(t *testing.T) {
	w := newWorld(t, platform.TierDefault)
	ctx := context.Background()
	c, _ := w.client(w.trackKey)
	link, err := c.CreateLink(ctx, &client.LinkInput{Name: "Promo", Phone: "+55 11 91234-5678", Message: "Hi!",
		UTM: client.UTM{Source: "alpha", Campaign: "Sale|123"}})
	if err != nil {
		t.Fatal(err)
	}
	if link.ID == "" || len(link.Slug) != 8 || link.URL != w.srv.URL+"/l/"+link.Slug {
		t.Fatalf("link %+v", link)
	}
	// A visitor follows the link; the chat text carries the click.
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.Get(link.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	chat, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || resp.StatusCode != http.StatusFound {
		t.Fatalf("visit: %d %s %v", resp.StatusCode, resp.Header.Get("Location"), err)
	}
	tracked := "I came from the ad: " + chat.Query().Get("text")

	msgs, err := c.DecodeMessages(ctx, []string{tracked, "no marker here"})
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 2 {
		t.Fatalf("%d answers", len(msgs))
	}
	m, plain := msgs[0], msgs[1]
	if m.Text != tracked || m.DecodedText != "I came from the ad: Hi!" || m.DecodedID == nil || m.TrackingLinkID == nil ||
		*m.TrackingLinkID != link.ID || m.Params == nil || m.Params.Campaign != "Sale|123" || string(m.SelectedTarget) != "null" {
		t.Fatalf("decoded %+v", m)
	}
	if plain.DecodedID != nil || plain.Params != nil || plain.TrackingLinkID != nil || plain.DecodedText != plain.Text {
		t.Fatalf("untracked %+v", plain)
	}
	// The sender's event carries the click: the click becomes their lead's.
	res, err := c.TrackEvent(ctx, &client.Event{Config: client.EventConfig{Name: "Contact"}, Source: client.EventSourceWhatsApp,
		Lead: &client.Lead{Phone: "+55 11 98888-7777"}, ClickID: *m.DecodedID})
	if err != nil {
		t.Fatal(err)
	}
	var lead string
	if err := w.srv.Postgres.QueryRow(ctx, "SELECT lead_id FROM link_clicks WHERE id = $1", *m.DecodedID).Scan(&lead); err != nil ||
		res.LeadID == nil || lead != *res.LeadID {
		t.Fatalf("the click's lead %q (%v), the event's %v", lead, err, res.LeadID)
	}

	_, err = c.DecodeMessages(ctx, nil)
	wantAPIError(t, err, 400, client.ErrorTypeValidation, client.CodeInvalidParameter)
	_, err = c.CreateLink(ctx, &client.LinkInput{Name: "Bad", Phone: "12", Message: "x"})
	wantAPIError(t, err, 400, client.ErrorTypeValidation, client.CodeInvalidParameter)
}
