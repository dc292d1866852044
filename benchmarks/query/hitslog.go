package main

import (
	"fmt"
	"io"
	"os"

	"mtk/internal/logbuf"
)

// The -hits-log modes: where the server's request log goes during the -hits run.
const (
	hitsLogBuffered = "buffered" // a temporary file through logbuf, as mtk serve writes stdout
	hitsLogDirect   = "direct"   // a temporary file, a write per line
	hitsLogDiscard  = "discard"  // formatted, then dropped
)

// hitsLogWriter opens mode's destination of the request log; done flushes and removes it.
func hitsLogWriter(mode string) (w io.Writer, done func(), err error) {
	if mode == hitsLogDiscard {
		return io.Discard, func() {}, nil
	}
	if mode != hitsLogBuffered && mode != hitsLogDirect {
		return nil, nil, fmt.Errorf("-hits-log %q: want %s, %s or %s", mode, hitsLogBuffered, hitsLogDirect, hitsLogDiscard)
	}
	f, err := os.CreateTemp("", "mtk-hits-log")
	if err != nil {
		return nil, nil, err
	}
	remove := func() {
		f.Close()
		os.Remove(f.Name())
	}
	if mode == hitsLogDirect {
		return f, remove, nil
	}
	b := logbuf.New(f)
	return b, func() {
		b.Close() //nolint:errcheck // the file is removed next
		remove()
	}, nil
}
