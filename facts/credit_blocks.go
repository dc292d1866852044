package facts

import "math/bits"

// The credits' rollups hold each delta (a credit row of window_days b) in aligned blocks of
// windows [lo, hi] of WindowBlockSizes that contain b: for size s, lo = (b-1) rounded down to a
// multiple of s, plus 1, and hi = lo + s - 1. A window of w days is the popcount(w) blocks of w's
// bits, largest first (WindowTiling), which tile [1, w] exactly: a query sums those blocks
// instead of every window_days <= w. A tiling's block of size s starts after a multiple of 2s
// (the sum of w's higher bits), so a block whose (lo-1)/s is odd is in no tiling: only the
// others are written, 7 - popcount(b-1) blocks of the 7 sizes (all 7 for b = 1, fewer for the
// older touches' deltas). Both sides are here, once: InsertCredits spreads, the engine's window
// condition tiles.

// WindowBlockSizes are the sizes of the credits' window blocks: every power of two up to
// MaxWindowDays.
var WindowBlockSizes = func() []uint8 {
	var out []uint8
	for s := 1; s <= MaxWindowDays; s *= 2 {
		out = append(out, uint8(s))
	}
	return out
}()

// WindowBlock is a block of windows [Lo, Hi] of the credits' rollups.
type WindowBlock struct{ Lo, Hi uint8 }

// appendWindowBlocks appends to dst the blocks that contain window b (1..MaxWindowDays) and that
// some tiling reads, smallest first.
func appendWindowBlocks(dst []WindowBlock, b uint8) []WindowBlock {
	for _, s := range WindowBlockSizes {
		if k := (b - 1) / s; k%2 == 0 {
			dst = append(dst, WindowBlock{Lo: k*s + 1, Hi: k*s + s})
		}
	}
	return dst
}

// WindowTiling are the blocks whose deltas make the credits of a window of w days
// (1..MaxWindowDays): one per bit of w, largest first, tiling [1, w].
func WindowTiling(w int) []WindowBlock {
	var out []WindowBlock
	start := 0
	for l := bits.Len(uint(w)) - 1; l >= 0; l-- {
		if w&(1<<l) != 0 {
			out = append(out, WindowBlock{Lo: uint8(start + 1), Hi: uint8(start + 1<<l)})
			start += 1 << l
		}
	}
	return out
}
