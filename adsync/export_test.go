package adsync

// SetFailAt sets the test seam of s: f is asked at each failure point of a batch (after the
// insert into each landing table, named by the table; "apply" before the transaction that
// applies the snapshot; "commit" inside it, before its commit), and an error stops the run there.
func SetFailAt(s *Syncer, f func(point string) error) { s.failAt = f }
