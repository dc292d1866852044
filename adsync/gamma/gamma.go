// Package gamma is the connector of gamma_ads, a network modelled on the TikTok Business API:
// every answer in a {code, message, data} envelope (errors keep HTTP 200 with a non-zero code),
// page-numbered lists, amounts as strings in major units, writes of at most 20 ids or items.
package gamma

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

// pageSize is the rows asked per page (the network's maximum).
const pageSize = 1000

// batchSize is the most ids or items one write takes.
const batchSize = 20

// Connector reads and writes one gamma advertiser (ad account).
type Connector struct {
	base, token, advertiser string
	http                    *netclient.Client
}

// New returns the connector of the advertiser in cred.
func New(cred adsync.Credentials, client *netclient.Client) *Connector {
	return &Connector{base: strings.TrimSuffix(cred.BaseURL, "/"), token: cred.AccessToken, advertiser: cred.AccountID, http: client}
}

// HasReach: gamma has no reach.
func (c *Connector) HasReach() bool { return false }

type envelope struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

func (c *Connector) call(ctx context.Context, method, path string, q url.Values, body, out any) error {
	req := netclient.Request{Method: method, URL: c.base + "/" + path, Header: http.Header{"Access-Token": {c.token}}}
	if q != nil {
		req.URL += "?" + q.Encode()
	}
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		req.Body = b
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(ctx, req, nil)
	if err != nil {
		return fmt.Errorf("gamma_ads: %w", err)
	}
	var env envelope
	if err := json.Unmarshal(resp.Body, &env); err != nil {
		return fmt.Errorf("gamma_ads: HTTP %d, unreadable answer", resp.Status)
	}
	if resp.Status != http.StatusOK || env.Code != 0 {
		return fmt.Errorf("gamma_ads: %s (code %d)", env.Message, env.Code)
	}
	if err := json.Unmarshal(env.Data, out); err != nil {
		return fmt.Errorf("gamma_ads: unreadable data: %w", err)
	}
	return nil
}

// list reads every page of a list endpoint.
func list[T any](ctx context.Context, c *Connector, path string, q url.Values) ([]T, error) {
	q.Set("advertiser_id", c.advertiser)
	q.Set("page_size", fmt.Sprint(pageSize))
	var all []T
	for page := 1; ; page++ {
		q.Set("page", fmt.Sprint(page))
		var d struct {
			List     []T `json:"list"`
			PageInfo struct {
				TotalPage int `json:"total_page"`
			} `json:"page_info"`
		}
		if err := c.call(ctx, http.MethodGet, path, q, nil, &d); err != nil {
			return nil, err
		}
		all = append(all, d.List...)
		if page >= d.PageInfo.TotalPage {
			return all, nil
		}
	}
}

// Account describes the advertiser.
func (c *Connector) Account(ctx context.Context) (adsync.Account, error) {
	ids, _ := json.Marshal([]string{c.advertiser})
	var d struct {
		List []struct {
			ID       string `json:"advertiser_id"`
			Name     string `json:"name"`
			Currency string `json:"currency"`
			TimeZone string `json:"timezone"`
		} `json:"list"`
	}
	if err := c.call(ctx, http.MethodGet, "advertiser/info/", url.Values{"advertiser_ids": {string(ids)}}, nil, &d); err != nil {
		return adsync.Account{}, err
	}
	if len(d.List) != 1 {
		return adsync.Account{}, fmt.Errorf("gamma_ads: advertiser info answered %d rows", len(d.List))
	}
	a := d.List[0]
	return adsync.Account{ID: a.ID, Name: a.Name, Currency: a.Currency, TimeZone: a.TimeZone}, nil
}
