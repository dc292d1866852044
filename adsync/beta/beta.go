// Package beta is the connector of beta_ads, a network modelled on the Google Ads API: GAQL
// searches paged by token, money as int64 micros in strings, daily campaign budgets as resources
// of their own, writes through mutate with partial failure.
package beta

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"mtk/adsync"
	"mtk/adsync/netclient"
)

// pageSize is the rows asked per page (the network's maximum).
const pageSize = 10000

// Connector reads and writes one beta customer (ad account).
type Connector struct {
	base, token, developerToken, customer string
	http                                  *netclient.Client
}

// New returns the connector of the customer in cred (10 digits, dashes allowed).
func New(cred adsync.Credentials, developerToken string, client *netclient.Client) *Connector {
	return &Connector{
		base: strings.TrimSuffix(cred.BaseURL, "/"), token: cred.AccessToken, developerToken: developerToken,
		customer: strings.ReplaceAll(cred.AccountID, "-", ""), http: client,
	}
}

// HasReach: beta has no reach.
func (c *Connector) HasReach() bool { return false }

type failure struct {
	Errors []struct {
		Message   string            `json:"message"`
		ErrorCode map[string]string `json:"errorCode"`
		Details   struct {
			Quota struct {
				RetryDelay string `json:"retryDelay"`
			} `json:"quotaErrorDetails"`
		} `json:"details"`
		Location struct {
			Path []struct {
				Field string `json:"fieldName"`
				Index *int   `json:"index"`
			} `json:"fieldPathElements"`
		} `json:"location"`
	} `json:"errors"`
}

type apiError struct {
	Error struct {
		Code    int       `json:"code"`
		Message string    `json:"message"`
		Status  string    `json:"status"`
		Details []failure `json:"details"`
	} `json:"error"`
}

func decodeError(status int, body []byte) error {
	var e apiError
	if json.Unmarshal(body, &e) == nil && e.Error.Status != "" {
		msg := e.Error.Message
		for _, d := range e.Error.Details {
			for _, fe := range d.Errors {
				msg = fe.Message
			}
		}
		return fmt.Errorf("beta_ads: %s: %s", e.Error.Status, msg)
	}
	return fmt.Errorf("beta_ads: HTTP %d", status)
}

// retryDelay is the quota error's retryDelay ("40s").
func retryDelay(r netclient.Response) time.Duration {
	var e apiError
	if json.Unmarshal(r.Body, &e) != nil {
		return 0
	}
	for _, d := range e.Error.Details {
		for _, fe := range d.Errors {
			if v, err := time.ParseDuration(fe.Details.Quota.RetryDelay); err == nil {
				return v
			}
		}
	}
	return 0
}

func (c *Connector) post(ctx context.Context, path string, body, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	resp, err := c.http.Do(ctx, netclient.Request{
		Method: http.MethodPost, URL: c.base + "/customers/" + c.customer + path, Body: b,
		Header: http.Header{"Authorization": {"Bearer " + c.token}, "Developer-Token": {c.developerToken},
			"Content-Type": {"application/json"}},
	}, retryDelay)
	if err != nil {
		return fmt.Errorf("beta_ads: %w", err)
	}
	if resp.Status != http.StatusOK {
		return decodeError(resp.Status, resp.Body)
	}
	if err := json.Unmarshal(resp.Body, out); err != nil {
		return fmt.Errorf("beta_ads: unreadable answer: %w", err)
	}
	return nil
}

// search runs a GAQL query and reads every page.
func search[T any](ctx context.Context, c *Connector, query string) ([]T, error) {
	var all []T
	token := ""
	for {
		var page struct {
			Results       []T    `json:"results"`
			NextPageToken string `json:"nextPageToken"`
		}
		body := map[string]any{"query": query, "pageSize": pageSize}
		if token != "" {
			body["pageToken"] = token
		}
		if err := c.post(ctx, "/googleAds:search", body, &page); err != nil {
			return nil, err
		}
		all = append(all, page.Results...)
		if page.NextPageToken == "" {
			return all, nil
		}
		token = page.NextPageToken
	}
}

// Account describes the customer.
func (c *Connector) Account(ctx context.Context) (adsync.Account, error) {
	rows, err := search[struct {
		Customer struct {
			ID       string `json:"id"`
			Name     string `json:"descriptiveName"`
			Currency string `json:"currencyCode"`
			TimeZone string `json:"timeZone"`
		} `json:"customer"`
	}](ctx, c, "SELECT customer.id, customer.descriptive_name, customer.currency_code, customer.time_zone FROM customer")
	if err != nil {
		return adsync.Account{}, err
	}
	if len(rows) != 1 {
		return adsync.Account{}, fmt.Errorf("beta_ads: customer query answered %d rows", len(rows))
	}
	cu := rows[0].Customer
	return adsync.Account{ID: cu.ID, Name: cu.Name, Currency: cu.Currency, TimeZone: cu.TimeZone}, nil
}
