// Package alpha is the connector of alpha_ads, a Graph-API network modelled on Meta's Marketing
// API: cursor-paged edges, insights per day or per hour, amounts as strings in major units and
// budgets in minor units, writes through the batch endpoint (50 requests a batch).
package alpha

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"mtk/adsync"
	"mtk/adsync/netclient"
)

// pageSize is the rows asked per page (the network allows 5000).
const pageSize = 5000

// batchSize is the most requests one batch may carry.
const batchSize = 50

// Connector reads and writes one alpha ad account.
type Connector struct {
	base, token, account string
	http                 *netclient.Client
}

// New returns the connector of the account in cred (act_<digits> or <digits>).
func New(cred adsync.Credentials, client *netclient.Client) *Connector {
	acct := cred.AccountID
	if !strings.HasPrefix(acct, "act_") {
		acct = "act_" + acct
	}
	return &Connector{base: strings.TrimSuffix(cred.BaseURL, "/"), token: cred.AccessToken, account: acct, http: client}
}

// HasReach: alpha's day rows carry reach.
func (c *Connector) HasReach() bool { return true }

// apiError is the Graph API's error body.
type apiError struct {
	Error struct {
		Message string `json:"message"`
		Code    int    `json:"code"`
		Subcode int    `json:"error_subcode"`
	} `json:"error"`
}

func decodeError(status int, body []byte) error {
	var e apiError
	if json.Unmarshal(body, &e) == nil && e.Error.Message != "" {
		return fmt.Errorf("alpha_ads: %s (code %d, subcode %d)", e.Error.Message, e.Error.Code, e.Error.Subcode)
	}
	return fmt.Errorf("alpha_ads: HTTP %d", status)
}

func (c *Connector) send(ctx context.Context, method, u string, form url.Values, out any) error {
	req := netclient.Request{Method: method, URL: u, Header: http.Header{"Authorization": {"Bearer " + c.token}}}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Body = []byte(form.Encode())
	}
	resp, err := c.http.Do(ctx, req, nil)
	if err != nil {
		return fmt.Errorf("alpha_ads: %w", err)
	}
	if resp.Status != http.StatusOK {
		return decodeError(resp.Status, resp.Body)
	}
	if err := json.Unmarshal(resp.Body, out); err != nil {
		return fmt.Errorf("alpha_ads: unreadable answer: %w", err)
	}
	return nil
}

// page is one page of an edge.
type page[T any] struct {
	Data   []T `json:"data"`
	Paging struct {
		Next string `json:"next"`
	} `json:"paging"`
}

// list reads every page of an edge of the account.
func list[T any](ctx context.Context, c *Connector, edge string, q url.Values) ([]T, error) {
	q.Set("limit", fmt.Sprint(pageSize))
	next := c.base + "/" + c.account + "/" + edge + "?" + q.Encode()
	var all []T
	for next != "" {
		var p page[T]
		if err := c.send(ctx, http.MethodGet, next, nil, &p); err != nil {
			return nil, err
		}
		all = append(all, p.Data...)
		next = p.Paging.Next
	}
	return all, nil
}

// Account describes the ad account.
func (c *Connector) Account(ctx context.Context) (adsync.Account, error) {
	var a struct {
		ID       string `json:"id"`
		Name     string `json:"name"`
		Currency string `json:"currency"`
		TimeZone string `json:"timezone_name"`
	}
	u := c.base + "/" + c.account + "?fields=id,name,currency,timezone_name"
	if err := c.send(ctx, http.MethodGet, u, nil, &a); err != nil {
		return adsync.Account{}, err
	}
	return adsync.Account{ID: a.ID, Name: a.Name, Currency: a.Currency, TimeZone: a.TimeZone}, nil
}
