// Package networks picks the connector of a connection's network: the one place that knows
// every network package.
package networks

import (
	"fmt"

	"mtk/adsync"
	"mtk/adsync/alpha"
	"mtk/adsync/beta"
	"mtk/adsync/gamma"
	"mtk/adsync/netclient"
	"mtk/platform"
)

// DefaultDeveloperToken is the beta developer token the simulator takes by default.
const DefaultDeveloperToken = "adsim-developer-token"

// Factory makes connectors for connections.
type Factory struct {
	// HTTP configures the retrying client of every connector.
	HTTP netclient.Config
	// BetaDeveloperToken is sent as beta's developer-token header.
	BetaDeveloperToken string
}

// Connector returns the connector of an ad network connection.
func (f Factory) Connector(c platform.Connection) (adsync.Connector, error) {
	if c.APIBaseURL == "" || c.AccessToken == "" || c.SourceID == nil {
		return nil, fmt.Errorf("connection %s: %w", c.ID, adsync.ErrNoCredentials)
	}
	cred := adsync.Credentials{BaseURL: c.APIBaseURL, AccessToken: c.AccessToken, AccountID: *c.SourceID}
	client := netclient.New(f.HTTP)
	switch c.Kind {
	case platform.KindAlpha:
		return alpha.New(cred, client), nil
	case platform.KindBeta:
		tok := f.BetaDeveloperToken
		if tok == "" {
			tok = DefaultDeveloperToken
		}
		return beta.New(cred, tok, client), nil
	case platform.KindGamma:
		return gamma.New(cred, client), nil
	}
	return nil, fmt.Errorf("connection %s of kind %s has no connector", c.ID, c.Kind)
}

// APIRoot is the API root of a network on a host serving the simulator's paths (base URL
// without a trailing slash): what a connection's api_base_url holds.
func APIRoot(kind, host string) string {
	switch kind {
	case platform.KindAlpha:
		return host + "/alpha/v19.0"
	case platform.KindBeta:
		return host + "/beta/v16"
	case platform.KindGamma:
		return host + "/gamma/open_api/v1.3"
	}
	return ""
}
