package conform

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/getkin/kin-openapi/openapi3filter"

	"mtk/internal/auth"
)

// credentialSent is the validator's authentication: it checks that the request carries what a
// security scheme names (the server checks whether it is good). The two bearer schemes differ by
// the token: an API key starts with auth.APIKeyPrefix, a JWT does not; the others are found
// where the document puts them.
func credentialSent(_ context.Context, in *openapi3filter.AuthenticationInput) error {
	req := in.RequestValidationInput.Request
	bearer, _ := strings.CutPrefix(req.Header.Get("Authorization"), "Bearer ")
	scheme := in.SecurityScheme
	var ok bool
	switch {
	case in.SecuritySchemeName == "apiKey":
		ok = strings.HasPrefix(bearer, auth.APIKeyPrefix)
	case in.SecuritySchemeName == "jwt":
		ok = bearer != "" && !strings.HasPrefix(bearer, auth.APIKeyPrefix)
	case scheme != nil && scheme.Type == "apiKey" && scheme.In == "header":
		ok = req.Header.Get(scheme.Name) != ""
	case scheme != nil && scheme.Type == "apiKey" && scheme.In == "query":
		ok = req.URL.Query().Get(scheme.Name) != ""
	default:
		return fmt.Errorf("unknown security scheme %q", in.SecuritySchemeName)
	}
	if !ok {
		return errors.New("credential not sent")
	}
	return nil
}
