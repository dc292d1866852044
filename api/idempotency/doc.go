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
//   - A first call that never finished (the process died) holds its key for Lease; after that a
//     repeat of the same request takes the key over and runs. A stale first call that finishes
//     after being taken over does not overwrite the new owner's answer. Lease must exceed the
//     longest a handler may run.
//   - A key expires Window after its first call; then the call runs again as a new first call.
//     Store.Purge deletes expired records; a scheduled job calls it.
//
// Mount the middleware after authentication (it reads the principal for the default scope) and
// after rate limiting; mount response compression, if any, before it, so that what is stored is
// the uncompressed body.
package idempotency
