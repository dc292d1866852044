// Package conversions is the conversions queue (conversion_outbox, written in the writer's
// transaction by Queue) forwarded to the first network's conversions API: its Deliverer, the
// retention of settled conversions (Purge) and the operator's view (List, Retry, Count, Backlogs;
// `mtk outbox`). Unlike the outboxes of ingest/outbox it is not drained into ClickHouse.
//
// A conversion is queued once per (pixel, event name, event id) with its server event already
// built (user data normalized and hashed by ingest/capi). An event that the API would refuse is
// queued dead at once with the reason. The Deliverer sends due conversions per pixel in requests
// of at most capi.MaxBatch events to {api_base_url}/<pixel>/events (api_base_url is the network's
// versioned API root, as the sync uses it: http://host/alpha/v19.0) with the access
// token of the project's first network connection (the oldest active alpha_ads connection that
// has both). A sent conversion is done; a refused request names the bad event (data[i]), which
// goes dead while the others are retried at once; an event older than 7 days goes dead without
// being sent; other failures (network, 5xx, 429, missing credentials) are retried with
// exponential backoff (30 s doubling, at most 1 h) and go dead after MaxAttempts. Dead
// conversions stay 30 days for an operator (`mtk outbox list|retry ID|stats`), sent ones 7 days
// (Purge).
package conversions
