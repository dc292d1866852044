package idempotency

import (
	"mtk/internal/apperr"
)

// HeaderKey is the request header that carries the key; HeaderReplayed marks a replayed answer.
const (
	HeaderKey      = "Idempotency-Key"
	HeaderReplayed = "X-Idempotent-Replayed"
	// HeaderOriginalRequest names, on a replay, the X-Request-Id of the call that made the answer
	// (the replay has its own, as Stripe's replays do).
	HeaderOriginalRequest = "Original-Request"
)

const maxKeyLength = 255

// keyValue returns the one Idempotency-Key value of a request, or a 400 invalid_parameter.
func keyValue(values [][]byte) (string, error) {
	if len(values) != 1 || !validKey(values[0]) {
		return "", apperr.Invalid("Invalid Idempotency-Key header.",
			"Idempotency-Key: must be sent once, as 1 to 255 printable ASCII characters")
	}
	return string(values[0]), nil
}

func validKey(v []byte) bool {
	if len(v) == 0 || len(v) > maxKeyLength {
		return false
	}
	for _, b := range v {
		if b < ' ' || b > '~' {
			return false
		}
	}
	return true
}
