package api

// What the black-box tests need of api's internals. They are package api_test because they serve
// the API as `mtk serve` does, over wire.System.API, and wire imports api.

// The OAuth endpoints, the headers and the consent page's cookie that the tests send.
const (
	PathAuthorize   = pathAuthorize
	PathToken       = pathToken
	PathRevoke      = pathRevoke
	PathMetadata    = pathMetadata
	HeaderWorkspace = headerWorkspace
	HeaderAPIKey    = headerAPIKey
	CSRFCookie      = csrfCookie
)

// ErrorStyle is the shape of a route's errors, which the hostile tests expect of each route.
type ErrorStyle = errorStyle

// The error styles, and those of the OAuth endpoints.
const (
	StyleEnvelope = styleEnvelope
	StyleLegacy   = styleLegacy
	StyleOAuth    = styleOAuth
	StylePage     = stylePage
)

// EndpointStyles are the OAuth endpoints' error styles.
var EndpointStyles = endpointStyles

// ToAppError maps a store's error as the error renderer does.
var ToAppError = toAppError
