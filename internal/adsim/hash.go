package adsim

import "math/bits"

// Everything random in the simulator is a pure function of the seed and of stable keys (object ids,
// hour numbers), computed with the functions below, so that two simulators with the same seed
// answer alike byte for byte.

const golden = 0x9e3779b97f4a7c15

// splitmix is the finalizer of SplitMix64: a bijective scramble of x.
func splitmix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// mix hashes its inputs, in order, to one well-spread 64-bit value.
func mix(vals ...uint64) uint64 {
	h := uint64(golden)
	for _, v := range vals {
		h = splitmix(h ^ (v + golden + h<<6 + h>>2))
	}
	return h
}

// strKey is the 64-bit FNV-1a hash of s.
func strKey(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// between maps h to an integer in [lo, hi].
func between(h uint64, lo, hi int64) int64 {
	return lo + int64(h%uint64(hi-lo+1))
}

// rng is a SplitMix64 stream: a small generator whose sequence never changes between Go versions.
type rng struct{ s uint64 }

func newRNG(vals ...uint64) *rng { return &rng{s: mix(vals...)} }

func (r *rng) next() uint64 {
	r.s += golden
	return splitmix(r.s)
}

// intn returns an integer in [lo, hi].
func (r *rng) intn(lo, hi int64) int64 { return between(r.next(), lo, hi) }

// chance reports true with probability pct/100.
func (r *rng) chance(pct int64) bool { return r.intn(0, 99) < pct }

// digits returns n decimal digits, the first not zero.
func (r *rng) digits(n int) string {
	b := make([]byte, n)
	for i := range b {
		lo := int64(0)
		if i == 0 {
			lo = 1
		}
		b[i] = byte('0' + r.intn(lo, 9))
	}
	return string(b)
}

// hex returns n lower-case hex digits.
func (r *rng) hex(n int) string {
	const hexdigits = "0123456789abcdef"
	b := make([]byte, n)
	for i := range b {
		b[i] = hexdigits[r.next()%16]
	}
	return string(b)
}

// pick returns one element of list.
func pick[T any](r *rng, list []T) T { return list[r.next()%uint64(len(list))] }

// mulDiv returns floor(a*b/c) for a, b >= 0 and c > 0 without overflowing the product.
// The quotient must fit in an int64, which every caller guarantees by construction.
func mulDiv(a, b, c int64) int64 {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	q, _ := bits.Div64(hi, lo, uint64(c))
	return int64(q)
}
