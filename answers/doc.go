// Package answers answers metrics queries (POST /v3/query and its explain) for the HTTP layer:
// it prepares a query, reads the data version of the days it reads (facts.Versions), serves a
// kept answer or runs the engine once for every caller asking the same (engine single flight),
// encodes the answer, keeps it (Cache, and Shared with the other replicas in Redis) and tags
// it (ETag). The handlers only decode and write what Service returns; only this package runs
// the engine's statements (internal/archtest).
package answers
