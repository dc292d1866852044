// Package idempotency makes write requests safe to retry: the first call with an Idempotency-Key
// runs and its answer is stored in PostgreSQL (table idempotency_records); a repeat within Window
// gets that answer again, with X-Idempotent-Replayed: true, without running the handler.
//
// The rules, which the contract and the spec leave to this package:
//
//   - Only POST, PUT, PATCH and DELETE requests that carry the header take part. The value must
//     be 1 to 255 printable ASCII characters (space to ~), sent once; otherwise 400
//     invalid_parameter.
//   - A key belongs to a scope: the API key (key:<key id>), the user in a workspace for a JWT
//     (user:<user id>:<workspace id>), or the container for public calls (ContainerScope). The
//     same value in two scopes names two records.
//   - The stored request is the method, the path with its query string, and a SHA-256 of the raw
//     body. A repeat that differs in any of them gets 409 conflict_error/idempotency_conflict, as
//     does a repeat while the first call still runs. Bodies are compared byte for byte: the same
//     JSON with other spacing is another request.
//   - What is replayed is the first answer's status, Content-Type and body, byte for byte. The
//     replay has its own X-Request-Id, and Original-Request names the first call's (which a
//     replayed error body's request_id holds). Other headers are those of the replaying request
//     (its own X-RateLimit-* headers).
//   - Answers with status 500 and above are not stored: the record is removed and a retry runs
//     again. So is a call whose handler panicked. Every other status (2xx, 3xx, 4xx) is stored.
//   - A handler whose work is one PostgreSQL transaction stores its answer in that transaction
//     (Receipt; the event routes do): a crash then leaves the work and the finished record both,
//     or neither, and the retry replays or runs.
//   - A claim is free once no live process holds it. The first call holds its key under a lease
//     (Lease, 2 s) that it renews every third of the lease while it runs and until its answer is
//     stored. A failed call (5xx) stops renewing, then removes its record, given a third of the
//     lease within the request's deadline (the handler's own deadline comes that much earlier).
//     A process that died, or a failed call that could not remove its record (the store failed),
//     renews nothing, so its key is free at most Lease after its last renewal: shorter than
//     every Retry-After of a 503, so the retry of a failed call runs (or replays a finished
//     answer), never 409s. A repeat while the lease holds is 409 with Retry-After, the lease's
//     remaining whole seconds (at least 1). A call whose lease ended unrenewed, or whose claim
//     was taken over, has its context ended and is answered 503: a repeat may be running it.
//     A stale first call that settles after being taken over changes nothing of the new
//     owner's record (every write is fenced by the claim's created_at). Leases are kept in the
//     processes' clock, as expiry is: replicas need synchronized clocks.
//   - A key expires Window after its first call; then the call runs again as a new first call.
//     Store.Purge deletes expired records; a scheduled job calls it.
//
// Mount the middleware after authentication (it reads the principal for the default scope) and
// after rate limiting; mount response compression, if any, before it, so that what is stored is
// the uncompressed body.
package idempotency
