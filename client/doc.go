// Package client is a Go client for mtk's HTTP API: typed requests and answers for the platform,
// query and tracking routes, typed errors in the contract's envelope, and safe retries.
//
// Make one Client per base URL and credential and share it: it is safe for concurrent use and
// keeps its connections alive.
//
//	c := client.New("https://mtk.example.com", client.WithAPIKey(os.Getenv("MTK_API_KEY")))
//	res, err := c.Query(ctx, &client.QueryRequest{
//		ProjectID: "prj_…",
//		Fields:    []string{"spend", "roas"},
//		Start:     "2026-03-01", End: "2026-03-07",
//		Level:     client.LevelCampaign,
//	})
//
// Errors that the API answers are *Error values (use errors.As, or helpers such as
// IsRateLimited); network failures and context errors come back wrapped as they are.
//
// Retries: a call answered 429 or 503, or (when it is safe to repeat) one whose connection
// failed, is sent again up to WithMaxRetries times (2 by default). The wait is the answer's
// Retry-After when it has one, else an exponential backoff with jitter (0.5 s doubling, at most
// 8 s); it ends early when the context is done, and a Retry-After that would outlast the
// context's deadline is not waited for. Every write that the API makes idempotent (PUT objects,
// every tracking write) carries an Idempotency-Key, generated once per call and reused by its
// retries, unless WithIdempotencyKey gives one; with retries off (WithMaxRetries(0)) a key is
// sent only when given. Reads, login, query, message decoding and the order webhook (an upsert
// by transaction id) are safe to repeat as they are.
//
// Money is never a float64: request amounts are integer cents, and query answers keep each
// number as the server wrote it (Value.Decimal reads money exactly). A compared answer's rows
// read the other period with Row.Compare, as exact as the row, and the relative change with
// Row.Change; Explain's plan is a list of PlanPart.
//
// Every member of the query body is typed (Dimensions, Revenue and Attribution included), and so
// is every member of the answers of Query (View), Explain (Attribution, View) and Fields (Ranges,
// Compare, Attribution, each Dimension's Metrics): no documented member needs RawRequest. A test
// walks the OpenAPI document's schemas against these types.
package client
